/* The KFD topology of a layout as the tree holds it: generation_id,
 * system_properties, and per node properties, gpu_id, name, io_links/,
 * p2p_links/, mem_banks/ and caches/ (counts in properties computed from
 * what the directories hold), and /dev/kfd. */
#ifndef CTK_FAKEFS_BUILD_KFD_H
#define CTK_FAKEFS_BUILD_KFD_H

#include "backends/fakefs/layout.h"
#include "backends/fakefs/profile.h"
#include "backends/fakefs/tree.h"
#include "core/base/base.h"

#define CTK_FAKEFS_TOPOLOGY "/sys/class/kfd/kfd/topology"

/* Adds the KFD topology of plan to t. */
int ctk_fakefs_build_kfd(const struct ctk_fakefs_profile *p, const struct ctk_fakefs_plan *plan,
                         struct ctk_fakefs_tree *t, struct ctk_error **err);

#endif
