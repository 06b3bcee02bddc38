/* node-generic-resources of Docker's daemon.json (see docker_resources.h). */
#include "docker_resources.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/base.h"
#include "core/json/json.h"

#define KEY "node-generic-resources"

struct span {
        const char *s;
        size_t len;
};

static struct span trimmed(const char *s, size_t len)
{
        s = ctk_str_trim(s, &len);
        return (struct span){s, len};
}

/* Whether entry e is "KIND=VALUE" of kind; *value gets VALUE. */
static bool of_kind(const json_t *e, const char *kind, struct span *value)
{
        const char *s = json_string_value(e);
        const char *eq = s != NULL ? strchr(s, '=') : NULL;
        if (eq == NULL)
                return false;
        struct span k = trimmed(s, (size_t)(eq - s));
        if (k.len != strlen(kind) || memcmp(k.s, kind, k.len) != 0)
                return false;
        *value = trimmed(eq + 1, strlen(eq + 1));
        return true;
}

/* The error "NAME:LINE:COLUMN: \"KEY\" <what>, not <type of v>; ..." at the
 * value of path (depth 1: the key, 2: an entry). */
static int fail_at(const char *text, size_t len, const char *name, const struct ctk_json_step *path, size_t depth,
                   const char *what, const json_t *v, struct ctk_error **err)
{
        struct ctk_json_pos pos;
        if (ctk_json_locate(text, len, path, depth, &pos) < 0)
                pos = (struct ctk_json_pos){1, 1};
        return ctk_error_set(err, EINVAL, "%s:%d:%d: %s, not %s; fix or remove it and try again", CTK_CUT(name),
                             pos.line, pos.column, CTK_CUT(what), ctk_json_type_name(v));
}

int ctk_docker_resources_check(const json_t *doc, const char *text, size_t len, const char *name,
                               struct ctk_error **err)
{
        const json_t *a = json_object_get(doc, KEY), *e;
        size_t i;
        struct ctk_json_step path[2] = {{.key = KEY}, {.key = NULL}};
        if (a != NULL && !json_is_array(a))
                return fail_at(text, len, name, path, 1, "\"" KEY "\" must be an array of \"KIND=VALUE\" strings", a,
                               err);
        json_array_foreach(a, i, e)
        {
                path[1].index = i;
                if (!json_is_string(e))
                        return fail_at(text, len, name, path, 2,
                                       "the entries of \"" KEY "\" must be \"KIND=VALUE\" strings", e, err);
        }
        return 0;
}

int ctk_docker_resources_get(const json_t *doc, const char *kind, struct ctk_strv *out, struct ctk_error **err)
{
        const json_t *e;
        size_t i;
        json_array_foreach(json_object_get(doc, KEY), i, e)
        {
                struct span v;
                if (!of_kind(e, kind, &v))
                        continue;
                char *copy = strndup(v.s, v.len);
                if (copy == NULL || ctk_strv_push_take(out, copy) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
        }
        return 0;
}

/* The new array: the entries of other kinds, ours at the place of the first
 * old one (at the end when there was none). */
static json_t *rebuilt(const json_t *old, const char *kind, char *const *values, size_t n)
{
        _cleanup_json_ json_t *a = json_array();
        if (a == NULL)
                return NULL;
        size_t at = SIZE_MAX, i;
        const json_t *e;
        json_array_foreach(old, i, e)
        {
                struct span v;
                if (!of_kind(e, kind, &v)) {
                        if (json_array_append(a, (json_t *)e) < 0)
                                return NULL;
                } else if (at == SIZE_MAX) {
                        at = json_array_size(a);
                }
        }
        if (at == SIZE_MAX)
                at = json_array_size(a);
        for (size_t k = 0; k < n; k++) {
                _cleanup_free_ char *entry = NULL;
                if (asprintf(&entry, "%s=%s", kind, values[k]) < 0) {
                        entry = NULL;
                        return NULL;
                }
                if (json_array_insert_new(a, at + k, json_string(entry)) < 0)
                        return NULL;
        }
        return ctk_steal(&a);
}

int ctk_docker_resources_set(json_t *doc, const char *kind, char *const *values, size_t n, bool *changed,
                             struct ctk_error **err)
{
        *changed = false;
        const json_t *old = json_object_get(doc, KEY);
        if (old != NULL && !json_is_array(old))
                return ctk_error_set(err, EINVAL, "\"" KEY "\" must be an array");
        json_t *a = rebuilt(old, kind, values, n);
        if (a == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        if (old != NULL && json_equal(old, a)) {
                json_decref(a);
                return 0;
        }
        if (old == NULL && json_array_size(a) == 0) {
                json_decref(a);
                return 0;
        }
        *changed = true;
        if (json_array_size(a) == 0) {
                json_decref(a);
                json_object_del(doc, KEY);
                return 0;
        }
        if (json_object_set_new(doc, KEY, a) < 0)
                return ctk_error_set(err, ENOMEM, "out of memory");
        return 0;
}
