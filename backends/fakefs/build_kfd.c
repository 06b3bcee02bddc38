#include "backends/fakefs/build_kfd.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/fakefs/build.h"
#include "backends/fakefs/kfd_links.h"
#include "backends/fakefs/kfd_props.h"
#include "core/base/base.h"

/* A memory bank of a node without kfd_mem_banks: the heap the driver
 * reports (1: VRAM of a GPU, 0: system memory of a CPU). */
static const char *const gpu_bank[][2] = {
    {"heap_type", "1"}, {"size_in_bytes", "68702699520"}, {"flags", "0"}, {"width", "4096"}, {"mem_clk_max", "1600"}};
static const char *const cpu_bank[][2] = {
    {"heap_type", "0"}, {"size_in_bytes", "270582939648"}, {"flags", "0"}, {"width", "64"}, {"mem_clk_max", "3200"}};

struct kb {
        const struct ctk_fakefs_profile *p;
        struct ctk_fakefs_tree *t;
        struct ctk_error **err;
        char dir[96];      /* TOPOLOGY/nodes/<n> */
        unsigned int gate; /* the render minor of a GPU node (0: a CPU node) */
};

static int oom(struct kb *b)
{
        return ctk_error_set(b->err, ENOMEM, "out of memory");
}

static int add_text(struct kb *b, const char *rel, const char *text, size_t len)
{
        _cleanup_free_ char *path = NULL;
        if (asprintf(&path, "%s/%s", b->dir, rel) < 0) {
                path = NULL;
                return oom(b);
        }
        struct ctk_fakefs_node *n;
        if (ctk_fakefs_tree_add_file(b->t, path, text, len, 0444, &n, b->err) < 0)
                return -1;
        /* amdkfd answers EPERM to a reader whose device cgroup denies the GPU's render node */
        n->gate_minor = b->gate;
        return 0;
}

static uint64_t node_u64(const struct ctk_fakefs_topo_node *n, const char *key)
{
        const struct ctk_fakefs_props *chain[3] = {n->part_props, n->props, n->template};
        for (int i = 0; i < 3; i++) {
                const char *v = ctk_fakefs_props_get(chain[i], key);
                uint64_t out;
                if (v != NULL)
                        return ctk_parse_u64_dec(v, strlen(v), UINT64_MAX, &out) == 0 ? out : 0;
        }
        return 0;
}

static int add_links(struct kb *b, const struct ctk_fakefs_topo_node *n, bool io)
{
        const struct ctk_fakefs_link_list *l = io ? &n->io : &n->p2p;
        const char *what = io ? "io_links" : "p2p_links";
        char rel[160];
        (void)snprintf(rel, sizeof(rel), "%s/%s", b->dir, what);
        if (ctk_fakefs_tree_mkdir(b->t, rel, b->err) < 0)
                return -1;
        for (size_t i = 0; i < l->n; i++) {
                _cleanup_free_ char *text = NULL;
                size_t len;
                (void)snprintf(rel, sizeof(rel), "%s/%zu/properties", what, i);
                if (ctk_fakefs_link_render(l->v[i].props, n->node, l->v[i].to, &text, &len, b->err) < 0 ||
                    add_text(b, rel, text, len) < 0)
                        return -1;
        }
        return 0;
}

/* "key value" lines of item, but used_memory; processor_id_low + base. */
static char *render_item(const struct ctk_fakefs_props *item, uint64_t base)
{
        char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);
        if (f == NULL)
                return NULL;
        for (size_t i = 0; i < item->n; i++) {
                const char *k = item->v[i].key, *v = item->v[i].value;
                uint64_t x;
                if (strcmp(k, "used_memory") == 0)
                        continue;
                if (strcmp(k, "processor_id_low") == 0 && ctk_parse_u64_dec(v, strlen(v), UINT64_MAX, &x) == 0)
                        fprintf(f, "%s %" PRIu64 "\n", k, x + base);
                else
                        fprintf(f, "%s %s\n", k, v);
        }
        if (fclose(f) != 0) {
                free(buf);
                return NULL;
        }
        return buf;
}

static int add_banks(struct kb *b, const struct ctk_fakefs_topo_node *n, const struct ctk_fakefs_set *set,
                     size_t *count)
{
        const struct ctk_fakefs_gpu *g = n->gpu ? n->pg->gpu : NULL;
        struct ctk_fakefs_prop dv[5];
        struct ctk_fakefs_props def = {.v = dv, .n = 5};
        char size[32];
        for (int i = 0; i < 5; i++)
                dv[i] = (struct ctk_fakefs_prop){(char *)(n->gpu ? gpu_bank : cpu_bank)[i][0],
                                                 (char *)(n->gpu ? gpu_bank : cpu_bank)[i][1]};
        if (g != NULL && g->sensors.has_vram) {
                (void)snprintf(size, sizeof(size), "%" PRIu64, g->sensors.vram_total);
                dv[1].value = size;
        }
        *count = set != NULL ? set->n : 1;
        char rel[160];
        (void)snprintf(rel, sizeof(rel), "%s/mem_banks", b->dir);
        if (ctk_fakefs_tree_mkdir(b->t, rel, b->err) < 0)
                return -1;
        for (size_t i = 0; i < *count; i++) {
                const struct ctk_fakefs_props *item = set != NULL ? &set->items[i] : &def;
                _cleanup_free_ char *text = render_item(item, 0);
                (void)snprintf(rel, sizeof(rel), "mem_banks/%zu/properties", i);
                if (text == NULL)
                        return oom(b);
                if (add_text(b, rel, text, strlen(text)) < 0)
                        return -1;
                if (g == NULL)
                        continue;
                const char *used = ctk_fakefs_props_get(item, "used_memory");
                char ubuf[32];
                (void)snprintf(ubuf, sizeof(ubuf), "%s\n", used != NULL ? used : "0");
                if (used == NULL && g->sensors.has_vram)
                        (void)snprintf(ubuf, sizeof(ubuf), "%" PRIu64 "\n", g->sensors.vram_used);
                (void)snprintf(rel, sizeof(rel), "mem_banks/%zu/used_memory", i);
                if (add_text(b, rel, ubuf, strlen(ubuf)) < 0)
                        return -1;
        }
        return 0;
}

static int add_caches(struct kb *b, const struct ctk_fakefs_topo_node *n, const struct ctk_fakefs_set *set)
{
        char rel[160];
        (void)snprintf(rel, sizeof(rel), "%s/caches", b->dir);
        if (ctk_fakefs_tree_mkdir(b->t, rel, b->err) < 0)
                return -1;
        uint64_t base = node_u64(n, n->gpu ? "simd_id_base" : "cpu_core_id_base");
        for (size_t i = 0; set != NULL && i < set->n; i++) {
                _cleanup_free_ char *text = render_item(&set->items[i], base);
                (void)snprintf(rel, sizeof(rel), "caches/%zu/properties", i);
                if (text == NULL)
                        return oom(b);
                if (add_text(b, rel, text, strlen(text)) < 0)
                        return -1;
        }
        return 0;
}

static int add_node(struct kb *b, const struct ctk_fakefs_topo_node *n)
{
        (void)snprintf(b->dir, sizeof(b->dir), CTK_FAKEFS_TOPOLOGY "/nodes/%d", n->node);
        b->gate = n->gpu ? (unsigned int)n->pg->parts[n->k].render_minor : 0;
        const struct ctk_fakefs_set *banks = n->extra != NULL ? n->extra->banks : NULL;
        const struct ctk_fakefs_set *caches = n->extra != NULL ? n->extra->caches : NULL;
        if (n->gpu) { /* (the node's own, else its GPU's) */
                if (banks == NULL)
                        banks = n->pg->gpu->extra.banks;
                if (caches == NULL)
                        caches = n->pg->gpu->extra.caches;
        }
        size_t nbanks;
        if (add_links(b, n, true) < 0 || add_links(b, n, false) < 0 || add_banks(b, n, banks, &nbanks) < 0 ||
            add_caches(b, n, caches) < 0)
                return -1;
        char counts[4][24], xcc[16];
        struct ctk_fakefs_prop cv[5] = {{(char *)"mem_banks_count", counts[0]},
                                        {(char *)"caches_count", counts[1]},
                                        {(char *)"io_links_count", counts[2]},
                                        {(char *)"p2p_links_count", counts[3]},
                                        {(char *)"num_xcc", xcc}};
        (void)snprintf(counts[0], sizeof(counts[0]), "%zu", nbanks);
        (void)snprintf(counts[1], sizeof(counts[1]), "%zu", caches != NULL ? caches->n : 0);
        (void)snprintf(counts[2], sizeof(counts[2]), "%zu", n->io.n);
        (void)snprintf(counts[3], sizeof(counts[3]), "%zu", n->p2p.n);
        struct ctk_fakefs_props computed = {.v = cv, .n = 4};
        _cleanup_free_ char *props = NULL;
        size_t len;
        if (!n->gpu) {
                if (ctk_fakefs_props_render(n->template, n->props, NULL, &computed, NULL, &props, &len, b->err) < 0 ||
                    add_text(b, "properties", props, len) < 0 || add_text(b, "gpu_id", "0\n", 2) < 0 ||
                    add_text(b, "name", "\n", 1) < 0)
                        return -1;
                return 0;
        }
        const struct ctk_fakefs_plan_part *pp = &n->pg->parts[n->k];
        const struct ctk_fakefs_gpu *g = n->pg->gpu;
        if (pp->num_xcc >= 0) {
                (void)snprintf(xcc, sizeof(xcc), "%d", pp->num_xcc);
                computed.n = 5;
        }
        struct ctk_fakefs_identity id = {
            .vendor_id = g->vendor_id,
            .device_id = g->device_id,
            .domain = g->domain,
            .location_id = pp->location_id,
            .render_minor = pp->render_minor,
            .has_unique_id = pp->has_unique_id,
            .unique_id = pp->unique_id,
        };
        char gpu_id[16];
        _cleanup_free_ char *name = NULL;
        (void)snprintf(gpu_id, sizeof(gpu_id), "%" PRIu32 "\n", pp->gpu_id);
        if (asprintf(&name, "%s\n", ctk_fakefs_kfd_name(g)) < 0) {
                name = NULL;
                return oom(b);
        }
        if (ctk_fakefs_props_render(g->template, &g->props, pp->overrides, &computed, &id, &props, &len, b->err) < 0 ||
            add_text(b, "properties", props, len) < 0 || add_text(b, "gpu_id", gpu_id, strlen(gpu_id)) < 0 ||
            add_text(b, "name", name, strlen(name)) < 0)
                return -1;
        return 0;
}

int ctk_fakefs_build_kfd(const struct ctk_fakefs_profile *p, const struct ctk_fakefs_plan *plan,
                         struct ctk_fakefs_tree *t, struct ctk_error **err)
{
        struct kb b = {.p = p, .t = t, .err = err};
        if (ctk_fakefs_tree_mkdir(t, CTK_FAKEFS_TOPOLOGY "/nodes", err) < 0 ||
            ctk_fakefs_tree_add_filef(t, CTK_FAKEFS_TOPOLOGY "/generation_id", err, "%" PRIu64 "\n",
                                      plan->generation_id) < 0 ||
            ctk_fakefs_tree_add_filef(t, CTK_FAKEFS_TOPOLOGY "/system_properties", err,
                                      "platform_oem 0\nplatform_id 0\nplatform_rev 0\n") < 0)
                return -1;
        t->generation = plan->generation_id;
        struct ctk_fakefs_topo topo = {0};
        if (ctk_fakefs_topo_make(p, plan, &topo, err) < 0)
                return -1;
        int rc = 0;
        for (size_t i = 0; rc == 0 && i < topo.n; i++)
                rc = add_node(&b, &topo.v[i]);
        ctk_fakefs_topo_clear(&topo);
        if (rc < 0)
                return -1;
        if (p->has_kfd_device && ctk_fakefs_tree_add_chr(t, "/dev/kfd", p->kfd_major, p->kfd_minor, p->kfd_attr.mode,
                                                         p->kfd_attr.uid, p->kfd_attr.gid, err) < 0)
                return -1;
        return 0;
}
