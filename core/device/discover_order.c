/* The index order of discovered GPUs (spec §1.4): candidates grouped by the
 * KFD node's PCI location (domain/bus/device), groups in first-seen order,
 * devices of a group by ascending render minor.  Grouping is O(n log n). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "discover_order.h"

static int cmp_u64(const void *a, const void *b)
{
        uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
        return x < y ? -1 : x > y;
}

int ctk_discover_groups_init(struct ctk_discover_groups *g, const struct ctk_kfd_topology *topo)
{
        *g = (struct ctk_discover_groups){0};
        g->keys = calloc(topo->n + 1, sizeof(*g->keys));
        g->rank = calloc(topo->n + 1, sizeof(*g->rank));
        g->bdf = calloc(topo->n + 1, sizeof(*g->bdf));
        if (g->keys == NULL || g->rank == NULL || g->bdf == NULL)
                return -1;
        for (size_t i = 0; i < topo->n; i++)
                if (topo->v[i].has_location)
                        g->keys[g->n++] = topo->v[i].group;
        if (g->n > 1) /* (qsort wants an array, even of none) */
                qsort(g->keys, g->n, sizeof(*g->keys), cmp_u64);
        size_t u = 0;
        for (size_t i = 0; i < g->n; i++)
                if (u == 0 || g->keys[u - 1] != g->keys[i])
                        g->keys[u++] = g->keys[i];
        g->n = u;
        for (size_t i = 0; i < g->n; i++)
                g->rank[i] = SIZE_MAX;
        return 0;
}

static size_t groups_slot(const struct ctk_discover_groups *g, uint64_t key)
{
        const uint64_t *p = bsearch(&key, g->keys, g->n, sizeof(*g->keys), cmp_u64);
        return (size_t)(p - g->keys); /* every located node's key is present */
}

void ctk_discover_groups_add(struct ctk_discover_groups *g, struct ctk_discover_candidate *c, size_t seq,
                             const char *bdf)
{
        size_t slot = groups_slot(g, c->node->group);
        if (g->rank[slot] == SIZE_MAX)
                g->rank[slot] = g->seen++;
        if (c->is_pci && g->bdf[slot] == NULL)
                g->bdf[slot] = bdf;
        c->order = g->rank[slot];
        c->seq = seq;
}

void ctk_discover_groups_clear(struct ctk_discover_groups *g)
{
        free(g->keys);
        free(g->rank);
        free(g->bdf);
}

static int by_group_then_minor(const void *a, const void *b)
{
        const struct ctk_discover_candidate *x = a, *y = b;
        if (x->order != y->order)
                return x->order < y->order ? -1 : 1;
        if (x->gpu.render_minor != y->gpu.render_minor)
                return x->gpu.render_minor < y->gpu.render_minor ? -1 : 1;
        return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void ctk_discover_candidates_free(struct ctk_discover_candidate *c, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                struct ctk_gpu *g = &c[i].gpu;
                free(g->pci);
                free(g->group_key);
                free(g->sysfs_path);
                free(g->partition);
                ctk_strv_clear(&g->drm);
        }
        free(c);
}

/* v in lower-case hex, at least width digits (printf's %0<width>x). */
static char *put_hex(char *p, unsigned v, int width)
{
        char digits[8];
        int n = 0;
        do {
                digits[n++] = "0123456789abcdef"[v & 0xf];
                v >>= 4;
        } while (v != 0);
        for (int i = n; i < width; i++)
                *p++ = '0';
        while (n > 0)
                *p++ = digits[--n];
        return p;
}

static int finish_gpu(struct ctk_discover_candidate *c, const struct ctk_discover_groups *g, size_t index,
                      struct ctk_error **err)
{
        const struct ctk_kfd_node *nd = c->node;
        unsigned bus = ctk_kfd_location_bus(nd->location_id), dev = ctk_kfd_location_dev(nd->location_id);
        const char *bdf = g->bdf[groups_slot(g, nd->group)];
        c->gpu.index = index;
        char loc[32]; /* "%04x:%02x:%02x" */
        char *p = put_hex(loc, nd->domain, 4);
        *p++ = ':';
        p = put_hex(p, bus, 2);
        *p++ = ':';
        *put_hex(p, dev, 2) = '\0';
        c->gpu.group_key = ctk_str_concat(loc, ":0", NULL);
        c->gpu.pci = bdf != NULL ? strdup(bdf) : ctk_str_concat(loc, ".0", NULL);
        if (c->gpu.group_key == NULL || c->gpu.pci == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        return 0;
}

int ctk_discover_order(struct ctk_discover_candidate *c, size_t n, const struct ctk_discover_groups *g,
                       struct ctk_error **err)
{
        if (n > 1) /* (qsort wants an array, even of none) */
                qsort(c, n, sizeof(*c), by_group_then_minor);
        for (size_t i = 0; i < n; i++)
                if (finish_gpu(&c[i], g, i, err) < 0)
                        return -1;
        return 0;
}
