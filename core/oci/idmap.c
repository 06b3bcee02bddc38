/* Id mappings of user namespaces and the rule for a node's group (see
 * idmap.h). */
#include "idmap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RANGES 340 /* the kernel's limit of lines in a map */

void ctk_oci_idmap_clear(struct ctk_oci_idmap *m)
{
        free(m->v);
        *m = (struct ctk_oci_idmap){0};
}

static bool range_ok(const struct ctk_oci_id_range *r)
{
        const uint64_t end = (uint64_t)1 << 32;
        return r->count > 0 && (uint64_t)r->inside + r->count <= end && (uint64_t)r->outside + r->count <= end;
}

static int push(struct ctk_oci_idmap *m, const struct ctk_oci_id_range *r, struct ctk_error **err)
{
        if (m->n >= MAX_RANGES)
                return ctk_error_set(err, E2BIG, "more than %d ranges", MAX_RANGES);
        struct ctk_oci_id_range *v = realloc(m->v, (m->n + 1) * sizeof(*v));
        if (v == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        m->v = v;
        m->v[m->n++] = *r;
        return 0;
}

/* One number of a map line: blanks, then digits up to a blank or the end. */
static int field(const char **p, const char *end, uint32_t *out)
{
        while (*p < end && (**p == ' ' || **p == '\t'))
                (*p)++;
        const char *s = *p;
        while (*p < end && **p != ' ' && **p != '\t')
                (*p)++;
        uint64_t v;
        if (ctk_parse_u64_dec(s, (size_t)(*p - s), UINT32_MAX, &v) < 0)
                return -1;
        *out = (uint32_t)v;
        return 0;
}

static int parse_line(const char *s, const char *end, struct ctk_oci_id_range *r)
{
        const char *p = s;
        if (field(&p, end, &r->inside) < 0 || field(&p, end, &r->outside) < 0 || field(&p, end, &r->count) < 0)
                return -1;
        while (p < end && (*p == ' ' || *p == '\t'))
                p++;
        return p == end && range_ok(r) ? 0 : -1;
}

int ctk_oci_idmap_parse(const char *text, size_t len, struct ctk_oci_idmap *out, struct ctk_error **err)
{
        *out = (struct ctk_oci_idmap){0};
        const char *p = text, *end = text + len;
        for (size_t line = 1; p < end; line++) {
                const char *nl = memchr(p, '\n', (size_t)(end - p));
                const char *eol = nl != NULL ? nl : end;
                struct ctk_oci_id_range r;
                if (parse_line(p, eol, &r) < 0) {
                        ctk_oci_idmap_clear(out);
                        return ctk_error_set(err, EINVAL,
                                             "line %zu is not \"ID-INSIDE ID-OUTSIDE COUNT\" with a count > 0 within "
                                             "32 bits",
                                             line);
                }
                if (push(out, &r, err) < 0) {
                        ctk_oci_idmap_clear(out);
                        return -1;
                }
                p = nl != NULL ? nl + 1 : end;
        }
        return 0;
}

bool ctk_oci_has_user_namespace(const json_t *spec)
{
        size_t i;
        const json_t *ns;
        json_array_foreach(json_object_get(json_object_get(spec, "linux"), "namespaces"), i, ns)
        {
                const char *t = json_string_value(json_object_get(ns, "type"));
                if (t != NULL && strcmp(t, "user") == 0)
                        return true;
        }
        return false;
}

static int member_u32(const json_t *o, const char *key, size_t i, uint32_t *out, struct ctk_error **err)
{
        const json_t *v = json_object_get(o, key);
        if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > (json_int_t)UINT32_MAX)
                return ctk_error_set(err, EINVAL, "linux.gidMappings[%zu].%s is not an unsigned 32-bit integer", i,
                                     CTK_CUT(key));
        *out = (uint32_t)json_integer_value(v);
        return 0;
}

int ctk_oci_spec_gid_mappings(const json_t *spec, struct ctk_oci_idmap *out, struct ctk_error **err)
{
        *out = (struct ctk_oci_idmap){0};
        const json_t *maps = json_object_get(json_object_get(spec, "linux"), "gidMappings");
        if (maps == NULL || json_is_null(maps))
                return 0;
        if (!json_is_array(maps))
                return ctk_error_set(err, EINVAL, "linux.gidMappings is not an array");
        size_t i;
        const json_t *m;
        json_array_foreach(maps, i, m)
        {
                struct ctk_oci_id_range r;
                if (!json_is_object(m)) {
                        ctk_oci_idmap_clear(out);
                        return ctk_error_set(err, EINVAL, "linux.gidMappings[%zu] is not an object", i);
                }
                if (member_u32(m, "containerID", i, &r.inside, err) < 0 ||
                    member_u32(m, "hostID", i, &r.outside, err) < 0 || member_u32(m, "size", i, &r.count, err) < 0) {
                        ctk_oci_idmap_clear(out);
                        return -1;
                }
                if (!range_ok(&r)) {
                        ctk_oci_idmap_clear(out);
                        return ctk_error_set(err, EINVAL,
                                             "linux.gidMappings[%zu]: size must be > 0 and the range "
                                             "within 32 bits",
                                             i);
                }
                if (push(out, &r, err) < 0) {
                        ctk_oci_idmap_clear(out);
                        return ctk_error_prefix(err, "linux.gidMappings");
                }
        }
        return 0;
}

/* The range of m whose inside (by_inside) or outside ids hold id. */
static const struct ctk_oci_id_range *find(const struct ctk_oci_idmap *m, uint32_t id, bool by_inside)
{
        for (size_t i = 0; i < m->n; i++) {
                uint32_t first = by_inside ? m->v[i].inside : m->v[i].outside;
                if (id >= first && (uint64_t)id - first < m->v[i].count)
                        return &m->v[i];
        }
        return NULL;
}

enum ctk_oci_gid_fate ctk_oci_gid_in_container(const struct ctk_oci_gid_view *v, uint32_t gid, uint32_t *out)
{
        if (gid == v->overflow)
                return CTK_OCI_GID_OVERFLOW;
        if (v->self != NULL && find(v->self, gid, true) == NULL)
                return CTK_OCI_GID_NOT_MAPPED;
        if (!v->userns) {
                *out = gid;
                return CTK_OCI_GID_MAPPED;
        }
        const struct ctk_oci_id_range *r = v->container != NULL ? find(v->container, gid, false) : NULL;
        if (r == NULL)
                return CTK_OCI_GID_NOT_IN_CONTAINER;
        *out = r->inside + (gid - r->outside);
        return CTK_OCI_GID_MAPPED;
}
