/* Keeping the tracker state true to the host: allocations of an earlier boot
 * and of containers that no longer exist are dropped before they can block
 * anyone.
 *
 * A tracked container exists while
 *   - its low-level runtime state is there: <runtime root>/<id>/state.json
 *     (runc) or <runtime root>/<id>/status (crun); or
 *   - the process that allocated its GPUs is still running: between the
 *     allocation and runc writing state.json the container is being
 *     created.  That process is the runtime running `create`, which waits
 *     for runc's create as its child (for `run` it becomes runc by exec:
 *     the pid is the same), so it lives until state.json is written.  The
 *     pid's start time tells a reused pid apart.
 * A container whose runtime root is unknown is never dropped here (only by
 * release, reset or a reboot). */
#ifndef CTK_TRACKER_RECONCILE_H
#define CTK_TRACKER_RECONCILE_H

#include <stdbool.h>
#include <sys/types.h>

#include "core/base/base.h"
#include "state.h"

#define CTK_BOOT_ID_PATH "/proc/sys/kernel/random/boot_id"

/* The boot id read from path (trimmed, owned by the caller), or NULL when
 * it cannot be read (then allocations are never dropped for a reboot). */
char *ctk_read_boot_id(const char *path);

/* Start time (clock ticks after boot, /proc/PID/stat field 22) of a running
 * (not zombie) process; -1 if it is not running or unreadable. */
int ctk_proc_start_time(const char *proc_dir, pid_t pid, unsigned long long *out);

/* If boot_id is known and differs from the recorded one, drops every
 * allocation (accessibility is kept).  Records boot_id.  Sets *changed. */
int ctk_tracker_apply_boot_id(struct ctk_tracker_state *s, const char *boot_id, bool *changed, struct ctk_error **err);

/* Whether the process that allocated the container's GPUs (c->pid, of
 * start time c->pid_start when known) still runs: then the container is
 * being created, or its creating `runc run` still runs it. */
bool ctk_tracker_creator_running(const struct ctk_tracker_container *c, const char *proc_dir);

enum ctk_container_presence {
        CTK_CONTAINER_PRESENT,
        CTK_CONTAINER_GONE,
        CTK_CONTAINER_UNKNOWN,
};
/* Whether the container still exists, by its low-level runtime's state below its recorded root and its creating
 * process. */
enum ctk_container_presence ctk_tracker_container_presence(const struct ctk_tracker_container *c, const char *proc_dir);

/* Drops every tracked container that is gone, among those holding a GPU i
 * with interest[i] (interest NULL: all of them).  Checking only the
 * containers that could block a decision keeps the create path cheap with
 * thousands of containers tracked.  Returns the number dropped. */
size_t ctk_tracker_reconcile(struct ctk_tracker_state *s, const char *proc_dir, const bool *interest);

#endif
