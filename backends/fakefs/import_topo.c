/* The KFD capture importer's topology beside node properties: links as
 * role-named templates and node lists, memory banks and caches as named
 * sets (shared by the nodes whose sets are equal). */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/fakefs/import_group.h"
#include "backends/fakefs/kfd_props.h"
#include "core/base/base.h"

static const struct ctk_kfd_capture_node *node_by_id(const struct ctk_fakefs_importer *im, int id)
{
        for (size_t i = 0; i < im->cap.n; i++)
                if (im->cap.nodes[i].id == id)
                        return &im->cap.nodes[i];
        return NULL;
}

static bool props_equal(const struct ctk_fakefs_props *a, const struct ctk_fakefs_props *b)
{
        if (a->n != b->n)
                return false;
        for (size_t i = 0; i < a->n; i++)
                if (strcmp(a->v[i].key, b->v[i].key) != 0 || strcmp(a->v[i].value, b->v[i].value) != 0)
                        return false;
        return true;
}

static const char *role(const struct ctk_fakefs_importer *im, const struct ctk_kfd_capture_node *a, int to, bool io)
{
        const struct ctk_kfd_capture_node *b = node_by_id(im, to);
        bool ga = ctk_fakefs_import_is_gpu(a), gb = b != NULL && ctk_fakefs_import_is_gpu(b);
        if (!ga && !gb)
                return io ? "cpu-cpu" : "p2p-cpu-cpu";
        if (!ga)
                return io ? "cpu-gpu" : "p2p-cpu-gpu";
        if (!gb)
                return io ? "gpu-cpu" : "p2p-gpu-cpu";
        bool same = im->group_of[a->id] == im->group_of[to];
        if (io)
                return same ? "xgmi-partition" : "xgmi";
        return same ? "p2p-gpu-partition" : "p2p-gpu-gpu";
}

/* The name of the template of link l of node a (made on first sight). */
static const char *link_name(struct ctk_fakefs_importer *im, const struct ctk_kfd_capture_node *a,
                             const struct ctk_kfd_capture_link *l, bool io)
{
        const char *r = role(im, a, l->to, io);
        int variant = 1;
        for (size_t i = 0; i < im->nlinks; i++) {
                struct ctk_fakefs_import_named *t = &im->links[i];
                size_t rl = strlen(r);
                if (strncmp(t->name, r, rl) != 0 || (t->name[rl] != '\0' && t->name[rl] != '-'))
                        continue;
                if (t->name[rl] == '-' && (t->name[rl + 1] < '2' || t->name[rl + 1] > '9'))
                        continue;
                if (props_equal(t->props, &l->props))
                        return t->name;
                variant++;
        }
        struct ctk_fakefs_import_named *t = &im->links[im->nlinks++];
        if (variant == 1)
                (void)snprintf(t->name, sizeof(t->name), "%s", r);
        else
                (void)snprintf(t->name, sizeof(t->name), "%s-%d", r, variant);
        t->props = &l->props;
        return t->name;
}

static uint64_t base_of(const struct ctk_kfd_capture_node *n)
{
        return ctk_fakefs_import_num(n, ctk_fakefs_import_is_gpu(n) ? "simd_id_base" : "cpu_core_id_base");
}

static bool item_equal(const struct ctk_fakefs_props *a, uint64_t abase, const struct ctk_fakefs_props *b,
                       uint64_t bbase)
{
        if (a->n != b->n)
                return false;
        for (size_t i = 0; i < a->n; i++) {
                if (strcmp(a->v[i].key, b->v[i].key) != 0)
                        return false;
                uint64_t x, y;
                if (strcmp(a->v[i].key, "processor_id_low") == 0 &&
                    ctk_parse_u64_dec(a->v[i].value, strlen(a->v[i].value), UINT64_MAX, &x) == 0 &&
                    ctk_parse_u64_dec(b->v[i].value, strlen(b->v[i].value), UINT64_MAX, &y) == 0) {
                        if (x - abase != y - bbase)
                                return false;
                } else if (strcmp(a->v[i].value, b->v[i].value) != 0) {
                        return false;
                }
        }
        return true;
}

/* The name of n's set (banks or caches), made on first sight; NULL for none. */
static const char *set_name(struct ctk_fakefs_importer *im, const struct ctk_kfd_capture_node *n, bool banks)
{
        const struct ctk_kfd_capture_sets *s = banks ? &n->banks : &n->caches;
        struct ctk_fakefs_import_named *v = banks ? im->banks : im->caches;
        size_t *nv = banks ? &im->nbanks : &im->ncaches;
        if (!s->present || s->n == 0)
                return NULL;
        uint64_t base = banks ? 0 : base_of(n);
        const char *stem = ctk_fakefs_import_is_gpu(n) ? ctk_fakefs_import_template_of(im, n)->name : "cpu";
        int variant = 1;
        for (size_t i = 0; i < *nv; i++) {
                bool same = v[i].set->n == s->n;
                for (size_t k = 0; same && k < s->n; k++)
                        same = item_equal(&v[i].set->v[k], v[i].base, &s->v[k], base);
                if (same)
                        return v[i].name;
                variant += strncmp(v[i].name, stem, strlen(stem)) == 0;
        }
        struct ctk_fakefs_import_named *t = &v[(*nv)++];
        if (variant == 1)
                (void)snprintf(t->name, sizeof(t->name), "%s", stem);
        else
                (void)snprintf(t->name, sizeof(t->name), "%s-%d", stem, variant);
        t->set = s;
        t->base = base;
        return t->name;
}

int ctk_fakefs_import_topo_prepare(struct ctk_fakefs_importer *im)
{
        size_t links = 0;
        for (size_t i = 0; i < im->cap.n; i++)
                links += im->cap.nodes[i].io.n + im->cap.nodes[i].p2p.n;
        im->links = calloc(links + 1, sizeof(*im->links));
        im->banks = calloc(im->cap.n + 1, sizeof(*im->banks));
        im->caches = calloc(im->cap.n + 1, sizeof(*im->caches));
        im->group_of = malloc((CTK_FAKEFS_MAX_KFD_NODE + 1) * sizeof(*im->group_of));
        if (im->links == NULL || im->banks == NULL || im->caches == NULL || im->group_of == NULL)
                return ctk_error_set(im->err, ENOMEM, "out of memory");
        for (size_t i = 0; i <= CTK_FAKEFS_MAX_KFD_NODE; i++)
                im->group_of[i] = -1;
        for (size_t g = 0; g < im->ngroups; g++)
                for (size_t k = 0; k < im->groups[g].n; k++)
                        im->group_of[im->groups[g].parts[k]->id] = (int)g;
        for (size_t i = 0; i < im->cap.n; i++) {
                const struct ctk_kfd_capture_node *n = &im->cap.nodes[i];
                const struct ctk_kfd_capture_links *ls[2] = {&n->io, &n->p2p};
                for (int w = 0; w < 2; w++)
                        for (size_t j = 0; j < ls[w]->n; j++) {
                                if (node_by_id(im, ls[w]->v[j].to) == NULL)
                                        return ctk_error_set(im->err, EINVAL,
                                                             "%s/nodes/%d/%s/%zu/properties: node_to %d is not a "
                                                             "node of the capture",
                                                             im->dir, n->id, w == 0 ? "io_links" : "p2p_links", j,
                                                             ls[w]->v[j].to);
                                link_name(im, n, &ls[w]->v[j], w == 0);
                        }
                set_name(im, n, true);
                set_name(im, n, false);
        }
        return 0;
}

static void put(struct ctk_fakefs_importer *im, json_t *o, const char *key, json_t *v)
{
        if (v == NULL || json_object_set_new(o, key, v) < 0)
                im->oom = true;
}

static json_t *links_json(struct ctk_fakefs_importer *im, const struct ctk_kfd_capture_node *n, bool io)
{
        const struct ctk_kfd_capture_links *l = io ? &n->io : &n->p2p;
        json_t *o = json_object();
        _cleanup_free_ size_t *ids = calloc(l->n + 1, sizeof(*ids));
        _cleanup_free_ const char **names = calloc(l->n + 1, sizeof(*names));
        if (o == NULL || ids == NULL || names == NULL) {
                im->oom = true;
                json_decref(o);
                return NULL;
        }
        for (size_t i = 0; i < l->n; i++)
                names[i] = link_name(im, n, &l->v[i], io);
        /* one entry per template, in the order of first use */
        for (size_t i = 0; i < l->n; i++) {
                if (json_object_get(o, names[i]) != NULL)
                        continue;
                size_t k = 0;
                for (size_t j = i; j < l->n; j++)
                        if (strcmp(names[j], names[i]) == 0)
                                ids[k++] = (size_t)l->v[j].to;
                char *r = ctk_format_ranges(ids, k);
                put(im, o, names[i], r != NULL ? json_string(r) : NULL);
                free(r);
        }
        return o;
}

void ctk_fakefs_import_topo_node(struct ctk_fakefs_importer *im, const struct ctk_kfd_capture_node *n, json_t *o)
{
        if (n->io.present)
                put(im, o, "io_links", links_json(im, n, true));
        if (n->p2p.present)
                put(im, o, "p2p_links", links_json(im, n, false));
        const char *banks = set_name(im, n, true), *caches = set_name(im, n, false);
        if (banks != NULL)
                put(im, o, "mem_banks", json_string(banks));
        if (caches != NULL)
                put(im, o, "caches", json_string(caches));
}

void ctk_fakefs_import_topo_numa(struct ctk_fakefs_importer *im, const struct ctk_kfd_capture_node *n, json_t *o)
{
        for (size_t i = 0; i < n->io.n; i++) {
                const struct ctk_kfd_capture_node *to = node_by_id(im, n->io.v[i].to);
                if (to != NULL && !ctk_fakefs_import_is_gpu(to)) {
                        put(im, o, "numa_node", json_integer(to->id));
                        return;
                }
        }
}

static json_t *value(const char *v)
{
        uint64_t n;
        if (ctk_parse_u64_dec(v, strlen(v), INT64_MAX, &n) == 0)
                return json_integer((json_int_t)n);
        return json_string(v);
}

static json_t *props_json(struct ctk_fakefs_importer *im, const struct ctk_fakefs_props *p, uint64_t base)
{
        json_t *o = json_object();
        for (size_t i = 0; o != NULL && i < p->n; i++) {
                uint64_t x;
                if (base != 0 && strcmp(p->v[i].key, "processor_id_low") == 0 &&
                    ctk_parse_u64_dec(p->v[i].value, strlen(p->v[i].value), UINT64_MAX, &x) == 0)
                        put(im, o, p->v[i].key, json_integer((json_int_t)(x - base)));
                else
                        put(im, o, p->v[i].key, value(p->v[i].value));
        }
        if (o == NULL)
                im->oom = true;
        return o;
}

void ctk_fakefs_import_topo_sets(struct ctk_fakefs_importer *im, json_t *root)
{
        json_t *links = json_object(), *banks = json_object(), *caches = json_object();
        for (size_t i = 0; links != NULL && i < im->nlinks; i++)
                put(im, links, im->links[i].name, props_json(im, im->links[i].props, 0));
        struct ctk_fakefs_import_named *sets[2] = {im->banks, im->caches};
        size_t ns[2] = {im->nbanks, im->ncaches};
        json_t *outs[2] = {banks, caches};
        for (int w = 0; w < 2; w++)
                for (size_t i = 0; outs[w] != NULL && i < ns[w]; i++) {
                        json_t *arr = json_array();
                        for (size_t k = 0; arr != NULL && k < sets[w][i].set->n; k++)
                                if (json_array_append_new(arr, props_json(im, &sets[w][i].set->v[k], sets[w][i].base)) <
                                    0)
                                        im->oom = true;
                        put(im, outs[w], sets[w][i].name, arr);
                }
        if (im->nlinks > 0)
                put(im, root, "kfd_link_templates", links);
        else
                json_decref(links);
        if (im->nbanks > 0)
                put(im, root, "kfd_mem_banks", banks);
        else
                json_decref(banks);
        if (im->ncaches > 0)
                put(im, root, "kfd_caches", caches);
        else
                json_decref(caches);
}

void ctk_fakefs_import_topo_clear(struct ctk_fakefs_importer *im)
{
        free(im->links);
        free(im->banks);
        free(im->caches);
        free(im->group_of);
}
