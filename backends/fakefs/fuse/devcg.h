/* Whether a reading process may use a GPU, as amdkfd decides it: a read of
 * a GPU's KFD topology files fails with EPERM when the reader's device
 * cgroup does not allow read and write on the GPU's DRM render node
 * (kfd_devcgroup_check_permission).  The answer is the kernel's own: a
 * probe process joins the reader's cgroups (the cgroup v1 devices
 * hierarchy's, and the cgroup2 one, whose eBPF device program the kernel
 * runs) and opens a device node of that number that it makes in a tmpfs of
 * a mount namespace of its own: ENXIO or success is allowed, EPERM denied.  One
 * probe answers for a block of 64 minors (a reader of 64 partitions' topology
 * costs one); answers are kept per (cgroup, render minor) until the cgroup
 * goes away or the host's topology changes (its generation). */
#ifndef CTK_FAKEFS_FUSE_DEVCG_H
#define CTK_FAKEFS_FUSE_DEVCG_H

#include <stdint.h>
#include <sys/types.h>

#include "core/base/base.h"

struct fakefs_devcg;

/* A checker for DRM major `major` (finds the cgroup mounts). */
int fakefs_devcg_new(unsigned int major, struct fakefs_devcg **out, struct ctk_error **err);
/* NULL-safe. */
void fakefs_devcg_free(struct fakefs_devcg *c);

/* 1: pid's cgroups allow renderD<minor> (or the kernel has no device
 * cgroup to ask), 0: they deny it, < 0: a negative errno (the reader is
 * gone: -ESRCH; the probe failed: -EIO).  Thread-safe. */
int fakefs_devcg_allowed(struct fakefs_devcg *c, pid_t pid, unsigned int minor, uint64_t generation);

#endif
