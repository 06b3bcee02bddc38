/* GPU tracker use: allocation and release of GPUs by containers, and the
 * exclusive/shared policy. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/base.h"
#include "tracker.h"
#include "reconcile.h"
#include "session.h"

int ctk_tracker_set_access(struct ctk_tracker *t, const struct ctk_gpu_list *gpus, const size_t *idx, size_t n,
                           enum ctk_tracker_access access, struct ctk_tracker_access_result *r, struct ctk_error **err)
{
        r->enabled = false;
        _cleanup_tracker_session_ struct ctk_tracker_session s;
        if (ctk_tracker_session_begin(t, &s, err) < 0 || ctk_tracker_session_init_missing(t, &s, gpus, err) < 0)
                return -1;
        if (!s.enabled)
                return ctk_tracker_session_commit(t, &s, err);
        r->enabled = true;
        if (ctk_tracker_session_check_gpus(&s, gpus, err) < 0)
                return -1;
        /* Only the holders of GPUs being made exclusive matter here. */
        _cleanup_free_ bool *interest =
            ctk_tracker_session_interest(&s, idx, access == CTK_TRACKER_EXCLUSIVE ? n : 0, false);
        if (interest == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        if (ctk_tracker_session_refresh(t, &s, interest, err) < 0 ||
            ctk_tracker_state_set_access(&s.st, idx, n, access, r, err) < 0)
                return -1;
        s.dirty |= r->nchanged > 0;
        return ctk_tracker_session_commit(t, &s, err);
}

int ctk_tracker_allocate(struct ctk_tracker *t, const struct ctk_gpu_list *gpus, const struct ctk_tracker_request *req,
                         bool *tracked, struct ctk_error **err)
{
        *tracked = false;
        bool on;
        if (ctk_tracker_is_enabled(t, &on, err) < 0)
                return -1;
        if (!on)
                return 0; /* disabled: never read, lock or write anything */
        if (!ctk_tracker_valid_container_id(req->container_id))
                return ctk_error_set(err, EINVAL, "invalid container id \"%s\"",
                                     CTK_CUT(req->container_id ? req->container_id : ""));
        _cleanup_tracker_session_ struct ctk_tracker_session s;
        if (ctk_tracker_session_begin(t, &s, err) < 0)
                return -1;
        if (!s.enabled) /* (disabled meanwhile) */
                return 0;
        if (ctk_tracker_session_init_missing(t, &s, gpus, err) < 0) /* (the state file removed) */
                return -1;
        if (ctk_tracker_session_check_gpus(&s, gpus, err) < 0)
                return -1;
        /* Only holders of requested exclusive GPUs can refuse this container. */
        _cleanup_free_ bool *interest = ctk_tracker_session_interest(&s, req->idx, req->n, true);
        if (interest == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        if (ctk_tracker_session_refresh(t, &s, interest, err) < 0)
                return -1;
        struct ctk_tracker_container who = {
            .id = (char *)req->container_id,
            .runtime_root = (char *)req->runtime_root,
            .pid = req->pid,
        };
        if (req->pid > 0 && ctk_proc_start_time(t->proc_dir, req->pid, &who.pid_start) < 0)
                who.pid_start = 0;
        bool changed;
        if (ctk_tracker_state_alloc(&s.st, &who, req->idx, req->n, &changed, err) < 0)
                return -1; /* nothing is written */
        s.dirty |= changed;
        if (ctk_tracker_session_commit(t, &s, err) < 0)
                return -1;
        *tracked = req->n > 0;
        return 0;
}

int ctk_tracker_release(struct ctk_tracker *t, const char *container_id, bool *released, struct ctk_error **err)
{
        bool dummy;
        if (released == NULL)
                released = &dummy;
        *released = false;
        bool on;
        if (ctk_tracker_is_enabled(t, &on, err) < 0)
                return -1;
        if (!on)
                return 0;
        _cleanup_tracker_session_ struct ctk_tracker_session s;
        if (ctk_tracker_session_begin(t, &s, err) < 0)
                return -1;
        if (s.missing)
                return 0;
        _cleanup_free_ bool *none = ctk_tracker_session_interest(&s, NULL, 0, false);
        if (none == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        if (ctk_tracker_session_refresh(t, &s, none, err) < 0)
                return -1;
        *released = ctk_tracker_state_release(&s.st, container_id);
        s.dirty |= *released;
        return ctk_tracker_session_commit(t, &s, err);
}
