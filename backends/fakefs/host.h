/* A simulated host: a profile, its mutable state (partition modes,
 * hot-unplugged GPUs) and the current tree.
 *
 * Changes build a complete new tree and swap it in under a lock, so a
 * reader holding a snapshot (ctk_fakefs_host_snapshot) never sees a
 * half-built tree; every change bumps the KFD generation_id.  Thread-safe. */
#ifndef CTK_FAKEFS_HOST_H
#define CTK_FAKEFS_HOST_H

#include <stdint.h>

#include "backends/fakefs/profile.h"
#include "backends/fakefs/tree.h"
#include "core/base/base.h"

struct ctk_fakefs_host;

/* Loads and checks the profile at profile_path and builds its tree in the initial state. */
int ctk_fakefs_host_new(const char *profile_path, struct ctk_fakefs_host **out, struct ctk_error **err);
/* Takes ownership of the profile (also on failure). */
int ctk_fakefs_host_new_from_profile(struct ctk_fakefs_profile *p, struct ctk_fakefs_host **out,
                                     struct ctk_error **err);
struct ctk_fakefs_host *ctk_fakefs_host_ref(struct ctk_fakefs_host *h);
void ctk_fakefs_host_unref(struct ctk_fakefs_host *h); /* NULL-safe */
static inline void ctk_fakefs_host_unrefp(struct ctk_fakefs_host **h)
{
        ctk_fakefs_host_unref(*h);
}
#define _cleanup_fakefs_host_ __attribute__((cleanup(ctk_fakefs_host_unrefp)))

/* The host's profile (borrowed). */
const struct ctk_fakefs_profile *ctk_fakefs_host_profile(const struct ctk_fakefs_host *h);

/* A reference to the current tree (release with ctk_fakefs_tree_unref). */
struct ctk_fakefs_tree *ctk_fakefs_host_snapshot(struct ctk_fakefs_host *h);

/* Switches the compute (SPX/DPX/QPX/CPX) or memory (NPS1/NPS4...) partition
 * mode of the GPU at `pci`, like writing current_*_partition: the mode is
 * matched case-insensitively (surrounding white space ignored) against the
 * GPU's available modes.  Errors: EINVAL (mode not available, GPU without
 * partition support; nothing changes), ENOENT (no such GPU), ENODEV (GPU
 * unplugged).  Setting the current mode changes nothing. */
int ctk_fakefs_host_set_compute_partition(struct ctk_fakefs_host *h, const char *pci, const char *mode,
                                          struct ctk_error **err);
int ctk_fakefs_host_set_memory_partition(struct ctk_fakefs_host *h, const char *pci, const char *mode,
                                         struct ctk_error **err);

/* Hot-unplug / re-plug a GPU (any vendor) with all its nodes; ENOENT if the
 * profile has no GPU at `pci`.  Unplugging an absent GPU (or plugging a
 * present one) changes nothing. */
int ctk_fakefs_host_unplug(struct ctk_fakefs_host *h, const char *pci, struct ctk_error **err);
int ctk_fakefs_host_plug(struct ctk_fakefs_host *h, const char *pci, struct ctk_error **err);

/* PCI addresses of the unplugged GPUs, in PCI order (appended to out). */
int ctk_fakefs_host_unplugged(struct ctk_fakefs_host *h, struct ctk_strv *out);

#endif
