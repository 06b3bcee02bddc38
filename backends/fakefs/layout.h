/* The host as the driver would lay it out for a given state (current
 * partition modes, hot-unplugged GPUs): partitions, DRM minors, KFD node
 * numbers, platform device names.  Pure: the builder turns it into a tree. */
#ifndef CTK_FAKEFS_LAYOUT_H
#define CTK_FAKEFS_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/fakefs/profile.h"
#include "core/base/base.h"

#define CTK_FAKEFS_MODE_LEN 8

/* What can change on a running host. */
struct ctk_fakefs_gpu_state {
        bool present;
        char compute[CTK_FAKEFS_MODE_LEN]; /* "SPX"; "" without partition support */
        char memory[CTK_FAKEFS_MODE_LEN];
};

struct ctk_fakefs_state {
        struct ctk_fakefs_gpu_state *gpus; /* parallel to profile->gpus */
        size_t ngpus;
        uint64_t changes; /* since the profile; KFD generation_id = profile's + changes */
};

/* The state the profile starts in (its modes, every GPU present and bound). */
int ctk_fakefs_state_init(const struct ctk_fakefs_profile *p, struct ctk_fakefs_state *out, struct ctk_error **err);
/* A deep copy of s. */
int ctk_fakefs_state_copy(const struct ctk_fakefs_state *s, struct ctk_fakefs_state *out, struct ctk_error **err);
/* Frees the state and zeroes it. */
void ctk_fakefs_state_clear(struct ctk_fakefs_state *s);

struct ctk_fakefs_plan_part {
        unsigned int k;
        int kfd_node; /* -1: no KFD (driver not loaded) */
        int card_minor, render_minor;
        uint32_t location_id;
        bool has_unique_id;
        uint64_t unique_id;
        uint32_t gpu_id;
        int num_xcc;                              /* -1: as the template says */
        const struct ctk_fakefs_props *overrides; /* an explicit partition's, or NULL */
        char platform[32];                        /* "amdgpu_xcp_3" for k > 0, "" for k == 0 */
};

struct ctk_fakefs_plan_gpu {
        const struct ctk_fakefs_gpu *gpu;
        bool bound;                   /* its driver is loaded and bound: DRM nodes (and KFD for amdgpu) exist */
        bool kfd;                     /* has KFD nodes */
        const char *compute, *memory; /* current modes, NULL without partition support */
        bool explicit_parts;          /* the profile's partitions (current mode = profile mode) */
        size_t nparts;
        struct ctk_fakefs_plan_part parts[CTK_FAKEFS_MAX_PARTITIONS];
};

struct ctk_fakefs_plan {
        struct ctk_fakefs_plan_gpu *gpus; /* present GPUs in PCI order */
        size_t ngpus;
        uint64_t generation_id;
};

/* What the tree holds for profile p in state s: present GPUs in PCI order and their partitions. */
int ctk_fakefs_plan_make(const struct ctk_fakefs_profile *p, const struct ctk_fakefs_state *s,
                         struct ctk_fakefs_plan *out, struct ctk_error **err);
/* Frees the plan and zeroes it. */
void ctk_fakefs_plan_clear(struct ctk_fakefs_plan *plan);

#endif
