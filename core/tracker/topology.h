/* Detecting that the host's GPUs are no longer the ones the tracker state
 * recorded (repartition, unplug, a GPU swapped into another slot).
 *
 * Index i is "the same GPU" when the GPU count is unchanged and, for every
 * index, the PCI address of the physical GPU, the partition mode it reports
 * ("spx_nps1", ...) and the KFD unique id (UUID) are unchanged.  These are
 * stable across reboots on an unchanged host.  DRM paths are recorded but
 * deliberately not compared: card and render numbers are assigned at probe
 * time and may change across a reboot (or a driver reload) without any
 * change of the GPUs, and the index order does not depend on them being
 * stable.  (The Go toolkit compares DRM paths and partition strings only, so
 * it misses a GPU swap and invalidates on renumbering.) */
#ifndef CTK_TRACKER_TOPOLOGY_H
#define CTK_TRACKER_TOPOLOGY_H

#include <stdbool.h>

#include "core/device/device.h"
#include "state.h"

/* The message shown when the recorded GPUs no longer match (the Go
 * toolkit's text, as in the user documentation). */
#define CTK_TRACKER_INVALID_MSG "GPUs info is invalid. Please reset GPU Tracker."

/* True if the recorded GPUs are the host's GPUs.  Otherwise, when why is not
 * NULL, *why (owned by the caller, may stay NULL on ENOMEM) says what
 * differs first, e.g. "GPU 2: PCI 0000:43:00.0 recorded, 0000:63:00.0 found". */
bool ctk_tracker_topology_matches(const struct ctk_tracker_state *s, const struct ctk_gpu_list *gpus, char **why);

#endif
