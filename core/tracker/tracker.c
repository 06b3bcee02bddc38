/* GPU tracker administration: enable, disable, reset, status. */
#include "tracker.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/base.h"
#include "reconcile.h"
#include "session.h"

int ctk_tracker_new(const struct ctk_tracker_opts *opts, struct ctk_tracker **out, struct ctk_error **err)
{
        struct ctk_tracker_opts none = {0};
        if (opts == NULL)
                opts = &none;
        struct ctk_tracker *t = calloc(1, sizeof(*t));
        if (t == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        const char *dir = opts->state_dir != NULL ? opts->state_dir : CTK_DEFAULT_STATE_DIR;
        if (ctk_tracker_paths_init(&t->paths, dir, err) < 0) {
                free(t);
                return -1;
        }
        t->boot_id_path = strdup(opts->boot_id_path != NULL ? opts->boot_id_path : CTK_BOOT_ID_PATH);
        t->proc_dir = strdup(opts->proc_dir != NULL ? opts->proc_dir : "/proc");
        t->lock_timeout_ms = opts->lock_timeout_ms != 0 ? opts->lock_timeout_ms : CTK_TRACKER_LOCK_TIMEOUT_MS;
        if (t->boot_id_path == NULL || t->proc_dir == NULL) {
                ctk_tracker_free(t);
                return ctk_error_set(err, ENOMEM, "out of memory");
        }
        *out = t;
        return 0;
}

void ctk_tracker_free(struct ctk_tracker *t)
{
        if (t == NULL)
                return;
        ctk_tracker_paths_clear(&t->paths);
        free(t->boot_id_path);
        free(t->proc_dir);
        free(t);
}

int ctk_tracker_is_enabled(struct ctk_tracker *t, bool *enabled, struct ctk_error **err)
{
        return ctk_tracker_marker_check(t->paths.dir, t->paths.enabled, enabled, err);
}

int ctk_tracker_init(struct ctk_tracker *t, struct ctk_error **err)
{
        _cleanup_tracker_session_ struct ctk_tracker_session s;
        if (ctk_tracker_session_begin(t, &s, err) < 0 || ctk_tracker_session_init_missing(t, &s, NULL, err) < 0)
                return -1;
        return ctk_tracker_session_commit(t, &s, err);
}

bool ctk_tracker_may_hold(struct ctk_tracker *t, const char *container_id)
{
        bool on;
        _cleanup_error_ struct ctk_error *err = NULL;
        if (ctk_tracker_is_enabled(t, &on, &err) < 0)
                return true; /* the locked path tells */
        if (!on)
                return false;
        _cleanup_free_ char *text = NULL, *quoted = NULL;
        size_t len;
        if (ctk_file_read(t->paths.state, CTK_TRACKER_STATE_MAX, CTK_READ_NOFOLLOW, &text, &len, &err) < 0)
                return err->code != ENOENT; /* unreadable: the locked path tells */
        /* (an escape in the text could spell the id differently) */
        if (memchr(text, '\\', len) != NULL)
                return true;
        if (asprintf(&quoted, "\"%s\"", container_id) < 0) {
                quoted = NULL;
                return true;
        }
        return memmem(text, len, quoted, strlen(quoted)) != NULL;
}

bool ctk_tracker_is_tracked(struct ctk_tracker *t, const char *container_id)
{
        if (!ctk_tracker_may_hold(t, container_id))
                return false;
        _cleanup_tracker_state_ struct ctk_tracker_state st = {0};
        _cleanup_error_ struct ctk_error *err = NULL;
        bool missing;
        if (ctk_tracker_load(&t->paths, &st, &missing, &err) < 0 || missing)
                return false;
        return ctk_tracker_state_find_container(&st, container_id) != NULL;
}

/* Replaces the session's state by a fresh one. */
static int fresh(struct ctk_tracker *t, struct ctk_tracker_session *s, const struct ctk_gpu_list *gpus, bool enabled,
                 struct ctk_error **err)
{
        _cleanup_free_ char *boot = ctk_read_boot_id(t->boot_id_path);
        ctk_tracker_state_clear(&s->st);
        if (ctk_tracker_state_init(&s->st, gpus, enabled, boot, err) < 0)
                return -1;
        s->missing = false;
        s->dirty = true;
        return 0;
}

/* Begins a session in which a state that cannot be read is not an error
 * (what enable, disable and reset, its fixes, need): it is in *load_err
 * (may be NULL), and s->missing is set. */
static int begin_any_state(struct ctk_tracker *t, struct ctk_tracker_session *s, struct ctk_error **load_err,
                           struct ctk_error **err)
{
        _cleanup_error_ struct ctk_error *e = NULL;
        if (ctk_tracker_session_begin(t, s, &e) == 0)
                return 0;
        if (s->lock_fd < 0) {
                *err = ctk_steal(&e);
                return -1;
        }
        if (load_err != NULL)
                *load_err = ctk_steal(&e);
        return 0;
}

int ctk_tracker_enable(struct ctk_tracker *t, const struct ctk_gpu_list *gpus, bool *changed, struct ctk_error **err)
{
        *changed = false;
        _cleanup_tracker_session_ struct ctk_tracker_session s;
        _cleanup_error_ struct ctk_error *load_err = NULL;
        if (begin_any_state(t, &s, &load_err, err) < 0)
                return -1;
        if (s.enabled && load_err != NULL) { /* (reset is the fix) */
                *err = ctk_steal(&load_err);
                return -1;
        }
        if (s.enabled) /* a missing state is made for the host's GPUs */
                return ctk_tracker_session_init_missing(t, &s, gpus, err) < 0 ? -1
                                                                              : ctk_tracker_session_commit(t, &s, err);
        if (gpus == NULL)
                return ctk_error_set(err, EINVAL, "enabling the GPU Tracker needs the host's GPUs");
        if (fresh(t, &s, gpus, true, err) < 0)
                return -1;
        /* The state first, then the marker: enabled only once both are there. */
        if (ctk_tracker_session_commit(t, &s, err) < 0 || ctk_tracker_set_marker(&t->paths, true, err) < 0)
                return -1;
        *changed = true;
        return 0;
}

int ctk_tracker_disable(struct ctk_tracker *t, bool *changed, struct ctk_error **err)
{
        _cleanup_tracker_session_ struct ctk_tracker_session s;
        if (begin_any_state(t, &s, NULL, err) < 0)
                return -1;
        *changed = s.enabled;
        /* The marker first: disabled from then on, whatever the state. */
        if (ctk_tracker_set_marker(&t->paths, false, err) < 0)
                return -1;
        s.enabled = false;
        if (s.missing) /* (unreadable: a fresh disabled one) */
                return fresh(t, &s, NULL, false, err) < 0 ? -1 : ctk_tracker_session_commit(t, &s, err);
        if (s.st.enabled) {
                s.st.enabled = false;
                s.dirty = true;
        }
        return ctk_tracker_session_commit(t, &s, err);
}

int ctk_tracker_reset(struct ctk_tracker *t, const struct ctk_gpu_list *gpus, bool *was_enabled, struct ctk_error **err)
{
        *was_enabled = false;
        _cleanup_tracker_session_ struct ctk_tracker_session s;
        if (begin_any_state(t, &s, NULL, err) < 0)
                return -1;
        /* enabled or not: the marker says, whatever became of the state */
        *was_enabled = s.enabled;
        if (*was_enabled && gpus == NULL)
                return ctk_error_set(err, EINVAL, "resetting an enabled GPU Tracker needs the host's GPUs");
        if (fresh(t, &s, gpus, *was_enabled, err) < 0)
                return -1;
        return ctk_tracker_session_commit(t, &s, err);
}

int ctk_tracker_status(struct ctk_tracker *t, const struct ctk_gpu_list *gpus, struct ctk_tracker_state *out,
                       struct ctk_error **err)
{
        memset(out, 0, sizeof(*out));
        /* Read only: a disabled tracker (no marker) is not even locked, and
         * what the refresh drops is dropped in this copy only. */
        bool on;
        if (ctk_tracker_is_enabled(t, &on, err) < 0)
                return -1;
        if (!on)
                return 0;
        _cleanup_tracker_session_ struct ctk_tracker_session s;
        if (ctk_tracker_session_begin(t, &s, err) < 0)
                return -1;
        if (!s.enabled)
                return 0;
        if (gpus == NULL)
                return ctk_tracker_session_check_gpus(&s, NULL, err); /* (enabled meanwhile) */
        if (ctk_tracker_session_init_missing(t, &s, gpus, err) < 0 ||
            ctk_tracker_session_check_gpus(&s, gpus, err) < 0 || ctk_tracker_session_refresh(t, &s, NULL, err) < 0)
                return -1;
        return ctk_tracker_state_copy(out, &s.st, err);
}
