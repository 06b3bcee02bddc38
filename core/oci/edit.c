#include "edit.h"
#include "member.h"

#include "core/base/base.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ctk_oci_member(json_t *parent, const char *key, json_type type, bool create, const char *where, json_t **out,
                   struct ctk_error **err)
{
        json_t *m = json_object_get(parent, key);
        *out = NULL;
        if (m == NULL) {
                if (!create)
                        return 0;
                m = type == JSON_OBJECT ? json_object() : json_array();
                if (m == NULL || json_object_set_new(parent, key, m) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
        } else if (json_typeof(m) != type) {
                return ctk_error_set(err, EINVAL, "%s is not %s", where,
                                     type == JSON_OBJECT ? "an object" : "an array");
        }
        *out = m;
        return 0;
}

int ctk_oci_check_root(const json_t *spec, struct ctk_error **err)
{
        if (!json_is_object(spec))
                return ctk_error_set(err, EINVAL, "the spec is not a JSON object");
        return 0;
}

int ctk_oci_env(const json_t *spec, const char ***env, size_t *n, struct ctk_error **err)
{
        *env = NULL;
        *n = 0;
        json_t *process, *array = NULL;
        if (ctk_oci_check_root(spec, err) < 0 ||
            ctk_oci_member((json_t *)spec, "process", JSON_OBJECT, false, "process", &process, err) < 0)
                return -1;
        if (process != NULL && ctk_oci_member(process, "env", JSON_ARRAY, false, "process.env", &array, err) < 0)
                return -1;
        size_t count = array != NULL ? json_array_size(array) : 0;
        const char **v = calloc(count + 1, sizeof(*v));
        if (v == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < count; i++) {
                const char *s = json_string_value(json_array_get(array, i));
                if (s == NULL) {
                        free(v);
                        return ctk_error_set(err, EINVAL, "process.env[%zu] is not a string", i);
                }
                v[i] = s;
        }
        *env = v;
        *n = count;
        return 0;
}

bool ctk_oci_devnode_needs_group(const struct ctk_devnode *d)
{
        const mode_t world_rw = 0006;
        return (d->mode & world_rw) != world_rw && (d->mode & 0060) != 0 && d->gid != 0;
}

int ctk_oci_add_additional_gid(json_t *spec, gid_t gid, bool *changed, struct ctk_error **err)
{
        json_t *process, *user, *gids;
        if (changed != NULL)
                *changed = false;
        if (ctk_oci_check_root(spec, err) < 0 ||
            ctk_oci_member(spec, "process", JSON_OBJECT, false, "process", &process, err) < 0)
                return -1;
        if (process == NULL)
                return 0;
        if (ctk_oci_member(process, "user", JSON_OBJECT, true, "process.user", &user, err) < 0)
                return -1;
        const json_t *primary = json_object_get(user, "gid");
        if (primary != NULL && !json_is_integer(primary))
                return ctk_error_set(err, EINVAL, "process.user.gid is not an integer");
        if (primary != NULL && json_integer_value(primary) == (json_int_t)gid)
                return 0;
        if (ctk_oci_member(user, "additionalGids", JSON_ARRAY, true, "process.user.additionalGids", &gids, err) < 0)
                return -1;
        size_t i;
        json_t *e;
        json_array_foreach(gids, i, e)
        {
                if (!json_is_integer(e))
                        return ctk_error_set(err, EINVAL, "process.user.additionalGids[%zu] is not an integer", i);
                if (json_integer_value(e) == (json_int_t)gid)
                        return 0;
        }
        if (json_array_append_new(gids, json_integer(gid)) < 0)
                return ctk_error_set(err, ENOMEM, "out of memory");
        if (changed != NULL)
                *changed = true;
        return 0;
}
