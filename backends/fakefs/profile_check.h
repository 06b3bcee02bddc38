/* Cross-object checks of a loaded profile: unique PCI addresses and DRM
 * minors, partition modes, explicit partitions.  Sorts the GPUs by PCI
 * address. */
#ifndef CTK_FAKEFS_PROFILE_CHECK_H
#define CTK_FAKEFS_PROFILE_CHECK_H

#include "backends/fakefs/profile.h"
#include "core/base/base.h"

/* Checks a loaded profile's consistency (addresses, numbers, partitions); one error naming the place. */
int ctk_fakefs_profile_check(struct ctk_fakefs_profile *p, struct ctk_error **err);

/* The number of DRM minors a GPU reserves for each of card and render
 * (its largest partition count; 1 without partitions). */
unsigned int ctk_fakefs_gpu_minor_block(const struct ctk_fakefs_gpu *g);

#endif
