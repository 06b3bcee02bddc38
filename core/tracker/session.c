#include "session.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/base.h"
#include "reconcile.h"

int ctk_tracker_session_begin(struct ctk_tracker *t, struct ctk_tracker_session *s, struct ctk_error **err)
{
        memset(s, 0, sizeof(*s));
        s->lock_fd = -1;
        s->missing = true;
        if (ctk_tracker_dir_make(t->paths.dir, err) < 0)
                return -1;
        s->lock_fd = ctk_flock_acquire(t->paths.lock, t->lock_timeout_ms, err);
        if (s->lock_fd < 0)
                return -1;
        s->enabled = ctk_tracker_marker_exists(&t->paths); /* (under the lock: settled) */
        if (ctk_tracker_load(&t->paths, &s->st, &s->missing, err) < 0) {
                s->missing = true;
                return -1;
        }
        if (!s->missing && s->st.enabled != s->enabled) { /* the marker says */
                s->st.enabled = s->enabled;
                s->dirty = true;
        }
        return 0;
}

int ctk_tracker_session_init_missing(struct ctk_tracker *t, struct ctk_tracker_session *s,
                                     const struct ctk_gpu_list *gpus, struct ctk_error **err)
{
        if (!s->missing || (s->enabled && gpus == NULL))
                return 0;
        _cleanup_free_ char *boot = ctk_read_boot_id(t->boot_id_path);
        ctk_tracker_state_clear(&s->st);
        if (ctk_tracker_state_init(&s->st, s->enabled ? gpus : NULL, s->enabled, boot, err) < 0)
                return -1;
        s->missing = false;
        s->dirty = true;
        return 0;
}

int ctk_tracker_session_refresh(struct ctk_tracker *t, struct ctk_tracker_session *s, const bool *interest,
                                struct ctk_error **err)
{
        _cleanup_free_ char *boot = ctk_read_boot_id(t->boot_id_path);
        bool changed;
        if (ctk_tracker_apply_boot_id(&s->st, boot, &changed, err) < 0)
                return -1;
        s->dirty |= changed;
        if (ctk_tracker_reconcile(&s->st, t->proc_dir, interest) > 0)
                s->dirty = true;
        s->dirty |= ctk_tracker_state_prune(&s->st);
        return 0;
}

bool *ctk_tracker_session_interest(const struct ctk_tracker_session *s, const size_t *idx, size_t n,
                                   bool only_exclusive)
{
        bool *interest = calloc(s->st.ngpus + 1, sizeof(bool));
        if (interest == NULL)
                return NULL;
        for (size_t i = 0; i < n; i++)
                if (idx[i] < s->st.ngpus && (!only_exclusive || s->st.gpus[idx[i]].access == CTK_TRACKER_EXCLUSIVE))
                        interest[idx[i]] = true;
        return interest;
}

int ctk_tracker_session_check_gpus(struct ctk_tracker_session *s, const struct ctk_gpu_list *gpus,
                                   struct ctk_error **err)
{
        if (gpus == NULL)
                return ctk_error_set(err, EAGAIN, "the GPU Tracker was enabled meanwhile; run the command again");
        if (!ctk_tracker_topology_matches(&s->st, gpus, NULL))
                return ctk_error_set(err, ESTALE, "%s", CTK_TRACKER_INVALID_MSG);
        return 0;
}

int ctk_tracker_session_commit(struct ctk_tracker *t, struct ctk_tracker_session *s, struct ctk_error **err)
{
        if (!s->dirty)
                return 0;
        if (ctk_tracker_save(&t->paths, &s->st, err) < 0)
                return -1;
        s->dirty = false;
        return 0;
}

void ctk_tracker_session_end(struct ctk_tracker_session *s)
{
        ctk_tracker_state_clear(&s->st);
        ctk_flock_release(s->lock_fd);
        s->lock_fd = -1;
}
