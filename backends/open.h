/* Choosing a backend: --profile FILE (in-memory fakefs) or --root DIR
 * (sysfs below DIR); default: sysfs at "/". */
#ifndef CTK_BACKENDS_OPEN_H
#define CTK_BACKENDS_OPEN_H

#include "core/device/device.h"

/* Exactly one of root/profile may be non-NULL (both NULL: real host "/"). */
int ctk_backend_open(const char *root, const char *profile, struct ctk_backend **out, struct ctk_error **err);

/* Implemented in backends/sysfs/ and backends/fakefs/. */
int ctk_sysfs_backend_new(const char *root, struct ctk_backend **out, struct ctk_error **err);
int ctk_fakefs_backend_new(const char *profile_path, struct ctk_backend **out, struct ctk_error **err);

#endif
