/* One locked read-modify-write of the GPU tracker state (internal to the
 * tracker operations). */
#ifndef CTK_TRACKER_SESSION_H
#define CTK_TRACKER_SESSION_H

#include <stdbool.h>

#include "core/base/base.h"
#include "tracker.h"

struct ctk_tracker_session {
        int lock_fd;
        struct ctk_tracker_state st;
        bool missing; /* no state file (or, after a failed load, no usable one) */
        bool enabled; /* the marker exists: the tracker is enabled (st.enabled follows it) */
        bool dirty;   /* st differs from the file */
};

/* Creates the state directory if needed (ctk_tracker_dir_make), takes the
 * lock, looks at the marker and loads the state (a corrupt one is an
 * error, with s->missing set; *s is usable for ctk_tracker_session_end in
 * every case). */
int ctk_tracker_session_begin(struct ctk_tracker *t, struct ctk_tracker_session *s, struct ctk_error **err);

/* Initializes a missing state and marks it dirty: enabled, for gpus, when
 * the marker says so (gpus NULL: left missing, for the next command that
 * has the host's GPUs), else disabled without GPUs. */
int ctk_tracker_session_init_missing(struct ctk_tracker *t, struct ctk_tracker_session *s,
                                     const struct ctk_gpu_list *gpus, struct ctk_error **err);

/* Drops allocations of an earlier boot, and of containers that are gone
 * among those holding a GPU i with interest[i] (NULL: all). */
int ctk_tracker_session_refresh(struct ctk_tracker *t, struct ctk_tracker_session *s, const bool *interest,
                                struct ctk_error **err);

/* interest[] for the GPUs of idx[0..n) (only the exclusive ones when
 * only_exclusive); calloc'ed, NULL on ENOMEM. */
bool *ctk_tracker_session_interest(const struct ctk_tracker_session *s, const size_t *idx, size_t n,
                                   bool only_exclusive);

/* Fails with CTK_TRACKER_INVALID_MSG (ESTALE) if gpus are not the recorded
 * GPUs, or EAGAIN if gpus is NULL. */
int ctk_tracker_session_check_gpus(struct ctk_tracker_session *s, const struct ctk_gpu_list *gpus,
                                   struct ctk_error **err);

/* Writes the state if dirty. */
int ctk_tracker_session_commit(struct ctk_tracker *t, struct ctk_tracker_session *s, struct ctk_error **err);

/* Unlocks and frees. */
void ctk_tracker_session_end(struct ctk_tracker_session *s);
#define _cleanup_tracker_session_ __attribute__((cleanup(ctk_tracker_session_end)))

#endif
