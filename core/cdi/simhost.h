/* A simulated host's sysfs in containers.  When the toolkit's root is an
 * amd-ctk-fakefs FUSE mount (a simulated host, docs/simulation.md), a
 * container given its GPUs also gets the host's sys/class, sys/devices,
 * sys/bus and sys/module bound read-only over its own /sys's: there ROCm's
 * tools find the host they would find on a real one (the simulator answers
 * for amdkfd's device cgroup check).  A real host (root "/", or any root
 * that is not such a mount) gets nothing: its containers' sysfs is the
 * kernel's. */
#ifndef CTK_CDI_SIMHOST_H
#define CTK_CDI_SIMHOST_H

#include <jansson.h>
#include <stdbool.h>

#include "core/base/base.h"
#include "edits.h"

/* Is root a simulated host (an amd-ctk-fakefs FUSE mount)? */
bool ctk_cdi_simhost_is(const char *root);
/* *out: the mounts (CDI mount objects) for a simulated host below root, or
 * NULL for none. */
int ctk_cdi_simhost_mounts(const char *root, json_t **out, struct ctk_error **err);
/* Appends those mounts to e (borrowed from *keep, which the caller frees
 * after e). */
int ctk_cdi_simhost_edits(const char *root, struct ctk_cdi_edits *e, json_t **keep, struct ctk_error **err);

#endif
