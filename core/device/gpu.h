/* The AMD GPU device model and discovery (Go toolkit compatible indexing).
 *
 * The index of a device is its position in the list returned by
 * ctk_discover_gpus(): groups (physical GPUs, keyed by KFD location_id/domain)
 * in PCI-BDF order, partitions of one GPU contiguous in ascending render-minor
 * order.  The same index is used by AMD_VISIBLE_DEVICES, CDI device names,
 * the GPU tracker and `amd-ctk gpu list`. */
#ifndef CTK_GPU_H
#define CTK_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "core/base/base.h"

struct ctk_gpu {
        size_t index;
        char *pci;        /* BDF of the physical GPU, "0000:03:00.0" (partitions report their GPU's) */
        char *group_key;  /* Go toolkit devID from the KFD topology, "0000:03:00:0" */
        char *sysfs_path; /* directory the device was found under, e.g. "/sys/devices/platform/amdgpu_xcp_3" */
        char *partition;  /* "spx_nps1", "cpx_nps4", "" (only the PCI function carries it) */
        int render_minor;
        int card_minor;      /* -1 when the device has no card node */
        struct ctk_strv drm; /* "/dev/dri/cardN", "/dev/dri/renderDM" in that order */
        uint64_t uuid;       /* KFD unique_id of the device's topology node */
        bool has_uuid;
        int kfd_node; /* KFD topology node id */
};

struct ctk_gpu_list {
        struct ctk_gpu *v;
        size_t n;
};

/* Discovers AMD GPUs through the backend.
 * Fails (code ENODEV) when the amdgpu driver is not loaded; an empty list is
 * not an error. */
int ctk_discover_gpus(struct ctk_backend *b, struct ctk_gpu_list *out, struct ctk_error **err);
void ctk_gpu_list_clear(struct ctk_gpu_list *l);
static inline void ctk_gpu_list_clearp(struct ctk_gpu_list *l)
{
        ctk_gpu_list_clear(l);
}
#define _cleanup_gpu_list_ __attribute__((cleanup(ctk_gpu_list_clearp)))

/* The card and render paths of a device ("/dev/dri/renderD128"), or NULL. */
const char *ctk_gpu_render_path(const struct ctk_gpu *g);
const char *ctk_gpu_card_path(const struct ctk_gpu *g);

/* UUIDs: shown as "0x" + upper-case hex without padding ("0x12FE4F7FDAF06B9").
 * Parsing accepts an optional 0x/0X prefix, any case and leading zeros
 * (at most 16 significant hex digits).  Returns 0, or -1 if s is not a UUID. */
#define CTK_UUID_STRLEN 19 /* "0x" + 16 digits + NUL */
int ctk_uuid_parse(const char *s, uint64_t *out);
void ctk_uuid_format(uint64_t uuid, char buf[CTK_UUID_STRLEN]);

#endif
