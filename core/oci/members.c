/* process.env, hooks, linux.intelRdt, linux.netDevices and the check of the
 * members edits touch (see members.h). */
#include "members.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/json/json.h"
#include "edit.h"
#include "member.h"

/* What a member must be: its path from the root and the type, and for
 * arrays what their elements must be (JSON_NULL: anything). */
struct want {
        const char *path[3];
        json_type type;
        json_type elem;
        const char *where;
};

static const struct want wants[] = {
    {{"process"}, JSON_OBJECT, JSON_NULL, "process"},
    {{"process", "env"}, JSON_ARRAY, JSON_STRING, "process.env"},
    {{"process", "user"}, JSON_OBJECT, JSON_NULL, "process.user"},
    {{"process", "user", "uid"}, JSON_INTEGER, JSON_NULL, "process.user.uid"},
    {{"process", "user", "gid"}, JSON_INTEGER, JSON_NULL, "process.user.gid"},
    {{"process", "user", "additionalGids"}, JSON_ARRAY, JSON_INTEGER, "process.user.additionalGids"},
    {{"linux"}, JSON_OBJECT, JSON_NULL, "linux"},
    {{"linux", "devices"}, JSON_ARRAY, JSON_OBJECT, "linux.devices"},
    {{"linux", "resources"}, JSON_OBJECT, JSON_NULL, "linux.resources"},
    {{"linux", "resources", "devices"}, JSON_ARRAY, JSON_OBJECT, "linux.resources.devices"},
    {{"linux", "namespaces"}, JSON_ARRAY, JSON_OBJECT, "linux.namespaces"},
    {{"linux", "netDevices"}, JSON_OBJECT, JSON_NULL, "linux.netDevices"},
    {{"mounts"}, JSON_ARRAY, JSON_OBJECT, "mounts"},
    {{"hooks"}, JSON_OBJECT, JSON_NULL, "hooks"},
};

static const char *const hook_kinds[] = {"prestart",       "createRuntime", "createContainer",
                                         "startContainer", "poststart",     "poststop"};

static int check(const json_t *v, json_type type, json_type elem, const char *where, struct ctk_error **err)
{
        if (json_typeof(v) != type)
                return ctk_error_set(err, EINVAL, "%s is not %s", where, ctk_json_kind_name(type));
        size_t i;
        const json_t *e;
        json_array_foreach(v, i, e)
        {
                if (elem != JSON_NULL && json_typeof(e) != elem)
                        return ctk_error_set(err, EINVAL, "%s[%zu] is not %s", where, i, ctk_json_kind_name(elem));
        }
        return 0;
}

int ctk_oci_check_editable(const json_t *spec, struct ctk_error **err)
{
        if (ctk_oci_check_root(spec, err) < 0)
                return -1;
        for (size_t i = 0; i < sizeof(wants) / sizeof(wants[0]); i++) {
                const json_t *v = spec;
                for (size_t k = 0; k < 3 && wants[i].path[k] != NULL && v != NULL; k++)
                        v = json_is_object(v) ? json_object_get(v, wants[i].path[k]) : NULL;
                if (v != NULL && check(v, wants[i].type, wants[i].elem, wants[i].where, err) < 0)
                        return -1;
        }
        size_t i;
        const json_t *m;
        json_array_foreach(json_object_get(spec, "mounts"), i, m)
        {
                if (!json_is_string(json_object_get(m, "destination")))
                        return ctk_error_set(err, EINVAL, "mounts[%zu].destination is not a string", i);
        }
        const json_t *hooks = json_object_get(spec, "hooks");
        for (size_t k = 0; hooks != NULL && k < sizeof(hook_kinds) / sizeof(hook_kinds[0]); k++) {
                const json_t *h = json_object_get(hooks, hook_kinds[k]);
                char where[40];
                (void)snprintf(where, sizeof(where), "hooks.%s", hook_kinds[k]);
                if (h != NULL && check(h, JSON_ARRAY, JSON_NULL, where, err) < 0)
                        return -1;
        }
        return 0;
}

void ctk_oci_user_ids(const json_t *spec, json_int_t *uid, json_int_t *gid)
{
        const json_t *user = json_object_get(json_object_get(spec, "process"), "user");
        *uid = json_integer_value(json_object_get(user, "uid"));
        *gid = json_integer_value(json_object_get(user, "gid"));
}

int ctk_oci_env_put(json_t *spec, const char *entry, bool *changed, struct ctk_error **err)
{
        json_t *process, *env;
        if (changed != NULL)
                *changed = false;
        const char *eq = strchr(entry, '=');
        if (eq == NULL || eq == entry)
                return ctk_error_set(err, EINVAL, "invalid environment entry \"%s\": must be NAME=value",
                                     CTK_CUT(entry));
        if (ctk_oci_check_root(spec, err) < 0 ||
            ctk_oci_member(spec, "process", JSON_OBJECT, true, "process", &process, err) < 0 ||
            ctk_oci_member(process, "env", JSON_ARRAY, true, "process.env", &env, err) < 0)
                return -1;
        size_t name_len = (size_t)(eq - entry) + 1, i;
        json_t *e;
        json_array_foreach(env, i, e)
        {
                const char *s = json_string_value(e);
                if (s == NULL)
                        return ctk_error_set(err, EINVAL, "process.env[%zu] is not a string", i);
                if (strncmp(s, entry, name_len) != 0)
                        continue;
                if (strcmp(s, entry) == 0)
                        return 0;
                if (json_array_set_new(env, i, json_string(entry)) < 0)
                        return ctk_error_set(err, EINVAL, "environment entry %s is not valid UTF-8", CTK_CUT(entry));
                if (changed != NULL)
                        *changed = true;
                return 0;
        }
        if (json_array_append_new(env, json_string(entry)) < 0)
                return ctk_error_set(err, EINVAL, "environment entry %s is not valid UTF-8", CTK_CUT(entry));
        if (changed != NULL)
                *changed = true;
        return 0;
}

/* A member of a hook that may be left out: absent and empty (an empty
 * array, a null timeout) are the same. */
static bool hook_member_same(const json_t *a, const json_t *b, const char *key)
{
        const json_t *x = json_object_get(a, key), *y = json_object_get(b, key);
        if (json_is_null(x) || (json_is_array(x) && json_array_size(x) == 0))
                x = NULL;
        if (json_is_null(y) || (json_is_array(y) && json_array_size(y) == 0))
                y = NULL;
        return x == y || (x != NULL && y != NULL && json_equal((json_t *)x, (json_t *)y));
}

/* Same path, args, env and timeout. */
static bool hook_same(const json_t *a, const json_t *b)
{
        const json_t *pa = json_object_get(a, "path"), *pb = json_object_get(b, "path");
        return json_is_string(pa) && json_is_string(pb) && json_equal((json_t *)pa, (json_t *)pb) &&
               hook_member_same(a, b, "args") && hook_member_same(a, b, "env") && hook_member_same(a, b, "timeout");
}

int ctk_oci_add_hook(json_t *spec, const char *kind, json_t *hook, bool *added, struct ctk_error **err)
{
        if (added != NULL)
                *added = false;
        bool known = false;
        for (size_t k = 0; k < sizeof(hook_kinds) / sizeof(hook_kinds[0]); k++)
                known = known || strcmp(kind, hook_kinds[k]) == 0;
        json_t *hooks, *list;
        char where[40];
        (void)snprintf(where, sizeof(where), "hooks.%s", known ? kind : "?");
        if (!known || ctk_oci_check_root(spec, err) < 0 ||
            ctk_oci_member(spec, "hooks", JSON_OBJECT, true, "hooks", &hooks, err) < 0 ||
            ctk_oci_member(hooks, kind, JSON_ARRAY, true, where, &list, err) < 0) {
                json_decref(hook);
                return known ? -1 : ctk_error_set(err, EINVAL, "unknown hook kind \"%s\"", CTK_CUT(kind));
        }
        size_t i;
        const json_t *h;
        json_array_foreach(list, i, h)
        {
                if (hook_same(h, hook)) {
                        json_decref(hook);
                        return 0;
                }
        }
        if (json_array_append_new(list, hook) < 0)
                return ctk_error_set(err, ENOMEM, "out of memory");
        if (added != NULL)
                *added = true;
        return 0;
}

int ctk_oci_set_intel_rdt(json_t *spec, json_t *rdt, struct ctk_error **err)
{
        json_t *linux_;
        if (ctk_oci_check_root(spec, err) < 0 ||
            ctk_oci_member(spec, "linux", JSON_OBJECT, true, "linux", &linux_, err) < 0) {
                json_decref(rdt);
                return -1;
        }
        if (json_object_set_new(linux_, "intelRdt", rdt) < 0)
                return ctk_error_set(err, ENOMEM, "out of memory");
        return 0;
}

int ctk_oci_set_net_device(json_t *spec, const char *host_if, const char *name, struct ctk_error **err)
{
        json_t *linux_, *devs;
        if (ctk_oci_check_root(spec, err) < 0 ||
            ctk_oci_member(spec, "linux", JSON_OBJECT, true, "linux", &linux_, err) < 0 ||
            ctk_oci_member(linux_, "netDevices", JSON_OBJECT, true, "linux.netDevices", &devs, err) < 0)
                return -1;
        json_t *dev = json_pack("{s:s}", "name", name);
        if (dev == NULL || json_object_set_new(devs, host_if, dev) < 0)
                return ctk_error_set(err, EINVAL, "net device %s: not valid UTF-8", CTK_CUT(host_if));
        return 0;
}
