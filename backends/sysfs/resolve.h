/* Opening host-absolute paths below a root directory, with every symbolic
 * link (absolute or relative) resolved inside that root, as if the process
 * were chroot()ed there.  Uses openat2(RESOLVE_IN_ROOT) when the kernel has
 * it and a component-by-component walk otherwise. */
#ifndef CTK_SYSFS_RESOLVE_H
#define CTK_SYSFS_RESOLVE_H

#include <stdbool.h>

enum ctk_resolve_mode {
        CTK_RESOLVE_AUTO,   /* openat2, falling back to the walk when unavailable */
        CTK_RESOLVE_MANUAL, /* always the walk (tests, kernels without openat2) */
};

/* Opens `path` (absolute, "/" = the root itself) relative to the directory
 * rootfd with open(2) `flags` (O_CLOEXEC is added).  With O_NOFOLLOW a final
 * symbolic link is not followed (combine with O_PATH to get the link itself).
 * Returns a file descriptor, or -errno. */
int ctk_resolve_open(int rootfd, const char *path, int flags, enum ctk_resolve_mode *mode);

#endif
