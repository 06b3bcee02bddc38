/* Mode cdi's freshness rule: does the spec of our GPUs still describe the
 * host, checked on every create without discovery (no walk of /sys):
 *
 *   1. the card and render nodes under /dev/dri (names, and numbers as
 *      stat sees them through the backend) are exactly those the devices
 *      of the kind name (by hostPath, else path), numbers equal where the
 *      spec states them; a node on the host but not in the spec counts
 *      only when it is an AMD GPU's (its device is an amdgpu_xcp partition
 *      or has PCI vendor 0x1002: two reads of /sys for such a node only),
 *      so another vendor's GPU beside ours does not make the spec stale;
 *   2. every node of the requested devices outside /dev/dri (/dev/kfd)
 *      exists, and type, numbers, mode and owner are what the spec states.
 *
 * A repartition adds or removes render nodes (rule 1), a driver reload
 * renumbers them (rule 1), a changed /dev/kfd or node mode shows in
 * rule 2.  Not seen: a change that keeps every node, its numbers and
 * owner, e.g. GPUs swapped between PCI slots with the same numbers, or
 * another UUID behind the same nodes: `amd-ctk cdi validate` compares
 * everything, through discovery. */
#ifndef CTK_CDI_STALE_H
#define CTK_CDI_STALE_H

#include "cache.h"
#include "core/base/base.h"
#include "core/device/device.h"
#include "resolve.h"

/* Rule 1: *why (malloc'ed) is NULL when the devices of kind in the cache
 * describe the host's /dev/dri, else the first difference, one line
 * ("/dev/dri/renderD131 is on this host but not in the spec (and 3 more
 * differences)"). */
int ctk_cdi_stale_dri(const struct ctk_cdi_cache *cache, const char *kind, struct ctk_backend *b, char **why,
                      struct ctk_error **err);
/* Rule 2, for the devices of kind a request resolved to: *why as above. */
int ctk_cdi_stale_requested(const struct ctk_cdi_resolved *req, const char *kind, struct ctk_backend *b, char **why,
                            struct ctk_error **err);

#endif
