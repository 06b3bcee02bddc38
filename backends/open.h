/* Choosing a backend for amd-ctk: --profile FILE (in-memory fakefs) or
 * --root DIR (sysfs below DIR); default: sysfs at "/".  Part of the
 * simulator's library (libctk-sim.a): amd-container-runtime, which carries
 * no simulator, opens the sysfs backend itself (backends/sysfs/sysfs.h). */
#ifndef CTK_BACKENDS_OPEN_H
#define CTK_BACKENDS_OPEN_H

#include "core/device/device.h"

/* Exactly one of root/profile may be non-NULL (both NULL: real host "/"). */
int ctk_backend_open(const char *root, const char *profile, struct ctk_backend **out, struct ctk_error **err);

/* The in-memory backend of a host profile (backends/fakefs/). */
int ctk_fakefs_backend_new(const char *profile_path, struct ctk_backend **out, struct ctk_error **err);

#endif
