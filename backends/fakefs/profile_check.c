#include "backends/fakefs/profile_check.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/base.h"

static int by_pci(const void *a, const void *b)
{
        const struct ctk_fakefs_gpu *x = a, *y = b;
        unsigned long long kx = ((unsigned long long)x->domain << 16) | (x->bus << 8) | (x->dev << 3) | x->fn;
        unsigned long long ky = ((unsigned long long)y->domain << 16) | (y->bus << 8) | (y->dev << 3) | y->fn;
        return kx < ky ? -1 : kx > ky;
}

unsigned int ctk_fakefs_gpu_minor_block(const struct ctk_fakefs_gpu *g)
{
        /* Like amdgpu: a partition-capable GPU reserves a DRM minor for
         * every possible partition, whatever its current mode. */
        return g->partition.supported ? CTK_FAKEFS_MAX_PARTITIONS : 1;
}

static bool is_amdgpu(const struct ctk_fakefs_gpu *g)
{
        return g->driver != NULL && strcmp(g->driver, "amdgpu") == 0;
}

static int fail(const struct ctk_fakefs_profile *p, struct ctk_error **err, const struct ctk_fakefs_gpu *g,
                const char *msg)
{
        return ctk_error_set(err, EINVAL, "%s: gpu %s: %s", CTK_CUT(p->path), CTK_CUT(g->pci), msg);
}

static int check_modes(const struct ctk_fakefs_profile *p, const struct ctk_fakefs_gpu *g, struct ctk_error **err)
{
        const struct ctk_fakefs_partitioning *pt = &g->partition;
        for (size_t i = 0; i < pt->available_compute.n; i++) {
                const char *m = pt->available_compute.v[i];
                int n = ctk_fakefs_compute_partitions(m, pt->xcds);
                if (n < 0)
                        return ctk_error_set(err, EINVAL,
                                             "%s: gpu %s: unknown compute partition mode \"%s\" "
                                             "(known: SPX, DPX, TPX, QPX, CPX)",
                                             CTK_CUT(p->path), CTK_CUT(g->pci), CTK_CUT(m));
                if (n < 1 || n > (int)pt->xcds || pt->xcds % (unsigned int)n != 0)
                        return ctk_error_set(err, EINVAL, "%s: gpu %s: mode %s (%d partitions) does not fit %u XCDs",
                                             CTK_CUT(p->path), CTK_CUT(g->pci), CTK_CUT(m), n, pt->xcds);
        }
        for (size_t i = 0; i < pt->available_memory.n; i++)
                if (!ctk_fakefs_memory_mode_known(pt->available_memory.v[i]))
                        return ctk_error_set(err, EINVAL,
                                             "%s: gpu %s: unknown memory partition mode \"%s\" "
                                             "(known: NPS1, NPS2, NPS4, NPS8)",
                                             CTK_CUT(p->path), CTK_CUT(g->pci), CTK_CUT(pt->available_memory.v[i]));
        if (!ctk_strv_contains(&pt->available_compute, pt->compute))
                return ctk_error_set(err, EINVAL, "%s: gpu %s: compute mode %s is not in available_compute",
                                     CTK_CUT(p->path), CTK_CUT(g->pci), CTK_CUT(pt->compute));
        if (!ctk_strv_contains(&pt->available_memory, pt->memory))
                return ctk_error_set(err, EINVAL, "%s: gpu %s: memory mode %s is not in available_memory",
                                     CTK_CUT(p->path), CTK_CUT(g->pci), CTK_CUT(pt->memory));
        return 0;
}

static int check_gpu(const struct ctk_fakefs_profile *p, const struct ctk_fakefs_gpu *g, struct ctk_error **err)
{
        if (!is_amdgpu(g)) {
                if (g->partition.supported || g->nparts > 0 || g->kfd_node >= 0 || g->has_unique_id)
                        return fail(p, err, g, "only amdgpu GPUs have partitions, KFD nodes and unique ids");
                if (g->render_minor >= 0 && g->card_minor < 0)
                        return fail(p, err, g, "a render node needs a card node (card_minor)");
        } else if (g->card_minor < 0 || g->render_minor < 0) {
                return fail(p, err, g, "amdgpu GPUs need card_minor and render_minor");
        }
        if (g->render_minor >= 0 && g->render_minor < 128)
                return fail(p, err, g, "render minors start at 128");
        if (g->partition.supported && check_modes(p, g, err) < 0)
                return -1;
        int max = g->partition.supported ? ctk_fakefs_compute_partitions(g->partition.compute, g->partition.xcds) : 1;
        if (g->nparts > (size_t)max)
                return ctk_error_set(err, EINVAL, "%s: gpu %s: %zu partitions listed, mode %s has %d", CTK_CUT(p->path),
                                     CTK_CUT(g->pci), g->nparts,
                                     CTK_CUT(g->partition.supported ? g->partition.compute : "(none)"), max);
        uint32_t key = (g->bus << 5) | g->dev;
        for (size_t k = 0; k < g->nparts; k++) {
                const struct ctk_fakefs_part *pt = &g->parts[k];
                if (pt->location_id >= 0 && ((uint32_t)pt->location_id >> 3) != key)
                        return ctk_error_set(err, EINVAL,
                                             "%s: gpu %s: partition %zu: location_id %lld is not on this PCI device",
                                             CTK_CUT(p->path), CTK_CUT(g->pci), k, (long long)pt->location_id);
                if (pt->render_minor < 128)
                        return ctk_error_set(err, EINVAL, "%s: gpu %s: partition %zu: render minors start at 128",
                                             CTK_CUT(p->path), CTK_CUT(g->pci), k);
        }
        return 0;
}

struct minor_use {
        unsigned int minor;
        size_t gpu;
};

static int by_minor(const void *a, const void *b)
{
        const struct minor_use *x = a, *y = b;
        if (x->minor != y->minor)
                return x->minor < y->minor ? -1 : 1;
        return x->gpu < y->gpu ? -1 : x->gpu > y->gpu;
}

/* Every DRM minor a GPU may use (in any partition mode) belongs to it only. */
static int check_minors(const struct ctk_fakefs_profile *p, struct ctk_error **err)
{
        size_t cap = 0;
        for (size_t i = 0; i < p->ngpus; i++)
                cap += 2 * (size_t)ctk_fakefs_gpu_minor_block(&p->gpus[i]) + 2 * p->gpus[i].nparts;
        _cleanup_free_ struct minor_use *v = calloc(cap + 1, sizeof(*v));
        if (v == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        size_t n = 0;
        for (size_t i = 0; i < p->ngpus; i++) {
                const struct ctk_fakefs_gpu *g = &p->gpus[i];
                size_t start = n;
                unsigned int block = ctk_fakefs_gpu_minor_block(g);
                for (unsigned int k = 0; k < block; k++) {
                        if (g->card_minor >= 0)
                                v[n++] = (struct minor_use){(unsigned int)g->card_minor + k, i};
                        if (g->render_minor >= 0)
                                v[n++] = (struct minor_use){(unsigned int)g->render_minor + k, i};
                }
                for (size_t k = 0; k < g->nparts; k++) {
                        v[n++] = (struct minor_use){(unsigned int)g->parts[k].render_minor, i};
                        if (g->parts[k].card_minor >= 0)
                                v[n++] = (struct minor_use){(unsigned int)g->parts[k].card_minor, i};
                }
                for (size_t a = start; a < n; a++)
                        if (v[a].minor > CTK_FAKEFS_MAX_MINOR)
                                return fail(p, err, g, "DRM minors of its partitions go beyond the limit");
        }
        if (n > 1) /* (qsort wants an array, even of none) */
                qsort(v, n, sizeof(*v), by_minor);
        for (size_t i = 1; i < n; i++) {
                if (v[i].minor == v[i - 1].minor && v[i].gpu != v[i - 1].gpu)
                        return ctk_error_set(err, EINVAL,
                                             "%s: gpus %s and %s both use DRM minor %u (a partition-capable GPU "
                                             "reserves %d card and %d render minors)",
                                             CTK_CUT(p->path), CTK_CUT(p->gpus[v[i - 1].gpu].pci),
                                             CTK_CUT(p->gpus[v[i].gpu].pci), v[i].minor, CTK_FAKEFS_MAX_PARTITIONS,
                                             CTK_FAKEFS_MAX_PARTITIONS);
        }
        return 0;
}

static bool has_computed_keys(const struct ctk_fakefs_props *t)
{
        for (size_t i = 0; i < t->n; i++)
                if (t->v[i].value == NULL)
                        return true;
        return false;
}

/* Is node one of the profile's KFD nodes (a CPU node, a GPU's, a captured partition's)? */
static const char *node_owner(const struct ctk_fakefs_profile *p, int node)
{
        for (size_t i = 0; i < p->ncpus; i++)
                if (p->cpus[i].kfd_node == node)
                        return "cpu";
        for (size_t i = 0; i < p->ngpus; i++) {
                if (p->gpus[i].kfd_node == node)
                        return "gpu";
                for (size_t k = 0; k < p->gpus[i].nparts; k++)
                        if (p->gpus[i].parts[k].kfd_node == node)
                                return "gpu";
        }
        return NULL;
}

/* Every link of x names a KFD node of the profile other than self. */
static int check_extra(const struct ctk_fakefs_profile *p, const struct ctk_fakefs_node_extra *x, int self,
                       const char *what, struct ctk_error **err)
{
        const struct ctk_fakefs_links *l[2] = {&x->io, &x->p2p};
        static const char *const names[2] = {"io_links", "p2p_links"};
        for (int i = 0; i < 2; i++)
                for (size_t r = 0; r < l[i]->n; r++) {
                        int to = l[i]->v[r].node;
                        if (to == self)
                                return ctk_error_set(err, EINVAL, "%s: %s: %s links KFD node %d to itself", p->path,
                                                     what, names[i], to);
                        if (node_owner(p, to) == NULL)
                                return ctk_error_set(err, EINVAL,
                                                     "%s: %s: %s names KFD node %d, which the profile does not have "
                                                     "(link only to cpu_nodes, GPUs' kfd_node and partitions)",
                                                     p->path, what, names[i], to);
                }
        return 0;
}

static int check_topology(const struct ctk_fakefs_profile *p, struct ctk_error **err)
{
        char what[96];
        for (size_t i = 0; i < p->ncpus; i++) {
                (void)snprintf(what, sizeof(what), "cpu_nodes[%zu] (KFD node %d)", i, p->cpus[i].kfd_node);
                if (check_extra(p, &p->cpus[i].extra, p->cpus[i].kfd_node, what, err) < 0)
                        return -1;
        }
        for (size_t i = 0; i < p->ngpus; i++) {
                const struct ctk_fakefs_gpu *g = &p->gpus[i];
                const char *owner = g->numa_node >= 0 ? node_owner(p, g->numa_node) : "cpu";
                if (owner == NULL || strcmp(owner, "cpu") != 0)
                        return ctk_error_set(err, EINVAL, "%s: gpu %s: numa_node %d is not one of cpu_nodes", p->path,
                                             g->pci, g->numa_node);
                (void)snprintf(what, sizeof(what), "gpu %s", g->pci);
                if (check_extra(p, &g->extra, g->kfd_node, what, err) < 0)
                        return -1;
                for (size_t k = 0; k < g->nparts; k++) {
                        (void)snprintf(what, sizeof(what), "gpu %s: partitions[%zu]", g->pci, k);
                        if (check_extra(p, &g->parts[k].extra, g->parts[k].kfd_node, what, err) < 0)
                                return -1;
                }
        }
        return 0;
}

int ctk_fakefs_profile_check(struct ctk_fakefs_profile *p, struct ctk_error **err)
{
        for (size_t i = 0; i < p->ncpus; i++) {
                if (has_computed_keys(p->cpus[i].template))
                        return ctk_error_set(err, EINVAL,
                                             "%s: cpu_nodes[%zu]: its kfd_template has null (computed) keys, "
                                             "which only GPU nodes have",
                                             CTK_CUT(p->path), i);
                for (size_t j = 0; j < i; j++)
                        if (p->cpus[j].kfd_node == p->cpus[i].kfd_node)
                                return ctk_error_set(err, EINVAL, "%s: cpu_nodes: node %d is listed twice",
                                                     CTK_CUT(p->path), p->cpus[i].kfd_node);
        }
        if (p->ngpus > 1) /* (no array at all without GPUs) */
                qsort(p->gpus, p->ngpus, sizeof(*p->gpus), by_pci);
        for (size_t i = 0; i < p->ngpus; i++) {
                if (i > 0 && by_pci(&p->gpus[i - 1], &p->gpus[i]) == 0)
                        return ctk_error_set(err, EINVAL, "%s: two GPUs at PCI address %s", CTK_CUT(p->path),
                                             CTK_CUT(p->gpus[i].pci));
                if (check_gpu(p, &p->gpus[i], err) < 0)
                        return -1;
        }
        if (check_minors(p, err) < 0)
                return -1;
        return check_topology(p, err);
}
