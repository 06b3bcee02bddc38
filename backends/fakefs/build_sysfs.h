/* What a GPU's PCI device directory holds beside its identity: the PCI
 * core's attributes (subsystem ids, revision, numa_node) and, with amdgpu
 * bound, the driver's (unique_id, product strings, memory and busy
 * counters, DPM clock tables, performance level) and its hwmon directory
 * (temperatures, power, fan), each only when the profile gives it. */
#ifndef CTK_FAKEFS_BUILD_SYSFS_H
#define CTK_FAKEFS_BUILD_SYSFS_H

#include "backends/fakefs/layout.h"
#include "backends/fakefs/profile.h"
#include "backends/fakefs/tree.h"
#include "core/base/base.h"

/* The attributes of pg below its device directory dir ("/sys/devices/...");
 * *hwmon: the next hwmon number (incremented when one is made). */
int ctk_fakefs_build_gpu_sysfs(const struct ctk_fakefs_profile *p, const struct ctk_fakefs_plan_gpu *pg,
                               const char *dir, unsigned int *hwmon, struct ctk_fakefs_tree *t, struct ctk_error **err);

#endif
