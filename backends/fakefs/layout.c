#include "backends/fakefs/layout.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/base.h"

#define XCP_PER_GPU (CTK_FAKEFS_MAX_PARTITIONS - 1)

static bool is_amdgpu(const struct ctk_fakefs_gpu *g)
{
        return g->driver != NULL && strcmp(g->driver, "amdgpu") == 0;
}

int ctk_fakefs_state_init(const struct ctk_fakefs_profile *p, struct ctk_fakefs_state *out, struct ctk_error **err)
{
        out->gpus = calloc(p->ngpus + 1, sizeof(*out->gpus));
        if (out->gpus == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        out->ngpus = p->ngpus;
        out->changes = 0;
        for (size_t i = 0; i < p->ngpus; i++) {
                const struct ctk_fakefs_partitioning *pt = &p->gpus[i].partition;
                out->gpus[i].present = true;
                if (pt->supported) {
                        (void)snprintf(out->gpus[i].compute, sizeof(out->gpus[i].compute), "%s", pt->compute);
                        (void)snprintf(out->gpus[i].memory, sizeof(out->gpus[i].memory), "%s", pt->memory);
                }
        }
        return 0;
}

int ctk_fakefs_state_copy(const struct ctk_fakefs_state *s, struct ctk_fakefs_state *out, struct ctk_error **err)
{
        out->gpus = calloc(s->ngpus + 1, sizeof(*out->gpus));
        if (out->gpus == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        memcpy(out->gpus, s->gpus, s->ngpus * sizeof(*s->gpus));
        out->ngpus = s->ngpus;
        out->changes = s->changes;
        return 0;
}

void ctk_fakefs_state_clear(struct ctk_fakefs_state *s)
{
        free(s->gpus);
        s->gpus = NULL;
        s->ngpus = 0;
}

void ctk_fakefs_plan_clear(struct ctk_fakefs_plan *plan)
{
        free(plan->gpus);
        plan->gpus = NULL;
        plan->ngpus = 0;
}

/* A stable, non-zero 16-bit KFD gpu_id for a partition. */
static uint32_t synth_gpu_id(unsigned int domain, uint32_t location_id, uint64_t unique_id)
{
        uint64_t h = 1469598103934665603ull;
        uint64_t in[3] = {domain, location_id, unique_id};
        for (int i = 0; i < 3; i++) {
                for (int b = 0; b < 8; b++) {
                        h ^= (in[i] >> (8 * b)) & 0xff;
                        h *= 1099511628211ull;
                }
        }
        return (uint32_t)(h % 65535u) + 1;
}

/* The order in which the driver numbers GPUs in the KFD topology. */
static long rank_of(const struct ctk_fakefs_gpu *g, size_t index)
{
        if (g->nparts > 0)
                return g->parts[0].kfd_node;
        if (g->kfd_node >= 0)
                return g->kfd_node;
        return (1L << 20) + (long)index;
}

static void fill_parts(const struct ctk_fakefs_profile *p, const struct ctk_fakefs_state *s, size_t gi,
                       unsigned int xcp_base, struct ctk_fakefs_plan_gpu *pg)
{
        const struct ctk_fakefs_gpu *g = &p->gpus[gi];
        const struct ctk_fakefs_gpu_state *st = &s->gpus[gi];
        bool part = g->partition.supported;
        int count = part ? ctk_fakefs_compute_partitions(st->compute, g->partition.xcds) : 1;
        bool use_explicit = g->nparts > 0 && (!part || strcmp(st->compute, g->partition.compute) == 0);
        pg->compute = part ? st->compute : NULL;
        pg->memory = part ? st->memory : NULL;
        pg->explicit_parts = use_explicit;
        pg->nparts = use_explicit ? g->nparts : (size_t)count;
        for (unsigned int k = 0; k < pg->nparts; k++) {
                struct ctk_fakefs_plan_part *pp = &pg->parts[k];
                const struct ctk_fakefs_part *ex = use_explicit ? &g->parts[k] : NULL;
                pp->k = k;
                pp->kfd_node = -1;
                pp->card_minor = ex != NULL && ex->card_minor >= 0 ? ex->card_minor : g->card_minor + (int)k;
                pp->render_minor = ex != NULL ? ex->render_minor : g->render_minor + (int)k;
                pp->location_id = ex != NULL && ex->location_id >= 0
                                      ? (uint32_t)ex->location_id
                                      : (g->bus << 8) | (g->dev << 3) | ((g->fn + k) & 7);
                pp->has_unique_id = ex != NULL && ex->has_unique_id ? true : g->has_unique_id;
                pp->unique_id = ex != NULL && ex->has_unique_id ? ex->unique_id : g->unique_id;
                if (ex != NULL && ex->gpu_id >= 0)
                        pp->gpu_id = (uint32_t)ex->gpu_id;
                else if (k == 0 && g->gpu_id >= 0)
                        pp->gpu_id = (uint32_t)g->gpu_id;
                else
                        pp->gpu_id = synth_gpu_id(g->domain, pp->location_id, pp->unique_id);
                pp->num_xcc = part && ex == NULL ? (int)(g->partition.xcds / pg->nparts) : -1;
                pp->overrides = ex != NULL ? &ex->props : NULL;
                pp->platform[0] = '\0';
                if (k > 0)
                        (void)snprintf(pp->platform, sizeof(pp->platform), "%s%u", p->xcp_prefix, xcp_base + k - 1);
        }
}

struct rank {
        long rank;
        size_t plan_index;
};

static int by_rank(const void *a, const void *b)
{
        const struct rank *x = a, *y = b;
        if (x->rank != y->rank)
                return x->rank < y->rank ? -1 : 1;
        return x->plan_index < y->plan_index ? -1 : x->plan_index > y->plan_index;
}

/* KFD node ids: as the profile says until the first change; afterwards (the
 * driver rebuilt its topology) CPU nodes first, then every GPU's partitions
 * consecutively in the profile's KFD order. */
static int number_nodes(const struct ctk_fakefs_profile *p, const struct ctk_fakefs_state *s,
                        struct ctk_fakefs_plan *plan, struct ctk_error **err)
{
        _cleanup_free_ struct rank *ranks = calloc(plan->ngpus + 1, sizeof(*ranks));
        if (ranks == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        size_t n = 0;
        int next = 0;
        for (size_t i = 0; i < p->ncpus; i++)
                if (p->cpus[i].kfd_node + 1 > next)
                        next = p->cpus[i].kfd_node + 1;
        for (size_t i = 0; i < plan->ngpus; i++) {
                struct ctk_fakefs_plan_gpu *pg = &plan->gpus[i];
                if (!pg->kfd)
                        continue;
                const struct ctk_fakefs_gpu *g = pg->gpu;
                ranks[n++] = (struct rank){rank_of(g, (size_t)(g - p->gpus)), i};
                if (s->changes > 0)
                        continue;
                for (size_t k = 0; k < pg->nparts; k++) {
                        if (pg->explicit_parts)
                                pg->parts[k].kfd_node = g->parts[k].kfd_node;
                        else if (g->kfd_node >= 0)
                                pg->parts[k].kfd_node = g->kfd_node + (int)k;
                        if (pg->parts[k].kfd_node + 1 > next)
                                next = pg->parts[k].kfd_node + 1;
                }
        }
        if (s->changes > 0) {
                next = 0;
                for (size_t i = 0; i < p->ncpus; i++)
                        if (p->cpus[i].kfd_node + 1 > next)
                                next = p->cpus[i].kfd_node + 1;
        }
        qsort(ranks, n, sizeof(*ranks), by_rank);
        for (size_t r = 0; r < n; r++) {
                struct ctk_fakefs_plan_gpu *pg = &plan->gpus[ranks[r].plan_index];
                for (size_t k = 0; k < pg->nparts; k++)
                        if (pg->parts[k].kfd_node < 0)
                                pg->parts[k].kfd_node = next++;
        }
        return 0;
}

static int check_nodes(const struct ctk_fakefs_profile *p, const struct ctk_fakefs_plan *plan, struct ctk_error **err)
{
        size_t max = CTK_FAKEFS_MAX_KFD_NODE + CTK_FAKEFS_MAX_PARTITIONS * (plan->ngpus + 1);
        _cleanup_free_ const char **owner = calloc(max + 1, sizeof(*owner));
        if (owner == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < p->ncpus; i++)
                owner[p->cpus[i].kfd_node] = "a CPU";
        for (size_t i = 0; i < plan->ngpus; i++) {
                const struct ctk_fakefs_plan_gpu *pg = &plan->gpus[i];
                for (size_t k = 0; pg->kfd && k < pg->nparts; k++) {
                        int node = pg->parts[k].kfd_node;
                        if (node < 0 || (size_t)node > max)
                                return ctk_error_set(err, EINVAL, "%s: gpu %s: KFD node %d out of range",
                                                     CTK_CUT(p->path), CTK_CUT(pg->gpu->pci), node);
                        if (owner[node] != NULL)
                                return ctk_error_set(
                                    err, EINVAL, "%s: KFD node %d of gpu %s (partition %zu) is also used by %s",
                                    CTK_CUT(p->path), node, CTK_CUT(pg->gpu->pci), k, CTK_CUT(owner[node]));
                        owner[node] = pg->gpu->pci;
                }
        }
        return 0;
}

int ctk_fakefs_plan_make(const struct ctk_fakefs_profile *p, const struct ctk_fakefs_state *s,
                         struct ctk_fakefs_plan *out, struct ctk_error **err)
{
        struct ctk_fakefs_plan plan = {0};
        plan.gpus = calloc(p->ngpus + 1, sizeof(*plan.gpus));
        if (plan.gpus == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        plan.generation_id = p->generation_id + s->changes;
        unsigned int xcp_base = 0;
        for (size_t i = 0; i < p->ngpus; i++) {
                const struct ctk_fakefs_gpu *g = &p->gpus[i];
                unsigned int base = xcp_base;
                if (is_amdgpu(g) && g->partition.supported)
                        xcp_base += XCP_PER_GPU;
                if (!s->gpus[i].present)
                        continue;
                struct ctk_fakefs_plan_gpu *pg = &plan.gpus[plan.ngpus++];
                pg->gpu = g;
                pg->bound = g->driver != NULL && (!is_amdgpu(g) || p->amdgpu_loaded);
                pg->kfd = pg->bound && is_amdgpu(g);
                if (pg->kfd)
                        fill_parts(p, s, i, base, pg);
        }
        if (number_nodes(p, s, &plan, err) < 0 || check_nodes(p, &plan, err) < 0) {
                ctk_fakefs_plan_clear(&plan);
                return -1;
        }
        *out = plan;
        return 0;
}
