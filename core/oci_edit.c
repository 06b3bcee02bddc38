#include "oci_edit.h"

#include "cleanup.h"

#include <errno.h>
#include <stdio.h>
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

/* The device paths already in linux.devices, as a set (object keys). */
static int device_paths(const json_t *devices, json_t *set, struct ctk_error **err)
{
        size_t i;
        json_t *e;
        json_array_foreach(devices, i, e)
        {
                if (!json_is_object(e))
                        return ctk_error_set(err, EINVAL, "linux.devices[%zu] is not an object", i);
                const char *path = json_string_value(json_object_get(e, "path"));
                if (path != NULL && json_object_set_new(set, path, json_true()) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
        }
        return 0;
}

/* "c 226:128": the identity of a cgroup rule (snprintf is measurably slow
 * for 254 keys on the start path). */
static void rule_key(char type, long long major, long long minor, char buf[64])
{
        char *p = buf;
        *p++ = type;
        *p++ = ' ';
        long long v[2] = {major, minor};
        for (int k = 0; k < 2; k++) {
                char digits[24], *d = digits + sizeof(digits);
                unsigned long long u = v[k] < 0 ? 0ULL - (unsigned long long)v[k] : (unsigned long long)v[k];
                do {
                        *--d = (char)('0' + u % 10);
                        u /= 10;
                } while (u != 0);
                if (v[k] < 0)
                        *--d = '-';
                size_t n = (size_t)(digits + sizeof(digits) - d);
                memcpy(p, d, n);
                p += n;
                *p++ = k == 0 ? ':' : '\0';
        }
}

/* The devices allowed rwm by the rules: exact allow rules, in order, minus
 * those a later deny rule (possibly with wildcards) covers.  A set keyed by
 * rule_key() whose values are [type, major, minor]. */
static int allowed_devices(const json_t *rules, json_t *set, struct ctk_error **err)
{
        size_t i;
        json_t *e;
        json_array_foreach(rules, i, e)
        {
                if (!json_is_object(e))
                        return ctk_error_set(err, EINVAL, "linux.resources.devices[%zu] is not an object", i);
                const json_t *t = json_object_get(e, "type");
                const json_t *major = json_object_get(e, "major"), *minor = json_object_get(e, "minor");
                if (json_is_true(json_object_get(e, "allow"))) {
                        const char *type = json_string_value(t);
                        if (type == NULL || (strcmp(type, "c") != 0 && strcmp(type, "b") != 0) ||
                            !json_is_integer(major) || !json_is_integer(minor) ||
                            !access_has_rwm(json_object_get(e, "access")))
                                continue;
                        char key[64];
                        rule_key(type[0], json_integer_value(major), json_integer_value(minor), key);
                        if (json_object_set_new(
                                set, key,
                                json_pack("[s,I,I]", type, json_integer_value(major), json_integer_value(minor))) < 0)
                                return ctk_error_set(err, ENOMEM, "out of memory");
                        continue;
                }
                const char *key;
                json_t *v, *tmp;
                json_object_foreach_safe(set, tmp, key, v)
                {
                        if ((t == NULL || str_is(t, "a") || str_is(t, json_string_value(json_array_get(v, 0)))) &&
                            wild_or_is(major, json_integer_value(json_array_get(v, 1))) &&
                            wild_or_is(minor, json_integer_value(json_array_get(v, 2))))
                                json_object_del(set, key);
                }
        }
        return 0;
}

/* Entries are built member by member (no format parsing, keys known to be
 * valid UTF-8): with 63 partitions there are 254 of them. */
static bool set_member(json_t *o, const char *key, json_t *value)
{
        return value != NULL && json_object_set_new_nocheck(o, key, value) == 0;
}

static json_t *device_entry(const struct ctk_devnode *d)
{
        const char type[2] = {d->type, '\0'};
        json_t *o = json_object();
        if (o == NULL || !set_member(o, "path", json_string(d->path)) ||
            !set_member(o, "type", json_string_nocheck(type)) || !set_member(o, "major", json_integer(d->major)) ||
            !set_member(o, "minor", json_integer(d->minor)) ||
            !set_member(o, "fileMode", json_integer(d->mode & 07777)) || !set_member(o, "uid", json_integer(d->uid)) ||
            !set_member(o, "gid", json_integer(d->gid))) {
                json_decref(o);
                return NULL;
        }
        return o;
}

static json_t *rule_entry(const struct ctk_devnode *d)
{
        const char type[2] = {d->type, '\0'};
        json_t *o = json_object();
        if (o == NULL || !set_member(o, "allow", json_true()) || !set_member(o, "type", json_string_nocheck(type)) ||
            !set_member(o, "major", json_integer(d->major)) || !set_member(o, "minor", json_integer(d->minor)) ||
            !set_member(o, "access", json_string_nocheck("rwm"))) {
                json_decref(o);
                return NULL;
        }
        return o;
}

static int append(json_t *array, json_t *entry, struct ctk_error **err)
{
        if (entry == NULL || json_array_append_new(array, entry) < 0)
                return ctk_error_set(err, ENOMEM, "out of memory");
        return 0;
}

static int add_nodes(json_t *spec, const struct ctk_devnode *nodes, size_t n, bool with_groups,
                     struct ctk_oci_edit_stats *stats, struct ctk_error **err);

int ctk_oci_add_devnode(json_t *spec, const struct ctk_devnode *d, bool *changed, struct ctk_error **err)
{
        struct ctk_oci_edit_stats st;
        if (add_nodes(spec, d, 1, false, &st, err) < 0)
                return -1;
        if (changed != NULL)
                *changed = st.devices + st.rules > 0;
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

/* Adds the nodes (and with_groups, their groups) in one pass over the
 * existing entries. */
static int add_nodes(json_t *spec, const struct ctk_devnode *nodes, size_t n, bool with_groups,
                     struct ctk_oci_edit_stats *stats, struct ctk_error **err)
{
        struct ctk_oci_edit_stats st = {0};
        json_t *linux_, *devices, *resources, *rules;
        for (size_t i = 0; i < n; i++)
                if (nodes[i].path == NULL || (nodes[i].type != 'c' && nodes[i].type != 'b'))
                        return ctk_error_set(err, EINVAL, "invalid device node %s", nodes[i].path ? nodes[i].path : "");
        if (ctk_oci_check_root(spec, err) < 0 || member(spec, "linux", JSON_OBJECT, true, "linux", &linux_, err) < 0 ||
            member(linux_, "devices", JSON_ARRAY, true, "linux.devices", &devices, err) < 0 ||
            member(linux_, "resources", JSON_OBJECT, true, "linux.resources", &resources, err) < 0 ||
            member(resources, "devices", JSON_ARRAY, true, "linux.resources.devices", &rules, err) < 0)
                return -1;
        _cleanup_json_ json_t *paths = json_object();
        _cleanup_json_ json_t *allowed = json_object();
        if (paths == NULL || allowed == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        if (device_paths(devices, paths, err) < 0 || allowed_devices(rules, allowed, err) < 0)
                return -1;
        for (size_t i = 0; i < n; i++) {
                const struct ctk_devnode *d = &nodes[i];
                char key[64];
                rule_key(d->type, d->major, d->minor, key);
                if (json_object_get(paths, d->path) == NULL) {
                        if (append(devices, device_entry(d), err) < 0 ||
                            json_object_set_new(paths, d->path, json_true()) < 0)
                                return ctk_error_set(err, ENOMEM, "out of memory");
                        st.devices++;
                }
                if (json_object_get(allowed, key) == NULL) {
                        if (append(rules, rule_entry(d), err) < 0 || json_object_set_new(allowed, key, json_true()) < 0)
                                return ctk_error_set(err, ENOMEM, "out of memory");
                        st.rules++;
                }
                bool gid_added = false;
                if (with_groups && ctk_oci_devnode_needs_group(d) &&
                    ctk_oci_add_additional_gid(spec, d->gid, &gid_added, err) < 0)
                        return -1;
                st.gids += gid_added;
        }
        if (stats != NULL)
                *stats = st;
        return 0;
}

int ctk_oci_add_devnodes(json_t *spec, const struct ctk_devnode *nodes, size_t n, struct ctk_oci_edit_stats *stats,
                         struct ctk_error **err)
{
        return add_nodes(spec, nodes, n, true, stats, err);
}
