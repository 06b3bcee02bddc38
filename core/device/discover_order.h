/* Internal to discovery: the index order of the GPUs discover.c finds.
 * Candidates are grouped by their KFD node's PCI location (domain, bus,
 * device), groups ranked in first-seen order, the devices of a group by
 * ascending render minor; each GPU then gets its index, group key and PCI
 * address. */
#ifndef CTK_DISCOVER_ORDER_H
#define CTK_DISCOVER_ORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/base.h"
#include "gpu.h"
#include "kfd_topology.h"

/* One device directory discovery kept. */
struct ctk_discover_candidate {
        struct ctk_gpu gpu;              /* filled as far as known */
        const struct ctk_kfd_node *node; /* topology node of the render minor */
        bool is_pci;
        size_t seq;   /* sighting order */
        size_t order; /* first-seen rank of its group */
};

/* The topology's groups (physical GPUs). */
struct ctk_discover_groups {
        uint64_t *keys;   /* distinct topology group keys, ascending */
        size_t *rank;     /* first-seen rank per key, SIZE_MAX = not seen */
        const char **bdf; /* BDF of the group's first PCI candidate */
        size_t n, seen;
};

/* The groups of topo's located nodes, none seen yet; -1 when out of memory (clear it either way). */
int ctk_discover_groups_init(struct ctk_discover_groups *g, const struct ctk_kfd_topology *topo);
/* Ranks c, the seq-th kept candidate, by its group; a PCI candidate's function name bdf
 * (borrowed until the GPUs are finished) names its group's PCI address if first. */
void ctk_discover_groups_add(struct ctk_discover_groups *g, struct ctk_discover_candidate *c, size_t seq,
                             const char *bdf);
/* Frees the groups' arrays. */
void ctk_discover_groups_clear(struct ctk_discover_groups *g);
/* Sorts c[0..n) into index order and gives each GPU its index, group key and PCI address. */
int ctk_discover_order(struct ctk_discover_candidate *c, size_t n, const struct ctk_discover_groups *g,
                       struct ctk_error **err);
/* Frees the members of c[0..n) and the array. */
void ctk_discover_candidates_free(struct ctk_discover_candidate *c, size_t n);

#endif
