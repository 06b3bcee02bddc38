/* Builds the /sys and /dev tree of a profile in a given state (the layout
 * contract is described in sim/profiles/README.md).  The
 * in-memory backend, `materialize` and the FUSE server all use it. */
#ifndef CTK_FAKEFS_BUILD_H
#define CTK_FAKEFS_BUILD_H

#include "backends/fakefs/layout.h"
#include "backends/fakefs/profile.h"
#include "backends/fakefs/tree.h"
#include "core/base/base.h"

/* Builds the /sys and /dev tree of profile p in state s. */
int ctk_fakefs_build(const struct ctk_fakefs_profile *p, const struct ctk_fakefs_state *s, struct ctk_fakefs_tree **out,
                     struct ctk_error **err);

/* The KFD node name of a GPU ("aldebaran", "ip discovery"). */
const char *ctk_fakefs_kfd_name(const struct ctk_fakefs_gpu *g);

#endif
