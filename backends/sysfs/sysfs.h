/* The real-host backend: sysfs and /dev below a root directory. */
#ifndef CTK_BACKENDS_SYSFS_H
#define CTK_BACKENDS_SYSFS_H

#include "backends/sysfs/resolve.h"
#include "core/device/device.h"

/* ctk_sysfs_backend_new (declared in backends/open.h) with an explicit
 * resolution mode; tests use CTK_RESOLVE_MANUAL to cover the fallback walk. */
int ctk_sysfs_backend_new_mode(const char *root, enum ctk_resolve_mode mode, struct ctk_backend **out,
                               struct ctk_error **err);

#endif
