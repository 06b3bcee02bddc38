/* linux.devices and the device cgroup rules (see edit.h): one pass over the
 * existing entries, hash sets for paths and rules, so that 63 partitions
 * (127 nodes) cost no quadratic scan. */
#include "edit.h"
#include "member.h"

#include "core/base/base.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

enum { ACC_R = 1, ACC_W = 2, ACC_M = 4, ACC_ALL = 7 };

/* The access letters of a rule as bits; absent means all. */
static unsigned access_bits(const char *a)
{
        if (a == NULL)
                return ACC_ALL;
        unsigned bits = 0;
        for (; *a != '\0'; a++)
                bits |= *a == 'r' ? ACC_R : *a == 'w' ? ACC_W : *a == 'm' ? ACC_M : 0;
        return bits;
}

/* FNV-1a over bytes. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
        const unsigned char *c = p;
        for (size_t i = 0; i < n; i++)
                h = (h ^ c[i]) * 1099511628211ULL;
        return h;
}

/* FNV-1a over the eight bytes of v, low byte first. */
static uint64_t fnv_u64(uint64_t h, uint64_t v)
{
        for (int i = 0; i < 8; i++, v >>= 8)
                h = (h ^ (v & 0xff)) * 1099511628211ULL;
        return h;
}

#define FNV_BASIS 14695981039346656037ULL

/* Open addressing tables of indices (SIZE_MAX = empty slot), at most half full. */
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

/* Device paths (borrowed) and where each is in linux.devices. */
struct path_set {
        const char **v;
        size_t *at; /* index of its entry in linux.devices */
        size_t n, *slot, mask;
};

/* The entry index of path, or SIZE_MAX after adding it with index at. */
static size_t path_find_or_add(struct path_set *s, const char *path, size_t at)
{
        size_t i = (size_t)fnv(FNV_BASIS, path, strlen(path)) & s->mask;
        for (; s->slot[i] != SIZE_MAX; i = (i + 1) & s->mask)
                if (strcmp(s->v[s->slot[i]], path) == 0)
                        return s->at[s->slot[i]];
        s->v[s->n] = path;
        s->at[s->n] = at;
        s->slot[i] = s->n++;
        return SIZE_MAX;
}

/* Exact allow rules (type, major, minor) with the access still granted. */
struct rule {
        char type;
        long long major, minor;
        unsigned bits;
};

struct rule_set {
        struct rule *v;
        size_t n, *slot, mask;
};

static struct rule *rule_get(struct rule_set *s, char type, long long major, long long minor)
{
        size_t i = (size_t)fnv_u64(fnv_u64(fnv_u64(FNV_BASIS, (unsigned char)type), (uint64_t)major), (uint64_t)minor) &
                   s->mask;
        for (; s->slot[i] != SIZE_MAX; i = (i + 1) & s->mask) {
                struct rule *r = &s->v[s->slot[i]];
                if (r->type == type && r->major == major && r->minor == minor)
                        return r;
        }
        s->v[s->n] = (struct rule){type, major, minor, 0};
        s->slot[i] = s->n++;
        return &s->v[s->n - 1];
}

/* The access each device is granted by the rules: exact allow rules, in
 * order, minus what a later deny rule (possibly with wildcards) takes away. */
static int granted(const json_t *rules, struct rule_set *set, struct ctk_error **err)
{
        size_t i;
        json_t *e;
        json_array_foreach(rules, i, e)
        {
                if (!json_is_object(e))
                        return ctk_error_set(err, EINVAL, "linux.resources.devices[%zu] is not an object", i);
                const json_t *t = json_object_get(e, "type");
                const json_t *major = json_object_get(e, "major"), *minor = json_object_get(e, "minor");
                unsigned bits = access_bits(json_string_value(json_object_get(e, "access")));
                if (json_is_true(json_object_get(e, "allow"))) {
                        const char *type = json_string_value(t);
                        if (type == NULL || (strcmp(type, "c") != 0 && strcmp(type, "b") != 0) ||
                            !json_is_integer(major) || !json_is_integer(minor))
                                continue;
                        rule_get(set, type[0], json_integer_value(major), json_integer_value(minor))->bits |= bits;
                        continue;
                }
                for (size_t k = 0; k < set->n; k++) {
                        struct rule *r = &set->v[k];
                        const char type[2] = {r->type, '\0'};
                        if ((t == NULL || str_is(t, "a") || str_is(t, type)) && wild_or_is(major, r->major) &&
                            wild_or_is(minor, r->minor))
                                r->bits &= ~bits;
                }
        }
        return 0;
}

static bool set_member(json_t *o, const char *key, json_t *value)
{
        return value != NULL && json_object_set_new_nocheck(o, key, value) == 0;
}

/* Entries are built member by member (no format parsing): with 63
 * partitions there are 254 of them. */
static json_t *device_entry(const struct ctk_oci_device *d)
{
        const char type[2] = {d->type, '\0'};
        json_t *o = json_object();
        if (o == NULL || !set_member(o, "path", json_string(d->path)) ||
            !set_member(o, "type", json_string_nocheck(type)) || !set_member(o, "major", json_integer(d->major)) ||
            !set_member(o, "minor", json_integer(d->minor)) ||
            (d->has_mode && !set_member(o, "fileMode", json_integer(d->mode))) ||
            (d->has_uid && !set_member(o, "uid", json_integer(d->uid))) ||
            (d->has_gid && !set_member(o, "gid", json_integer(d->gid)))) {
                json_decref(o);
                return NULL;
        }
        return o;
}

static json_t *rule_entry(const struct ctk_oci_device *d)
{
        const char type[2] = {d->type, '\0'};
        json_t *o = json_object();
        if (o == NULL || !set_member(o, "allow", json_true()) || !set_member(o, "type", json_string_nocheck(type)) ||
            !set_member(o, "major", json_integer(d->major)) || !set_member(o, "minor", json_integer(d->minor)) ||
            !set_member(o, "access", json_string(d->access))) {
                json_decref(o);
                return NULL;
        }
        return o;
}

struct tables {
        json_t *devices, *rules; /* the spec's arrays (created when absent) */
        struct path_set paths;
        struct rule_set allowed;
};

static void tables_clear(struct tables *t)
{
        free(t->paths.v);
        free(t->paths.at);
        free(t->paths.slot);
        free(t->allowed.v);
        free(t->allowed.slot);
}

static int tables_make(json_t *spec, size_t n, struct tables *t, struct ctk_error **err)
{
        *t = (struct tables){0};
        json_t *linux_, *resources;
        if (ctk_oci_check_root(spec, err) < 0 ||
            ctk_oci_member(spec, "linux", JSON_OBJECT, true, "linux", &linux_, err) < 0 ||
            ctk_oci_member(linux_, "devices", JSON_ARRAY, true, "linux.devices", &t->devices, err) < 0 ||
            ctk_oci_member(linux_, "resources", JSON_OBJECT, true, "linux.resources", &resources, err) < 0 ||
            ctk_oci_member(resources, "devices", JSON_ARRAY, true, "linux.resources.devices", &t->rules, err) < 0)
                return -1;
        size_t npaths = json_array_size(t->devices) + n, nrules = json_array_size(t->rules) + n;
        t->paths =
            (struct path_set){.v = malloc((npaths + 1) * sizeof(char *)), .at = malloc((npaths + 1) * sizeof(size_t))};
        t->paths.slot = slots_new(npaths, &t->paths.mask);
        t->allowed = (struct rule_set){.v = malloc((nrules + 1) * sizeof(struct rule))};
        t->allowed.slot = slots_new(nrules, &t->allowed.mask);
        if (t->paths.v == NULL || t->paths.at == NULL || t->paths.slot == NULL || t->allowed.v == NULL ||
            t->allowed.slot == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        size_t i;
        json_t *e;
        json_array_foreach(t->devices, i, e)
        {
                if (!json_is_object(e))
                        return ctk_error_set(err, EINVAL, "linux.devices[%zu] is not an object", i);
                const char *path = json_string_value(json_object_get(e, "path"));
                if (path != NULL)
                        path_find_or_add(&t->paths, path, i);
        }
        return granted(t->rules, &t->allowed, err);
}

/* Puts one device: a new entry, or the replacement of the entry at its path. */
static int put_one(struct tables *t, const struct ctk_oci_device *d, struct ctk_oci_edit_stats *st,
                   struct ctk_error **err)
{
        json_t *entry = device_entry(d);
        if (entry == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        size_t at = path_find_or_add(&t->paths, d->path, json_array_size(t->devices));
        if (at == SIZE_MAX) {
                if (json_array_append_new(t->devices, entry) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
                st->devices++;
        } else if (json_equal(json_array_get(t->devices, at), entry)) {
                json_decref(entry);
        } else {
                if (json_array_set_new(t->devices, at, entry) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
                st->devices++;
        }
        if (d->access == NULL || (d->type != 'c' && d->type != 'b'))
                return 0;
        unsigned want = access_bits(d->access);
        struct rule *r = rule_get(&t->allowed, d->type, d->major, d->minor);
        if ((r->bits & want) == want)
                return 0;
        if (json_array_append_new(t->rules, rule_entry(d)) < 0)
                return ctk_error_set(err, ENOMEM, "out of memory");
        r->bits |= want;
        st->rules++;
        return 0;
}

/* jansson accepts only UTF-8 strings. */
static bool utf8(const char *s)
{
        json_t *j = json_string(s);
        json_decref(j);
        return j != NULL;
}

int ctk_oci_put_devices(json_t *spec, const struct ctk_oci_device *d, size_t n, struct ctk_oci_edit_stats *stats,
                        struct ctk_error **err)
{
        struct ctk_oci_edit_stats st = {0};
        for (size_t i = 0; i < n; i++) {
                if (d[i].path == NULL || d[i].type == '\0')
                        return ctk_error_set(err, EINVAL, "invalid device node %s",
                                             CTK_CUT(d[i].path ? d[i].path : ""));
                if (!utf8(d[i].path))
                        return ctk_error_set(err, EINVAL, "device path %s is not valid UTF-8", CTK_CUT(d[i].path));
        }
        struct tables t;
        int r = tables_make(spec, n, &t, err);
        for (size_t i = 0; i < n && r == 0; i++)
                r = put_one(&t, &d[i], &st, err);
        tables_clear(&t);
        if (r == 0 && stats != NULL)
                *stats = st;
        return r;
}
