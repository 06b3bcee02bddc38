/* Internal to the KFD capture importer (import.c writes the profile JSON):
 * what the capture holds, grouped.  GPU nodes become physical GPUs (by
 * domain and the bus/device bits of location_id, in PCI order) and their
 * partitions (function bits, then render minor); each device id gets one
 * template node and name (gfx<version>, with -0x<device> when two devices
 * share a version). */
#ifndef CTK_FAKEFS_IMPORT_GROUP_H
#define CTK_FAKEFS_IMPORT_GROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "backends/fakefs/kfd_capture.h"
#include "backends/fakefs/profile.h"
#include "core/base/base.h"

/* One physical GPU of the capture and its partitions' nodes. */
struct ctk_fakefs_import_gpu {
        unsigned int domain, bus, dev;
        const struct ctk_kfd_capture_node *parts[CTK_FAKEFS_MAX_PARTITIONS];
        size_t n;
};

/* The template of a device id: its first node and the name it is stored under. */
struct ctk_fakefs_import_template {
        unsigned int device_id;
        char name[40];
        const struct ctk_kfd_capture_node *node;
};

/* A link template, memory bank set or cache set the import names: the
 * capture's first instance of it (a set's processor_id_low relative to
 * base, the node's simd_id_base or cpu_core_id_base). */
struct ctk_fakefs_import_named {
        char name[48];
        const struct ctk_fakefs_props *props;   /* link templates */
        const struct ctk_kfd_capture_sets *set; /* bank and cache sets */
        uint64_t base;
};

/* An import in progress. */
struct ctk_fakefs_importer {
        const char *dir;
        struct ctk_kfd_capture cap;
        struct ctk_fakefs_import_gpu *groups;
        size_t ngroups;
        struct ctk_fakefs_import_template *tmpls; /* room for one per node */
        size_t ntmpls;
        struct ctk_fakefs_import_named *links, *banks, *caches; /* room for one per link or node */
        size_t nlinks, nbanks, ncaches;
        int *group_of; /* by KFD node id: its GPU's index in groups, -1 for a CPU */
        bool oom;
        struct ctk_error **err;
};

/* A property of n as a number; 0 if absent or not a number. */
uint64_t ctk_fakefs_import_num(const struct ctk_kfd_capture_node *n, const char *key);
/* Is n a GPU node (drm_render_minor > 0)? */
bool ctk_fakefs_import_is_gpu(const struct ctk_kfd_capture_node *n);
/* Groups im->cap's GPU nodes into im->groups; fails (im->err) on a missing or out-of-range key. */
int ctk_fakefs_import_group(struct ctk_fakefs_importer *im);
/* The template of n's device id, made (and named) on its first node. */
const struct ctk_fakefs_import_template *ctk_fakefs_import_template_of(struct ctk_fakefs_importer *im,
                                                                       const struct ctk_kfd_capture_node *n);
/* The partition mode ("SPX", "DPX", "QPX", "CPX") and XCD count of a GPU
 * from its partition count and XCCs per partition. */
void ctk_fakefs_import_partition_mode(size_t parts, uint64_t xcc, unsigned int *xcds, const char **mode);

/* Names the capture's link templates (by role: cpu-cpu, cpu-gpu, gpu-cpu,
 * xgmi, xgmi-partition, p2p-...; -2, -3 for variants), bank and cache sets
 * (import_topo.c).  After ctk_fakefs_import_group. */
int ctk_fakefs_import_topo_prepare(struct ctk_fakefs_importer *im);
/* n's io_links, p2p_links, mem_banks and caches into the node object o. */
void ctk_fakefs_import_topo_node(struct ctk_fakefs_importer *im, const struct ctk_kfd_capture_node *n, json_t *o);
/* A GPU's numa_node (the CPU its partition 0 links to) into o. */
void ctk_fakefs_import_topo_numa(struct ctk_fakefs_importer *im, const struct ctk_kfd_capture_node *n, json_t *o);
/* The profile's kfd_link_templates, kfd_mem_banks and kfd_caches into root. */
void ctk_fakefs_import_topo_sets(struct ctk_fakefs_importer *im, json_t *root);
/* Frees what prepare made. */
void ctk_fakefs_import_topo_clear(struct ctk_fakefs_importer *im);

#endif
