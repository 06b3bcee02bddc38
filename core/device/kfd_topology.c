#include "kfd_topology.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/base.h"

enum prop_key { KEY_RENDER_MINOR, KEY_LOCATION_ID, KEY_DOMAIN, KEY_UNIQUE_ID, NKEYS };

static const struct {
        const char *name;
        uint64_t max;
} keys[NKEYS] = {
    [KEY_RENDER_MINOR] = {"drm_render_minor", INT32_MAX},
    [KEY_LOCATION_ID] = {"location_id", UINT32_MAX},
    [KEY_DOMAIN] = {"domain", UINT32_MAX},
    [KEY_UNIQUE_ID] = {"unique_id", UINT64_MAX},
};

static bool is_blank(char c)
{
        return c == ' ' || c == '\t';
}

/* Parses one value; *present stays false for a negative number. */
static int parse_value(const char *path, enum prop_key k, const char *v, size_t vlen, uint64_t *out, bool *present,
                       struct ctk_error **err)
{
        if (vlen == 0)
                return ctk_error_set(err, EINVAL, "%s: %s has no value", CTK_CUT(path), keys[k].name);
        if (v[0] == '-' && vlen > 1 && ctk_parse_u64_dec(v + 1, vlen - 1, UINT64_MAX, out) != -EINVAL) {
                *present = false; /* negative: treated as absent */
                return 0;
        }
        int r = ctk_parse_u64_dec(v, vlen, keys[k].max, out);
        int shown = vlen > 40 ? 40 : (int)vlen;
        if (r == -ERANGE)
                return ctk_error_set(err, ERANGE, "%s: %s value '%.*s' is out of range (at most %llu)", CTK_CUT(path),
                                     keys[k].name, shown, v, (unsigned long long)keys[k].max);
        if (r < 0)
                return ctk_error_set(err, EINVAL, "%s: %s value '%.*s' is not a decimal number", CTK_CUT(path),
                                     keys[k].name, shown, v);
        *present = true;
        return 0;
}

/* The key a properties line names, -1 for the ~30 keys not used (a switch
 * on the length: 67 files of ~30 lines are parsed on the start path). */
static int key_of(const char *k, size_t len)
{
        int i;
        switch (len) {
        case 16:
                i = KEY_RENDER_MINOR;
                break;
        case 11:
                i = KEY_LOCATION_ID;
                break;
        case 6:
                i = KEY_DOMAIN;
                break;
        case 9:
                i = KEY_UNIQUE_ID;
                break;
        default:
                return -1;
        }
        return memcmp(k, keys[i].name, len) == 0 ? i : -1;
}

static void set_prop(struct ctk_kfd_props *p, int key, uint64_t val)
{
        switch (key) {
        case KEY_RENDER_MINOR:
                p->has_render_minor = true;
                p->render_minor = (uint32_t)val;
                break;
        case KEY_LOCATION_ID:
                p->has_location_id = true;
                p->location_id = (uint32_t)val;
                break;
        case KEY_DOMAIN:
                p->has_domain = true;
                p->domain = (uint32_t)val;
                break;
        default:
                p->has_unique_id = true;
                p->unique_id = val;
                break;
        }
}

int ctk_kfd_props_parse(const char *text, size_t len, const char *path, struct ctk_kfd_props *out,
                        struct ctk_error **err)
{
        struct ctk_kfd_props p = {0};
        bool seen[NKEYS] = {false};
        const char *end = text + len;
        for (const char *line = text; line < end;) {
                const char *nl = memchr(line, '\n', (size_t)(end - line));
                const char *eol = nl != NULL ? nl : end;
                const char *next = nl != NULL ? nl + 1 : end;
                if (eol > line && eol[-1] == '\r')
                        eol--;
                const char *k = line;
                while (k < eol && is_blank(*k))
                        k++;
                if (k == eol || (*k != 'd' && *k != 'l' && *k != 'u')) { /* not a key we use */
                        line = next;
                        continue;
                }
                const char *ke = k;
                while (ke < eol && !is_blank(*ke))
                        ke++;
                int i = key_of(k, (size_t)(ke - k));
                if (i >= 0 && !seen[i]) {
                        seen[i] = true;
                        const char *v = ke;
                        while (v < eol && is_blank(*v))
                                v++;
                        const char *ve = eol;
                        while (ve > v && is_blank(ve[-1]))
                                ve--;
                        uint64_t val = 0;
                        bool present = false;
                        if (parse_value(path, i, v, (size_t)(ve - v), &val, &present, err) < 0)
                                return -1;
                        if (present)
                                set_prop(&p, i, val);
                }
                line = next;
        }
        *out = p;
        return 0;
}

struct entry {
        struct ctk_kfd_node node;
        size_t seq;
};

static int by_minor_then_seq(const void *a, const void *b)
{
        const struct entry *x = a, *y = b;
        if (x->node.render_minor != y->node.render_minor)
                return x->node.render_minor < y->node.render_minor ? -1 : 1;
        return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int node_id(const char *name)
{
        uint64_t v;
        if (ctk_parse_u64_dec(name, strlen(name), INT32_MAX, &v) < 0)
                return -1;
        return (int)v;
}

/* Folds entries sharing a render minor (sorted, later seq last) into one. */
static size_t fold_duplicates(struct entry *e, size_t n)
{
        size_t out = 0;
        for (size_t i = 0; i < n; i++) {
                if (out > 0 && e[out - 1].node.render_minor == e[i].node.render_minor) {
                        struct ctk_kfd_node *dst = &e[out - 1].node, *src = &e[i].node;
                        if (src->has_location) {
                                dst->has_location = true;
                                dst->location_id = src->location_id;
                                dst->domain = src->domain;
                                dst->group = src->group;
                                dst->id = src->id;
                        }
                        if (src->has_unique_id) {
                                dst->has_unique_id = true;
                                dst->unique_id = src->unique_id;
                        }
                        continue;
                }
                e[out++] = e[i];
        }
        return out;
}

int ctk_kfd_topology_read(struct ctk_backend *b, struct ctk_kfd_topology *out, struct ctk_error **err)
{
        *out = (struct ctk_kfd_topology){0};
        _cleanup_strv_ struct ctk_strv names = {0};
        _cleanup_error_ struct ctk_error *lerr = NULL;
        if (ctk_list_dir(b, CTK_KFD_NODES_DIR, &names, &lerr) < 0) {
                if (lerr->code == ENOENT)
                        return 0; /* KFD not loaded: no GPU can be matched */
                *err = ctk_steal(&lerr);
                return -1;
        }
        _cleanup_free_ struct entry *e = calloc(names.n + 1, sizeof(*e));
        if (e == NULL)
                return ctk_error_set(err, ENOMEM, "reading the KFD topology: out of memory");
        size_t n = 0;
        for (size_t i = 0; i < names.n; i++) {
                _cleanup_free_ char *path = ctk_str_concat(CTK_KFD_NODES_DIR "/", names.v[i], "/properties");
                _cleanup_free_ char *text = NULL;
                size_t len = 0;
                if (path == NULL)
                        return ctk_error_set(err, ENOMEM, "reading the KFD topology: out of memory");
                if (ctk_read_file(b, path, &text, &len, &lerr) < 0) {
                        if (lerr->code == ENOENT || lerr->code == ENOTDIR) {
                                ctk_error_free(ctk_steal(&lerr));
                                continue;
                        }
                        *err = ctk_steal(&lerr);
                        return -1;
                }
                struct ctk_kfd_props p;
                if (ctk_kfd_props_parse(text, len, path, &p, err) < 0)
                        return -1;
                if (!p.has_render_minor || p.render_minor == 0)
                        continue; /* CPU node */
                struct ctk_kfd_node *nd = &e[n].node;
                nd->id = node_id(names.v[i]);
                nd->render_minor = p.render_minor;
                nd->has_location = p.has_location_id && p.has_domain;
                if (nd->has_location) {
                        nd->location_id = p.location_id;
                        nd->domain = p.domain;
                        nd->group = ((uint64_t)p.domain << 16) | (ctk_kfd_location_bus(p.location_id) << 8) |
                                    ctk_kfd_location_dev(p.location_id);
                }
                nd->has_unique_id = p.has_unique_id;
                nd->unique_id = p.unique_id;
                if (!nd->has_location && !nd->has_unique_id)
                        continue;
                e[n].seq = n;
                n++;
        }
        if (n == 0)
                return 0;
        if (n > 1) /* (qsort wants an array, even of none) */
                qsort(e, n, sizeof(*e), by_minor_then_seq);
        n = fold_duplicates(e, n);
        out->v = calloc(n, sizeof(*out->v));
        if (out->v == NULL)
                return ctk_error_set(err, ENOMEM, "reading the KFD topology: out of memory");
        for (size_t i = 0; i < n; i++)
                out->v[i] = e[i].node;
        out->n = n;
        return 0;
}

const struct ctk_kfd_node *ctk_kfd_topology_find(const struct ctk_kfd_topology *t, uint32_t render_minor)
{
        size_t lo = 0, hi = t->n;
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (t->v[mid].render_minor == render_minor)
                        return &t->v[mid];
                if (t->v[mid].render_minor < render_minor)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return NULL;
}

void ctk_kfd_topology_clear(struct ctk_kfd_topology *t)
{
        free(t->v);
        *t = (struct ctk_kfd_topology){0};
}
