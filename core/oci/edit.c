#include "edit.h"

#include "core/base/base.h"

#include <errno.h>
#include <stdint.h>
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

/* FNV-1a over bytes. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
        const unsigned char *c = p;
        for (size_t i = 0; i < n; i++)
                h = (h ^ c[i]) * 1099511628211ULL;
        return h;
}

#define FNV_BASIS 14695981039346656037ULL

/* Open addressing tables of indices (SIZE_MAX = empty slot), at most half
 * full: with 63 partitions there are 127 paths and 127 rules. */
static size_t *slots_new(size_t n, size_t *mask)
{
        size_t cap = 16;
        while (cap < 2 * n + 2)
                cap *= 2;
        size_t *v = malloc(cap * sizeof(*v));
        if (v != NULL)
                memset(v, 0xff, cap * sizeof(*v));
        *mask = cap - 1;
        return v;
}

/* A set of device paths (borrowed strings). */
struct path_set {
        const char **v;
        size_t n, *slot, mask;
};

/* Adds path; false when it was there already. */
static bool path_add(struct path_set *s, const char *path)
{
        size_t i = (size_t)fnv(FNV_BASIS, path, strlen(path)) & s->mask;
        for (; s->slot[i] != SIZE_MAX; i = (i + 1) & s->mask)
                if (strcmp(s->v[s->slot[i]], path) == 0)
                        return false;
        s->v[s->n] = path;
        s->slot[i] = s->n++;
        return true;
}

/* Exact allow rules (type, major, minor), live while no later deny rule
 * covers them. */
struct rule {
        char type;
        long long major, minor;
        bool live;
};

struct rule_set {
        struct rule *v;
        size_t n, *slot, mask;
};

/* Makes the rule live; false when it was live already. */
static bool rule_allow(struct rule_set *s, char type, long long major, long long minor)
{
        long long key[2] = {major, minor};
        size_t i = (size_t)fnv(fnv(FNV_BASIS, &type, 1), key, sizeof(key)) & s->mask;
        for (; s->slot[i] != SIZE_MAX; i = (i + 1) & s->mask) {
                struct rule *r = &s->v[s->slot[i]];
                if (r->type == type && r->major == major && r->minor == minor) {
                        bool was = r->live;
                        r->live = true;
                        return !was;
                }
        }
        s->v[s->n] = (struct rule){type, major, minor, true};
        s->slot[i] = s->n++;
        return true;
}

/* The device paths already in linux.devices. */
static int device_paths(const json_t *devices, struct path_set *set, struct ctk_error **err)
{
        size_t i;
        json_t *e;
        json_array_foreach(devices, i, e)
        {
                if (!json_is_object(e))
                        return ctk_error_set(err, EINVAL, "linux.devices[%zu] is not an object", i);
                const char *path = json_string_value(json_object_get(e, "path"));
                if (path != NULL)
                        path_add(set, path);
        }
        return 0;
}

/* The devices allowed rwm by the rules: exact allow rules, in order, minus
 * those a later deny rule (possibly with wildcards) covers. */
static int allowed_devices(const json_t *rules, struct rule_set *set, struct ctk_error **err)
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
                        rule_allow(set, type[0], json_integer_value(major), json_integer_value(minor));
                        continue;
                }
                for (size_t k = 0; k < set->n; k++) {
                        struct rule *r = &set->v[k];
                        const char type[2] = {r->type, '\0'};
                        if (r->live && (t == NULL || str_is(t, "a") || str_is(t, type)) &&
                            wild_or_is(major, r->major) && wild_or_is(minor, r->minor))
                                r->live = false;
                }
        }
        return 0;
}

/* What adding nodes changes: which need a device entry, which a rule. */
struct plan {
        json_t *devices, *rules; /* the spec's arrays (created when absent) */
        bool *dev, *rule;        /* per node */
        size_t ndev, nrule;
};

static void plan_clear(struct plan *p)
{
        free(p->dev);
        free(p->rule);
        p->dev = p->rule = NULL;
}

static int make_plan(json_t *spec, const struct ctk_devnode *nodes, size_t n, struct plan *p, struct ctk_error **err)
{
        *p = (struct plan){0};
        json_t *linux_, *resources;
        for (size_t i = 0; i < n; i++)
                if (nodes[i].path == NULL || (nodes[i].type != 'c' && nodes[i].type != 'b'))
                        return ctk_error_set(err, EINVAL, "invalid device node %s", nodes[i].path ? nodes[i].path : "");
        if (ctk_oci_check_root(spec, err) < 0 || member(spec, "linux", JSON_OBJECT, true, "linux", &linux_, err) < 0 ||
            member(linux_, "devices", JSON_ARRAY, true, "linux.devices", &p->devices, err) < 0 ||
            member(linux_, "resources", JSON_OBJECT, true, "linux.resources", &resources, err) < 0 ||
            member(resources, "devices", JSON_ARRAY, true, "linux.resources.devices", &p->rules, err) < 0)
                return -1;
        size_t npaths = json_array_size(p->devices) + n, nrules = json_array_size(p->rules) + n;
        struct path_set paths = {.v = malloc((npaths + 1) * sizeof(*paths.v))};
        paths.slot = slots_new(npaths, &paths.mask);
        struct rule_set allowed = {.v = malloc((nrules + 1) * sizeof(*allowed.v))};
        allowed.slot = slots_new(nrules, &allowed.mask);
        p->dev = calloc(n + 1, sizeof(*p->dev));
        p->rule = calloc(n + 1, sizeof(*p->rule));
        int r = 0;
        if (paths.v == NULL || paths.slot == NULL || allowed.v == NULL || allowed.slot == NULL || p->dev == NULL ||
            p->rule == NULL)
                r = ctk_error_set(err, ENOMEM, "out of memory");
        else if (device_paths(p->devices, &paths, err) < 0 || allowed_devices(p->rules, &allowed, err) < 0)
                r = -1;
        for (size_t i = 0; i < n && r == 0; i++) {
                p->dev[i] = path_add(&paths, nodes[i].path);
                p->rule[i] = rule_allow(&allowed, nodes[i].type, nodes[i].major, nodes[i].minor);
                p->ndev += p->dev[i];
                p->nrule += p->rule[i];
        }
        free(paths.v);
        free(paths.slot);
        free(allowed.v);
        free(allowed.slot);
        if (r < 0)
                plan_clear(p);
        return r;
}

/* Entries are built member by member (no format parsing, keys known to be
 * valid UTF-8): with 63 partitions there are 254 of them. */
/* jansson accepts only UTF-8 strings. */
static bool json_is_string_utf8(const char *s)
{
        json_t *j = json_string(s);
        json_decref(j);
        return j != NULL;
}

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

/* The groups of the nodes that need them. */
static int add_groups(json_t *spec, const struct ctk_devnode *nodes, size_t n, size_t *added, struct ctk_error **err)
{
        *added = 0;
        gid_t recent[4]; /* groups done already (idempotent; nodes share a handful) */
        size_t nrecent = 0, next = 0;
        for (size_t i = 0; i < n; i++) {
                if (!ctk_oci_devnode_needs_group(&nodes[i]))
                        continue;
                bool seen = false;
                for (size_t k = 0; k < nrecent && !seen; k++)
                        seen = recent[k] == nodes[i].gid;
                if (seen)
                        continue;
                bool gid_added = false;
                if (ctk_oci_add_additional_gid(spec, nodes[i].gid, &gid_added, err) < 0)
                        return -1;
                *added += gid_added;
                recent[next] = nodes[i].gid;
                next = (next + 1) % 4;
                nrecent += nrecent < 4;
        }
        return 0;
}

/* Adds the nodes (and with_groups, their groups) in one pass over the
 * existing entries. */
static int add_nodes(json_t *spec, const struct ctk_devnode *nodes, size_t n, bool with_groups,
                     struct ctk_oci_edit_stats *stats, struct ctk_error **err)
{
        struct ctk_oci_edit_stats st = {0};
        struct plan p;
        if (make_plan(spec, nodes, n, &p, err) < 0)
                return -1;
        int r = 0;
        for (size_t i = 0; i < n && r == 0; i++) {
                if (p.dev[i] && !json_is_string_utf8(nodes[i].path))
                        r = ctk_error_set(err, EINVAL, "device path %s is not valid UTF-8", nodes[i].path);
                else if ((p.dev[i] && append(p.devices, device_entry(&nodes[i]), err) < 0) ||
                         (p.rule[i] && append(p.rules, rule_entry(&nodes[i]), err) < 0))
                        r = -1;
        }
        plan_clear(&p);
        if (r < 0)
                return -1;
        st.devices = p.ndev;
        st.rules = p.nrule;
        if (with_groups && add_groups(spec, nodes, n, &st.gids, err) < 0)
                return -1;
        if (stats != NULL)
                *stats = st;
        return 0;
}

int ctk_oci_add_devnodes(json_t *spec, const struct ctk_devnode *nodes, size_t n, struct ctk_oci_edit_stats *stats,
                         struct ctk_error **err)
{
        return add_nodes(spec, nodes, n, true, stats, err);
}
