#include "backends/fakefs/kfd_links.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/fakefs/kfd_props.h"
#include "core/base/base.h"

/* Link keys in the driver's order; the values of the io_links of the real
 * captures (sim/captures/). */
#define LINK_KEYS(type, weight, minbw, maxbw, mask, flags)                                                             \
        {                                                                                                              \
                {"type", #type}, {"version_major", "0"}, {"version_minor", "0"}, {"weight", #weight},                  \
                    {"min_latency", "0"}, {"max_latency", "0"}, {"min_bandwidth", #minbw}, {"max_bandwidth", #maxbw},  \
                    {"recommended_transfer_size", "0"}, {"recommended_sdma_engine_id_mask", #mask},                    \
                {                                                                                                      \
                        "flags", #flags                                                                                \
                }                                                                                                      \
        }
#define NKEYS 11

static const struct {
        const char *name;
        const char *kv[NKEYS][2];
} builtin[] = {
    {"cpu-cpu", LINK_KEYS(1, 32, 0, 0, 0, 0)},
    {"cpu-gpu", LINK_KEYS(2, 20, 0, 64000, 3, 3)},
    {"gpu-cpu", LINK_KEYS(2, 20, 0, 64000, 3, 1)},
    {"xgmi", LINK_KEYS(11, 15, 50000, 50000, 28, 1)},
    {"xgmi-partition", LINK_KEYS(11, 13, 819200, 819200, 3, 1)},
};

size_t ctk_fakefs_builtin_link_count(void)
{
        return sizeof(builtin) / sizeof(builtin[0]);
}

int ctk_fakefs_builtin_link(size_t i, char **name, struct ctk_fakefs_props *props)
{
        if ((*name = strdup(builtin[i].name)) == NULL || (props->v = calloc(NKEYS, sizeof(*props->v))) == NULL)
                return -1;
        for (size_t k = 0; k < NKEYS; k++) {
                props->v[k].key = strdup(builtin[i].kv[k][0]);
                props->v[k].value = strdup(builtin[i].kv[k][1]);
                props->n++;
                if (props->v[k].key == NULL || props->v[k].value == NULL)
                        return -1;
        }
        return 0;
}

static const struct ctk_fakefs_props *link_template(const struct ctk_fakefs_profile *p, const char *name)
{
        for (size_t i = 0; i < p->nlink_templates; i++)
                if (strcmp(p->link_templates[i].name, name) == 0)
                        return &p->link_templates[i].props;
        return NULL;
}

static uint64_t prop_u64(const struct ctk_fakefs_topo_node *n, const char *key)
{
        const char *v = ctk_fakefs_props_get(n->part_props, key);
        if (v == NULL)
                v = ctk_fakefs_props_get(n->props, key);
        if (v == NULL)
                v = ctk_fakefs_props_get(n->template, key);
        uint64_t out = 0;
        if (v != NULL && ctk_parse_u64_dec(v, strlen(v), UINT64_MAX, &out) < 0)
                out = 0;
        return out;
}

static int first_cpu(const struct ctk_fakefs_profile *p)
{
        int min = -1;
        for (size_t i = 0; i < p->ncpus; i++)
                if (min < 0 || p->cpus[i].kfd_node < min)
                        min = p->cpus[i].kfd_node;
        return min;
}

/* The nodes of the plan, without links. */
static int collect(const struct ctk_fakefs_profile *p, const struct ctk_fakefs_plan *plan, struct ctk_fakefs_topo *t,
                   struct ctk_error **err)
{
        size_t n = p->ncpus;
        for (size_t i = 0; i < plan->ngpus; i++)
                n += plan->gpus[i].kfd ? plan->gpus[i].nparts : 0;
        t->v = calloc(n + 1, sizeof(*t->v));
        if (t->v == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < p->ncpus; i++) {
                const struct ctk_fakefs_cpu *c = &p->cpus[i];
                t->v[t->n++] = (struct ctk_fakefs_topo_node){.node = c->kfd_node,
                                                             .profile_node = c->kfd_node,
                                                             .cpu = c->kfd_node,
                                                             .extra = &c->extra,
                                                             .template = c->template,
                                                             .props = &c->props};
        }
        int cpu0 = first_cpu(p);
        for (size_t i = 0; i < plan->ngpus; i++) {
                const struct ctk_fakefs_plan_gpu *pg = &plan->gpus[i];
                const struct ctk_fakefs_gpu *g = pg->gpu;
                bool profile_mode = !g->partition.supported || strcmp(pg->compute, g->partition.compute) == 0;
                for (size_t k = 0; pg->kfd && k < pg->nparts; k++) {
                        struct ctk_fakefs_topo_node *tn = &t->v[t->n++];
                        *tn = (struct ctk_fakefs_topo_node){.node = pg->parts[k].kfd_node,
                                                            .profile_node = -1,
                                                            .gpu = true,
                                                            .pg = pg,
                                                            .k = k,
                                                            .cpu = g->numa_node >= 0 ? g->numa_node : cpu0,
                                                            .template = g->template,
                                                            .props = &g->props,
                                                            .part_props = pg->parts[k].overrides};
                        if (pg->explicit_parts) {
                                tn->profile_node = g->parts[k].kfd_node;
                                tn->extra = &g->parts[k].extra;
                        } else if (profile_mode && pg->nparts == 1) {
                                tn->profile_node = g->kfd_node;
                                tn->extra = &g->extra;
                        }
                        tn->hive_id = prop_u64(tn, "hive_id");
                }
        }
        return 0;
}

static int push(struct ctk_fakefs_link_list *l, int to, const struct ctk_fakefs_props *props)
{
        if (props == NULL)
                return 0;
        struct ctk_fakefs_link *nv = realloc(l->v, (l->n + 1) * sizeof(*nv));
        if (nv == NULL)
                return -1;
        l->v = nv;
        l->v[l->n++] = (struct ctk_fakefs_link){to, props};
        return 0;
}

/* The template of the derived io_link (io) or p2p_link from a to b, or NULL. */
static const struct ctk_fakefs_props *derived(const struct ctk_fakefs_profile *p, const struct ctk_fakefs_topo_node *a,
                                              const struct ctk_fakefs_topo_node *b, bool io)
{
        if (!a->gpu && !b->gpu)
                return io ? link_template(p, "cpu-cpu") : NULL;
        if (!a->gpu || !b->gpu) {
                bool own = (a->gpu ? a->cpu : b->cpu) == (a->gpu ? b->node : a->node);
                if (own != io)
                        return NULL;
                if (io)
                        return link_template(p, a->gpu ? "gpu-cpu" : "cpu-gpu");
                return link_template(p, a->gpu ? "p2p-gpu-cpu" : "p2p-cpu-gpu");
        }
        bool direct = a->pg == b->pg || (a->hive_id != 0 && a->hive_id == b->hive_id);
        if (direct != io)
                return NULL;
        if (!io)
                return link_template(p, "p2p-gpu-gpu");
        return link_template(p, a->pg == b->pg ? "xgmi-partition" : "xgmi");
}

static int by_to(const void *x, const void *y)
{
        const struct ctk_fakefs_link *a = x, *b = y;
        return a->to < b->to ? -1 : a->to > b->to;
}

static int links_of(const struct ctk_fakefs_profile *p, struct ctk_fakefs_topo *t, const int *by_profile, size_t i,
                    bool io)
{
        struct ctk_fakefs_topo_node *a = &t->v[i];
        struct ctk_fakefs_link_list *out = io ? &a->io : &a->p2p;
        const struct ctk_fakefs_links *given = a->extra == NULL ? NULL : io ? &a->extra->io : &a->extra->p2p;
        if (given != NULL && !given->given)
                given = NULL;
        for (size_t r = 0; given != NULL && r < given->n; r++) {
                int j = by_profile[given->v[r].node];
                if (j >= 0 && push(out, t->v[j].node, &given->v[r].template->props) < 0)
                        return -1;
        }
        for (size_t j = 0; j < t->n; j++) {
                const struct ctk_fakefs_topo_node *b = &t->v[j];
                if (j == i || (given != NULL && b->profile_node >= 0))
                        continue;
                if (push(out, b->node, derived(p, a, b, io)) < 0)
                        return -1;
        }
        if (out->n > 1)
                qsort(out->v, out->n, sizeof(*out->v), by_to);
        return 0;
}

int ctk_fakefs_topo_make(const struct ctk_fakefs_profile *p, const struct ctk_fakefs_plan *plan,
                         struct ctk_fakefs_topo *out, struct ctk_error **err)
{
        struct ctk_fakefs_topo t = {0};
        _cleanup_free_ int *by_profile = malloc((CTK_FAKEFS_MAX_KFD_NODE + 1) * sizeof(*by_profile));
        if (by_profile == NULL || collect(p, plan, &t, err) < 0) {
                ctk_fakefs_topo_clear(&t);
                return by_profile == NULL ? ctk_error_set(err, ENOMEM, "out of memory") : -1;
        }
        for (size_t i = 0; i <= CTK_FAKEFS_MAX_KFD_NODE; i++)
                by_profile[i] = -1;
        for (size_t i = 0; i < t.n; i++)
                if (t.v[i].profile_node >= 0)
                        by_profile[t.v[i].profile_node] = (int)i;
        for (size_t i = 0; i < t.n; i++) {
                if (links_of(p, &t, by_profile, i, true) < 0 || links_of(p, &t, by_profile, i, false) < 0) {
                        ctk_fakefs_topo_clear(&t);
                        return ctk_error_set(err, ENOMEM, "out of memory");
                }
        }
        *out = t;
        return 0;
}

void ctk_fakefs_topo_clear(struct ctk_fakefs_topo *t)
{
        for (size_t i = 0; i < t->n; i++) {
                free(t->v[i].io.v);
                free(t->v[i].p2p.v);
        }
        free(t->v);
        t->v = NULL;
        t->n = 0;
}

int ctk_fakefs_link_render(const struct ctk_fakefs_props *tmpl, int from, int to, char **out, size_t *len,
                           struct ctk_error **err)
{
        _cleanup_free_ char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);
        if (f == NULL)
                return ctk_error_errno(err, errno, "rendering a KFD link");
        bool ends = ctk_fakefs_props_get(tmpl, "version_minor") == NULL;
        if (ends)
                fprintf(f, "node_from %d\nnode_to %d\n", from, to);
        for (size_t i = 0; i < tmpl->n; i++) {
                fprintf(f, "%s %s\n", tmpl->v[i].key, tmpl->v[i].value);
                if (!ends && strcmp(tmpl->v[i].key, "version_minor") == 0)
                        fprintf(f, "node_from %d\nnode_to %d\n", from, to);
        }
        if (fclose(f) != 0)
                return ctk_error_set(err, ENOMEM, "out of memory");
        *len = size;
        *out = ctk_steal(&buf);
        return 0;
}
