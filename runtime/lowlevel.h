/* Finding the low-level OCI runtime (runc or crun) to hand the call to. */
#ifndef RT_LOWLEVEL_H
#define RT_LOWLEVEL_H

#include "core/base/base.h"

/* The default search directories appended to $PATH when missing. */
#define RT_DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/* configured: the config's runtime-path (a path, or a name looked up on
 * PATH), or NULL for the first of runc, crun.  path_env: $PATH (may be
 * NULL).  self: this program ("/proc/self/exe"); a candidate that is the
 * same file (same device and inode) is skipped.  *out is malloc'ed. */
int rt_lowlevel_find(const char *configured, const char *path_env, const char *self, char **out,
                     struct ctk_error **err);

/* The low-level runtime's state directory: root (its --root) when given,
 * else /run/crun for a runtime named crun, else /run/runc. */
const char *rt_lowlevel_root(const char *root, const char *runtime);

/* The amd-ctk to run for the GPU tracker: configured (the config's
 * ctk-path) when set, else "amd-ctk" in the directory of self_exe (a link
 * like /proc/self/exe is resolved); NULL unless that is an absolute path to
 * an executable file.  malloc'ed. */
char *rt_ctk_find(const char *configured, const char *self_exe);

/* The argument vector for runtime: argv[0] = its base name followed by
 * args[0..n-1] and NULL (the strings are not copied).  NULL on ENOMEM. */
char **rt_lowlevel_argv(const char *runtime, char *const args[], int n);

/* execv()s runtime with the arguments of rt_lowlevel_argv.  Returns only
 * on failure. */
int rt_lowlevel_exec(const char *runtime, char *const args[], int n, struct ctk_error **err);

#endif
