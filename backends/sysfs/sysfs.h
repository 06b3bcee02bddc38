/* The real-host backend: sysfs and /dev below a root directory. */
#ifndef CTK_BACKENDS_SYSFS_H
#define CTK_BACKENDS_SYSFS_H

#include "backends/sysfs/resolve.h"
#include "core/device/device.h"

/* The backend of the host below root ("/": this host). */
int ctk_sysfs_backend_new(const char *root, struct ctk_backend **out, struct ctk_error **err);

/* ctk_sysfs_backend_new with an explicit resolution mode; tests use
 * CTK_RESOLVE_MANUAL to cover the fallback walk. */
int ctk_sysfs_backend_new_mode(const char *root, enum ctk_resolve_mode mode, struct ctk_backend **out,
                               struct ctk_error **err);

#endif
