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
        *enabled = false;
        if (!ctk_tracker_marker_exists(&t->paths))
                return 0;
        _cleanup_tracker_state_ struct ctk_tracker_state st = {0};
        bool missing;
        if (ctk_tracker_load(&t->paths, &st, &missing, err) < 0)
                return -1;
        *enabled = !missing && st.enabled;
        return 0;
}

int ctk_tracker_init(struct ctk_tracker *t, struct ctk_error **err)
{
        _cleanup_tracker_session_ struct ctk_tracker_session s;
        if (ctk_tracker_session_begin(t, &s, err) < 0 || ctk_tracker_session_init_missing(t, &s, err) < 0)
                return -1;
        return ctk_tracker_session_commit(t, &s, err);
}

bool ctk_tracker_may_hold(struct ctk_tracker *t, const char *container_id)
{
        if (!ctk_tracker_marker_exists(&t->paths))
                return false;
        _cleanup_free_ char *text = NULL, *quoted = NULL;
        size_t len;
        _cleanup_error_ struct ctk_error *err = NULL;
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

int ctk_tracker_enable(struct ctk_tracker *t, const struct ctk_gpu_list *gpus, bool *changed, struct ctk_error **err)
{
        *changed = false;
        _cleanup_tracker_session_ struct ctk_tracker_session s;
        if (ctk_tracker_session_begin(t, &s, err) < 0)
                return -1;
        if (!s.missing && s.st.enabled)
                return ctk_tracker_set_marker(&t->paths, true, err); /* repairs a lost marker */
        if (gpus == NULL)
                return ctk_error_set(err, EINVAL, "enabling the GPU Tracker needs the host's GPUs");
        if (fresh(t, &s, gpus, true, err) < 0)
                return -1;
        /* Marker first: marker absent must imply disabled. */
        if (ctk_tracker_set_marker(&t->paths, true, err) < 0 || ctk_tracker_session_commit(t, &s, err) < 0)
                return -1;
        *changed = true;
        return 0;
}

int ctk_tracker_disable(struct ctk_tracker *t, bool *changed, struct ctk_error **err)
{
        *changed = false;
        _cleanup_tracker_session_ struct ctk_tracker_session s;
        if (ctk_tracker_session_begin(t, &s, err) < 0)
                return -1;
        if (ctk_tracker_session_init_missing(t, &s, err) < 0)
                return -1;
        if (s.st.enabled) {
                s.st.enabled = false;
                s.dirty = true;
                *changed = true;
        }
        /* State first, then the marker. */
        if (ctk_tracker_session_commit(t, &s, err) < 0)
                return -1;
        return ctk_tracker_set_marker(&t->paths, false, err);
}

int ctk_tracker_reset(struct ctk_tracker *t, const struct ctk_gpu_list *gpus, bool *was_enabled, struct ctk_error **err)
{
        *was_enabled = false;
        _cleanup_tracker_session_ struct ctk_tracker_session s;
        _cleanup_error_ struct ctk_error *load_err = NULL;
        if (ctk_tracker_session_begin(t, &s, &load_err) < 0) {
                if (s.lock_fd < 0) {
                        *err = ctk_steal(&load_err);
                        return -1;
                }
                /* Unreadable or corrupt: resetting is the fix; the marker
                 * says whether the tracker was enabled. */
                *was_enabled = ctk_tracker_marker_exists(&t->paths);
        } else {
                *was_enabled = !s.missing && s.st.enabled;
        }
        if (*was_enabled && gpus == NULL)
                return ctk_error_set(err, EINVAL, "resetting an enabled GPU Tracker needs the host's GPUs");
        if (fresh(t, &s, gpus, *was_enabled, err) < 0)
                return -1;
        if (*was_enabled && ctk_tracker_set_marker(&t->paths, true, err) < 0)
                return -1;
        if (ctk_tracker_session_commit(t, &s, err) < 0)
                return -1;
        return *was_enabled ? 0 : ctk_tracker_set_marker(&t->paths, false, err);
}

int ctk_tracker_status(struct ctk_tracker *t, const struct ctk_gpu_list *gpus, struct ctk_tracker_state *out,
                       struct ctk_error **err)
{
        memset(out, 0, sizeof(*out));
        /* Read only: a disabled tracker (no marker) is not even locked, and
         * what the refresh drops is dropped in this copy only. */
        if (!ctk_tracker_marker_exists(&t->paths))
                return 0;
        _cleanup_tracker_session_ struct ctk_tracker_session s;
        if (ctk_tracker_session_begin(t, &s, err) < 0)
                return -1;
        if (s.missing || !s.st.enabled)
                return 0;
        if (ctk_tracker_session_check_gpus(&s, gpus, err) < 0 || ctk_tracker_session_refresh(t, &s, NULL, err) < 0)
                return -1;
        return ctk_tracker_state_copy(out, &s.st, err);
}
