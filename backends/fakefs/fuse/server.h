/* The FUSE fake host: serves a host's tree under MOUNTPOINT/sys and
 * MOUNTPOINT/dev (libfuse3, multi-threaded, allow_other), with writable
 * current_*_partition files and the control file MOUNTPOINT/.fakefs/ctl. */
#ifndef CTK_FAKEFS_FUSE_SERVER_H
#define CTK_FAKEFS_FUSE_SERVER_H

#include <stdbool.h>

#include "backends/fakefs/faults.h"
#include "backends/fakefs/host.h"
#include "core/base/base.h"

struct fakefs_mount_opts {
        const char *mountpoint;
        bool foreground; /* else detach once mounted */
        const char *pidfile;
        bool debug; /* log every failed request on stderr (foreground) */
};

/* Mounts and serves until unmounted or SIGTERM/SIGINT/SIGHUP (then unmounts).
 * Without foreground, returns in the parent as soon as the mount is up
 * (0) or failed (-1 with *err); the server keeps running in a child. */
int fakefs_fuse_serve(struct ctk_fakefs_host *host, struct ctk_fakefs_faults *faults,
                      const struct fakefs_mount_opts *opts, struct ctk_error **err);

/* Is path the mount point of an amd-ctk-fakefs mount (/proc/self/mountinfo)? */
int fakefs_is_mounted(const char *path, bool *mounted, struct ctk_error **err);

/* Unmounts an amd-ctk-fakefs mount; a busy or dead mount is detached lazily. */
int fakefs_unmount(const char *path, struct ctk_error **err);

#endif
