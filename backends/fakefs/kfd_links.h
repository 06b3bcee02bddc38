/* The KFD topology's nodes and their links, as the driver makes them for a
 * layout: CPU nodes, then every GPU partition, each with the CPU it hangs
 * off and its io_links and p2p_links.
 *
 * A node the profile describes (a CPU node, a GPU in its profile mode, a
 * captured partition) keeps the links the profile gives it, renumbered
 * like its ends; links to a node the profile does not describe (a
 * partition made by a repartition) and every link of a node without given
 * links are derived from link templates named by role:
 *
 *   io_links   cpu-cpu (to every other CPU node), cpu-gpu (a CPU to its
 *              GPUs), gpu-cpu (a GPU to its CPU), xgmi-partition (between
 *              partitions of one GPU), xgmi (between GPUs of one XGMI hive:
 *              the same non-zero hive_id)
 *   p2p_links  p2p-cpu-gpu (a CPU to the GPUs of other CPUs), p2p-gpu-cpu
 *              (a GPU to other CPUs), p2p-gpu-gpu (GPUs without an io_link
 *              between them), only where the profile defines the template
 *
 * The io_links templates are built in (values of the real captures); a
 * profile's kfd_link_templates of the same name take their place.  Links
 * are listed by the node at their other end, ascending, as the driver
 * lists them. */
#ifndef CTK_FAKEFS_KFD_LINKS_H
#define CTK_FAKEFS_KFD_LINKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/fakefs/layout.h"
#include "backends/fakefs/profile.h"
#include "core/base/base.h"

/* The built-in link templates: how many, and a copy of the i-th. */
size_t ctk_fakefs_builtin_link_count(void);
int ctk_fakefs_builtin_link(size_t i, char **name, struct ctk_fakefs_props *props);

struct ctk_fakefs_link {
        int to;
        const struct ctk_fakefs_props *props; /* the template's */
};

struct ctk_fakefs_link_list {
        struct ctk_fakefs_link *v;
        size_t n;
};

struct ctk_fakefs_topo_node {
        int node;         /* the KFD node id */
        int profile_node; /* the profile's id for it; -1: made by a repartition */
        bool gpu;
        const struct ctk_fakefs_plan_gpu *pg; /* GPU nodes: its GPU and partition */
        size_t k;
        int cpu;          /* a GPU's CPU node; a CPU's own id */
        uint64_t hive_id; /* GPU nodes */
        const struct ctk_fakefs_node_extra *extra;
        const struct ctk_fakefs_props *template, *props, *part_props; /* what its properties file renders */
        struct ctk_fakefs_link_list io, p2p;
};

struct ctk_fakefs_topo {
        struct ctk_fakefs_topo_node *v; /* CPU nodes, then GPU nodes in plan order */
        size_t n;
};

/* The nodes and links of plan (p's layout in some state). */
int ctk_fakefs_topo_make(const struct ctk_fakefs_profile *p, const struct ctk_fakefs_plan *plan,
                         struct ctk_fakefs_topo *out, struct ctk_error **err);
void ctk_fakefs_topo_clear(struct ctk_fakefs_topo *t);

/* A link's properties file: the template's keys in order, node_from and
 * node_to after version_minor (first without it). */
int ctk_fakefs_link_render(const struct ctk_fakefs_props *tmpl, int from, int to, char **out, size_t *len,
                           struct ctk_error **err);

#endif
