/* Finding the low-level OCI runtime (runc or crun) to hand the call to. */
#ifndef RT_LOWLEVEL_H
#define RT_LOWLEVEL_H

#include "core/error.h"

/* The default search directories appended to $PATH when missing. */
#define RT_DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/* configured: the config's runtime-path (a path, or a name looked up on
 * PATH), or NULL for the first of runc, crun.  path_env: $PATH (may be
 * NULL).  self: a path to this program (e.g. "/proc/self/exe"); a candidate
 * that is the same file (same device and inode) is skipped.  *out is
 * malloc'ed. */
int rt_lowlevel_find(const char *configured, const char *path_env, const char *self, char **out,
                     struct ctk_error **err);

/* execv()s runtime with argv[0] = its base name followed by args[0..n-1].
 * Returns only on failure. */
int rt_lowlevel_exec(const char *runtime, char *const args[], int n, struct ctk_error **err);

#endif
