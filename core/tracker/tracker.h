/* core/tracker: the GPU tracker: which containers use which GPUs, and which
 * GPUs are exclusive (at most one container) or shared; its state file, the
 * lock, allocation, release and reconciliation with the host.  Uses
 * core/base, core/json and core/device.
 *
 * Every operation that reads and changes the state does so under one flock
 * (file.h), so concurrent container creates never grant an
 * exclusive GPU twice; the state file is replaced atomically, so a killed
 * writer never leaves a torn file.  Before any decision the state is made
 * true to the host (reconcile.h): allocations of an earlier boot and
 * of containers that no longer exist are dropped.  If the host's GPUs are no
 * longer the recorded ones (topology.h), status and allocations fail
 * with CTK_TRACKER_INVALID_MSG (err->code ESTALE) until `reset`.
 *
 * A missing state is initialized (disabled) by the first command that needs
 * it.  While the tracker is disabled, allocate and release only check that
 * the "enabled" marker is absent: no lock, no read, no write. */
#ifndef CTK_TRACKER_H
#define CTK_TRACKER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/base/base.h"
#include "core/device/device.h"
#include "alloc.h"
#include "file.h"
#include "reconcile.h"
#include "state.h"
#include "topology.h"

#define CTK_TRACKER_LOCK_TIMEOUT_MS 10000

struct ctk_tracker_opts {
        const char *state_dir;        /* NULL = CTK_DEFAULT_STATE_DIR */
        const char *boot_id_path;     /* NULL = /proc/sys/kernel/random/boot_id */
        const char *proc_dir;         /* NULL = /proc (creating-process liveness) */
        unsigned int lock_timeout_ms; /* 0 = CTK_TRACKER_LOCK_TIMEOUT_MS */
};

struct ctk_tracker {
        struct ctk_tracker_paths paths;
        char *boot_id_path;
        char *proc_dir;
        unsigned int lock_timeout_ms;
};

/* A tracker handle for the state directory of opts (nothing is read or locked yet). */
int ctk_tracker_new(const struct ctk_tracker_opts *opts, struct ctk_tracker **out, struct ctk_error **err);
/* Frees the handle (NULL is fine). */
void ctk_tracker_free(struct ctk_tracker *t);
static inline void ctk_tracker_freep(struct ctk_tracker **t)
{
        ctk_tracker_free(*t);
}
#define _cleanup_tracker_ __attribute__((cleanup(ctk_tracker_freep)))

/* Whether the tracker is enabled (no lock: the file is replaced atomically).
 * A missing state is disabled; a corrupt one is an error. */
int ctk_tracker_is_enabled(struct ctk_tracker *t, bool *enabled, struct ctk_error **err);

/* Initializes a missing state (disabled; what installation does).  An
 * existing state, enabled or not, is left as it is. */
int ctk_tracker_init(struct ctk_tracker *t, struct ctk_error **err);

/* Enabling starts from a fresh state for `gpus` (the documented behaviour:
 * earlier accessibility settings and allocations are forgotten).
 * *changed = false when it was already enabled. */
int ctk_tracker_enable(struct ctk_tracker *t, const struct ctk_gpu_list *gpus, bool *changed, struct ctk_error **err);
/* *changed = false when it was already disabled (or never initialized). */
int ctk_tracker_disable(struct ctk_tracker *t, bool *changed, struct ctk_error **err);
/* Fresh state for `gpus` (NULL: none), keeping enabled/disabled.  Also the
 * fix for a corrupt state (then the marker tells whether it was enabled).
 * *was_enabled says which. */
int ctk_tracker_reset(struct ctk_tracker *t, const struct ctk_gpu_list *gpus, bool *was_enabled,
                      struct ctk_error **err);

/* A reconciled copy of the state, read under the lock; nothing is written
 * (a disabled tracker's files are not even created).  out->enabled false:
 * disabled (out has no GPUs then).  When enabled, gpus must be the host's
 * GPUs (NULL gives an EAGAIN error: the tracker was enabled meanwhile). */
int ctk_tracker_status(struct ctk_tracker *t, const struct ctk_gpu_list *gpus, struct ctk_tracker_state *out,
                       struct ctk_error **err);

/* Makes idx[0..n) exclusive or shared (r->enabled false: disabled, nothing done). */
int ctk_tracker_set_access(struct ctk_tracker *t, const struct ctk_gpu_list *gpus, const size_t *idx, size_t n,
                           enum ctk_tracker_access access, struct ctk_tracker_access_result *r, struct ctk_error **err);

struct ctk_tracker_request {
        const char *container_id;
        const size_t *idx; /* GPU indices (duplicates count once) */
        size_t n;
        const char *runtime_root; /* low-level runtime --root, NULL = unknown */
        pid_t pid;                /* process creating the container (0 = unknown) */
};

/* Records the container as a user of every requested GPU, or of none
 * (err->code EBUSY, one line naming each refused GPU and its holder; the
 * state file stays byte-identical).  *tracked says whether the container is
 * now recorded (false when the tracker is disabled: nothing read or written;
 * false on every error). */
int ctk_tracker_allocate(struct ctk_tracker *t, const struct ctk_gpu_list *gpus, const struct ctk_tracker_request *req,
                         bool *tracked, struct ctk_error **err);

/* Whether the container is recorded (no lock: the file is replaced
 * atomically; false when disabled, missing or unreadable). */
bool ctk_tracker_is_tracked(struct ctk_tracker *t, const char *container_id);

/* False only when the state certainly does not record the container: a
 * lock-free look at the text (the file is replaced atomically) for the
 * quoted id, without parsing it (for the release hook: see amd-ctk
 * gpu-tracker release). */
bool ctk_tracker_may_hold(struct ctk_tracker *t, const char *container_id);

/* Forgets every allocation of the container (idempotent; no-op when disabled). */
int ctk_tracker_release(struct ctk_tracker *t, const char *container_id, bool *released, struct ctk_error **err);

#endif
