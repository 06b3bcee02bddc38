/* delete with the GPU tracker enabled, in the launcher: the container's
 * GPUs are released before runc deletes it, in the background, when that
 * is safe; the delete itself costs about what a plain delete does.
 *
 * Safe means the container can never run again whatever the delete does:
 * --force is given (runc kills and removes it), or runc's state says it is
 * gone or stopped (runc_state.h; another runtime's state is not read).  The
 * tracker lock is taken, then a child holding it (the lock's descriptor
 * closes on exec in the caller) drops the container's entry from the state
 * and writes it durably, with its stdio on /dev/null, while the caller
 * execs runc at once.  So any later tracker command (status, a create's
 * allocation) sees the release.  A state that is not in our writer's form
 * is released by `amd-ctk [--config FILE] gpu-tracker release ID`.  An
 * untracked container's state is not written.  A release that fails is
 * logged (the runtime's log file) and harmless: the tracker drops
 * allocations of containers whose runc state is gone before any decision. */
#ifndef RT_RELEASE_H
#define RT_RELEASE_H

#include "core/config.h"
#include "runtime/args.h"

/* For a delete of a->id by the low-level runtime `runtime` (the tracker's
 * marker is present): 0 when the release is under way (the caller execs
 * runtime now), -1 when the full runtime has to take the call (not safe,
 * or not sure: a running container without --force, a state runc did not
 * write, no --root while $XDG_RUNTIME_DIR is set (rootless runc's default
 * root), an invalid id, the lock not taken, no fork). */
int rt_release_before_delete(const struct ctk_config *cfg, const struct rt_args *a, const char *runtime);

#endif
