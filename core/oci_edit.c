#include "oci_edit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* parent[key] as an object or array (type), created empty when absent and
 * create is set; *out is NULL when absent and not created.  `where` names
 * the member for messages ("linux.resources"). */
static int member(json_t *parent, const char *key, json_type type, bool create, const char *where, json_t **out,
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
            member((json_t *)spec, "process", JSON_OBJECT, false, "process", &process, err) < 0)
                return -1;
        if (process != NULL && member(process, "env", JSON_ARRAY, false, "process.env", &array, err) < 0)
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

static bool int_is(const json_t *j, long long v)
{
        return json_is_integer(j) && json_integer_value(j) == v;
}

static bool str_is(const json_t *j, const char *s)
{
        return json_is_string(j) && strcmp(json_string_value(j), s) == 0;
}

/* A cgroup field that is absent or null matches every value. */
static bool wild_or_is(const json_t *j, long long v)
{
        return j == NULL || json_is_null(j) || int_is(j, v);
}

static bool access_has_rwm(const json_t *j)
{
        const char *a = json_string_value(j);
        return a != NULL && strchr(a, 'r') != NULL && strchr(a, 'w') != NULL && strchr(a, 'm') != NULL;
}

static int devices_has_path(const json_t *devices, const char *path, bool *found, struct ctk_error **err)
{
        size_t i;
        json_t *e;
        *found = false;
        json_array_foreach(devices, i, e)
        {
                if (!json_is_object(e))
                        return ctk_error_set(err, EINVAL, "linux.devices[%zu] is not an object", i);
                if (str_is(json_object_get(e, "path"), path))
                        *found = true;
        }
        return 0;
}

/* Is the device allowed rwm by an exact allow rule that no later deny rule
 * affecting it overrides? */
static int rules_allow(const json_t *rules, const struct ctk_devnode *d, bool *allowed, struct ctk_error **err)
{
        const char type[2] = {d->type, '\0'};
        size_t i;
        json_t *e;
        *allowed = false;
        json_array_foreach(rules, i, e)
        {
                if (!json_is_object(e))
                        return ctk_error_set(err, EINVAL, "linux.resources.devices[%zu] is not an object", i);
                const json_t *allow = json_object_get(e, "allow");
                const json_t *t = json_object_get(e, "type");
                const json_t *major = json_object_get(e, "major"), *minor = json_object_get(e, "minor");
                if (json_is_true(allow)) {
                        if (str_is(t, type) && int_is(major, d->major) && int_is(minor, d->minor) &&
                            access_has_rwm(json_object_get(e, "access")))
                                *allowed = true;
                } else if ((t == NULL || str_is(t, "a") || str_is(t, type)) && wild_or_is(major, d->major) &&
                           wild_or_is(minor, d->minor)) {
                        *allowed = false;
                }
        }
        return 0;
}

static json_t *device_entry(const struct ctk_devnode *d)
{
        const char type[2] = {d->type, '\0'};
        return json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I}", "path", d->path, "type", type, "major",
                         (json_int_t)d->major, "minor", (json_int_t)d->minor, "fileMode", (json_int_t)(d->mode & 07777),
                         "uid", (json_int_t)d->uid, "gid", (json_int_t)d->gid);
}

static json_t *rule_entry(const struct ctk_devnode *d)
{
        const char type[2] = {d->type, '\0'};
        return json_pack("{s:b, s:s, s:I, s:I, s:s}", "allow", 1, "type", type, "major", (json_int_t)d->major, "minor",
                         (json_int_t)d->minor, "access", "rwm");
}

static int append(json_t *array, json_t *entry, struct ctk_error **err)
{
        if (entry == NULL || json_array_append_new(array, entry) < 0)
                return ctk_error_set(err, ENOMEM, "out of memory");
        return 0;
}

static int add_devnode(json_t *spec, const struct ctk_devnode *d, bool *dev_added, bool *rule_added,
                       struct ctk_error **err)
{
        json_t *linux_, *devices, *resources, *rules;
        bool found, allowed;
        *dev_added = *rule_added = false;
        if (d->path == NULL || (d->type != 'c' && d->type != 'b'))
                return ctk_error_set(err, EINVAL, "invalid device node");
        if (ctk_oci_check_root(spec, err) < 0 || member(spec, "linux", JSON_OBJECT, true, "linux", &linux_, err) < 0 ||
            member(linux_, "devices", JSON_ARRAY, true, "linux.devices", &devices, err) < 0 ||
            member(linux_, "resources", JSON_OBJECT, true, "linux.resources", &resources, err) < 0 ||
            member(resources, "devices", JSON_ARRAY, true, "linux.resources.devices", &rules, err) < 0 ||
            devices_has_path(devices, d->path, &found, err) < 0 || rules_allow(rules, d, &allowed, err) < 0)
                return -1;
        if (!found) {
                if (append(devices, device_entry(d), err) < 0)
                        return -1;
                *dev_added = true;
        }
        if (!allowed) {
                if (append(rules, rule_entry(d), err) < 0)
                        return -1;
                *rule_added = true;
        }
        return 0;
}

int ctk_oci_add_devnode(json_t *spec, const struct ctk_devnode *d, bool *changed, struct ctk_error **err)
{
        bool dev_added, rule_added;
        if (add_devnode(spec, d, &dev_added, &rule_added, err) < 0)
                return -1;
        if (changed != NULL)
                *changed = dev_added || rule_added;
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
            member(spec, "process", JSON_OBJECT, false, "process", &process, err) < 0)
                return -1;
        if (process == NULL)
                return 0;
        if (member(process, "user", JSON_OBJECT, true, "process.user", &user, err) < 0)
                return -1;
        const json_t *primary = json_object_get(user, "gid");
        if (primary != NULL && !json_is_integer(primary))
                return ctk_error_set(err, EINVAL, "process.user.gid is not an integer");
        if (int_is(primary, gid))
                return 0;
        if (member(user, "additionalGids", JSON_ARRAY, true, "process.user.additionalGids", &gids, err) < 0)
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
        if (append(gids, json_integer(gid), err) < 0)
                return -1;
        if (changed != NULL)
                *changed = true;
        return 0;
}

int ctk_oci_add_devnodes(json_t *spec, const struct ctk_devnode *nodes, size_t n, struct ctk_oci_edit_stats *stats,
                         struct ctk_error **err)
{
        struct ctk_oci_edit_stats st = {0};
        for (size_t i = 0; i < n; i++) {
                bool dev_added, rule_added, gid_added = false;
                if (add_devnode(spec, &nodes[i], &dev_added, &rule_added, err) < 0)
                        return -1;
                if (ctk_oci_devnode_needs_group(&nodes[i]) &&
                    ctk_oci_add_additional_gid(spec, nodes[i].gid, &gid_added, err) < 0)
                        return -1;
                st.devices += dev_added;
                st.rules += rule_added;
                st.gids += gid_added;
        }
        if (stats != NULL)
                *stats = st;
        return 0;
}
