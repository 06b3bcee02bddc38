/* CDI rules on container edits: env entries, device nodes, mounts, hooks,
 * intelRdt and netDevices. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "walk.h"
#include "core/base/base.h"

static const char *str(const json_t *obj, const char *key)
{
        return json_string_value(json_object_get(obj, key));
}

void ctk_cdi_check_env(const json_t *env, struct ctk_cdi_walk *w)
{
        size_t i;
        const json_t *v;
        json_array_foreach(env, i, v)
        {
                const char *s = json_string_value(v);
                if (s == NULL)
                        continue;
                const char *eq = strchr(s, '=');
                if (eq == NULL || eq == s) {
                        ctk_cdi_walk_index(w, i);
                        ctk_cdi_error(w, "invalid environment variable \"%s\": must be NAME=value", CTK_CUT(s));
                        ctk_cdi_walk_pop(w);
                }
        }
}

/* Reports at key `key` of the current object. */
static void absolute(const json_t *obj, const char *key, bool empty_ok, struct ctk_cdi_walk *w)
{
        const char *p = str(obj, key);
        if (p == NULL || (empty_ok && p[0] == '\0'))
                return;
        ctk_cdi_walk_key(w, key);
        if (p[0] == '\0')
                ctk_cdi_error(w, "must not be empty");
        else if (p[0] != '/')
                ctk_cdi_error(w, "\"%s\" must be an absolute path", CTK_CUT(p));
        ctk_cdi_walk_pop(w);
}

static void check_device_node(const json_t *n, struct ctk_cdi_walk *w)
{
        absolute(n, "path", false, w);
        absolute(n, "hostPath", true, w);
        const char *type = str(n, "type");
        if (type != NULL && strcmp(type, "") != 0 && strcmp(type, "b") != 0 && strcmp(type, "c") != 0 &&
            strcmp(type, "u") != 0 && strcmp(type, "p") != 0) {
                ctk_cdi_walk_key(w, "type");
                ctk_cdi_error(w, "invalid device type \"%s\": must be \"c\", \"b\", \"u\", \"p\" or empty",
                              CTK_CUT(type));
                ctk_cdi_walk_pop(w);
        }
        const char *perm = str(n, "permissions");
        if (perm != NULL && strcmp(perm, "none") != 0 && perm[strspn(perm, "rwm")] != '\0') {
                ctk_cdi_walk_key(w, "permissions");
                ctk_cdi_error(w, "invalid permissions \"%s\": must be letters from \"rwm\", \"none\" or empty",
                              CTK_CUT(perm));
                ctk_cdi_walk_pop(w);
        }
}

/* Whether path has a ".." component ("..", "a/../b", "/x/.."). */
static bool has_dotdot(const char *path)
{
        for (const char *p = path; (p = strstr(p, "..")) != NULL; p += 2)
                if ((p == path || p[-1] == '/') && (p[2] == '\0' || p[2] == '/'))
                        return true;
        return false;
}

/* A mount's paths: the container's absolute, neither with "..": a spec
 * must not reach outside what it names (runc resolves a container path
 * inside the root, but the spec's author meant something else). */
static void check_mount(const json_t *m, struct ctk_cdi_walk *w)
{
        const char *host = str(m, "hostPath");
        if (host != NULL) {
                ctk_cdi_walk_key(w, "hostPath");
                if (host[0] == '\0')
                        ctk_cdi_error(w, "must not be empty");
                else if (has_dotdot(host))
                        ctk_cdi_error(w, "\"%s\" must not have a \"..\" component", CTK_CUT(host));
                ctk_cdi_walk_pop(w);
        }
        const char *dst = str(m, "containerPath");
        if (dst == NULL)
                return;
        ctk_cdi_walk_key(w, "containerPath");
        if (dst[0] == '\0')
                ctk_cdi_error(w, "must not be empty");
        else if (dst[0] != '/')
                ctk_cdi_error(w, "\"%s\" must be an absolute path", CTK_CUT(dst));
        else if (has_dotdot(dst))
                ctk_cdi_error(w, "\"%s\" must not have a \"..\" component", CTK_CUT(dst));
        ctk_cdi_walk_pop(w);
}

static const char *const hook_names[] = {"prestart",       "createRuntime", "createContainer",
                                         "startContainer", "poststart",     "poststop"};

static void check_hook(const json_t *h, struct ctk_cdi_walk *w)
{
        const char *name = str(h, "hookName");
        if (name != NULL) {
                bool known = false;
                for (size_t i = 0; i < sizeof(hook_names) / sizeof(hook_names[0]); i++)
                        known = known || strcmp(name, hook_names[i]) == 0;
                if (!known) {
                        ctk_cdi_walk_key(w, "hookName");
                        ctk_cdi_error(w,
                                      "invalid hook name \"%s\": must be one of prestart, createRuntime, "
                                      "createContainer, startContainer, poststart, poststop",
                                      CTK_CUT(name));
                        ctk_cdi_walk_pop(w);
                }
        }
        absolute(h, "path", false, w);
        ctk_cdi_walk_member(w, h, "env", JSON_ARRAY, ctk_cdi_check_env);
        const json_t *t = json_object_get(h, "timeout");
        if (json_is_integer(t) && json_integer_value(t) <= 0) {
                ctk_cdi_walk_key(w, "timeout");
                ctk_cdi_error(w, "timeout must be greater than zero");
                ctk_cdi_walk_pop(w);
        }
}

static void check_intel_rdt(const json_t *r, struct ctk_cdi_walk *w)
{
        const char *clos = str(r, "closID");
        if (clos == NULL)
                return;
        if (strlen(clos) >= 4096 || strcmp(clos, ".") == 0 || strcmp(clos, "..") == 0 ||
            (strcmp(clos, "/") != 0 && strpbrk(clos, "/\n") != NULL)) {
                ctk_cdi_walk_key(w, "closID");
                ctk_cdi_error(w, "invalid closID \"%s\": must be a file name (not \".\", \"..\", no '/' or newline)",
                              CTK_CUT(clos));
                ctk_cdi_walk_pop(w);
        }
}

/* ctk_cdi_first_same of the strings at key of list's objects. */
static size_t *first_same_at(const json_t *list, const char *key)
{
        size_t n = json_array_size(list);
        _cleanup_free_ const char **names = calloc(n + 1, sizeof(*names));
        if (names == NULL)
                return NULL;
        for (size_t i = 0; i < n; i++)
                names[i] = str(json_array_get(list, i), key);
        return ctk_cdi_first_same(names, n);
}

static void check_net_devices(const json_t *list, struct ctk_cdi_walk *w)
{
        static const char *const keys[] = {"hostInterfaceName", "name"};
        _cleanup_free_ size_t *same0 = first_same_at(list, keys[0]), *same1 = first_same_at(list, keys[1]);
        const size_t *same[2] = {same0, same1};
        size_t i;
        const json_t *d;
        json_array_foreach(list, i, d)
        {
                ctk_cdi_walk_index(w, i);
                for (size_t k = 0; k < 2; k++) {
                        const char *v = str(d, keys[k]);
                        if (v == NULL)
                                continue;
                        ctk_cdi_walk_key(w, keys[k]);
                        if (v[0] == '\0')
                                ctk_cdi_error(w, "must not be empty");
                        else if (same[k] != NULL && same[k][i] != SIZE_MAX)
                                ctk_cdi_error(w, "\"%s\" is already used by netDevices[%zu]", CTK_CUT(v), same[k][i]);
                        ctk_cdi_walk_pop(w);
                }
                ctk_cdi_walk_pop(w);
        }
}

/* Calls fn on every object of the array at key. */
static void each(const json_t *e, const char *key, void (*fn)(const json_t *, struct ctk_cdi_walk *),
                 struct ctk_cdi_walk *w)
{
        const json_t *list = json_object_get(e, key);
        if (!json_is_array(list))
                return;
        ctk_cdi_walk_key(w, key);
        size_t i;
        const json_t *x;
        json_array_foreach(list, i, x)
        {
                if (!json_is_object(x))
                        continue;
                ctk_cdi_walk_index(w, i);
                fn(x, w);
                ctk_cdi_walk_pop(w);
        }
        ctk_cdi_walk_pop(w);
}

void ctk_cdi_check_edits(const json_t *e, struct ctk_cdi_walk *w)
{
        ctk_cdi_walk_member(w, e, "env", JSON_ARRAY, ctk_cdi_check_env);
        each(e, "deviceNodes", check_device_node, w);
        each(e, "mounts", check_mount, w);
        each(e, "hooks", check_hook, w);
        ctk_cdi_walk_member(w, e, "intelRdt", JSON_OBJECT, check_intel_rdt);
        ctk_cdi_walk_member(w, e, "netDevices", JSON_ARRAY, check_net_devices);
}
