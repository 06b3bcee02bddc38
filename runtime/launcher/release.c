#include "release.h"

#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/cleanup.h"
#include "core/detach.h"
#include "core/flock.h"
#include "core/log.h"
#include "core/tracker.h"
#include "core/tracker_reconcile.h"
#include "runc_state.h"
#include "runtime/lowlevel.h"

#define IDENT "amd-container-runtime"

/* Whether the container can never run again once the delete has run. */
static bool released_safely_first(const struct rt_args *a, const char *runtime)
{
        if (a->force)
                return true;
        const char *base = strrchr(runtime, '/');
        if (strcmp(base != NULL ? base + 1 : runtime, "runc") != 0)
                return false; /* only runc's state is read */
        const char *xdg = getenv("XDG_RUNTIME_DIR");
        if (a->root == NULL && xdg != NULL && xdg[0] != '\0')
                return false; /* runc may use $XDG_RUNTIME_DIR/runc (rootless) */
        const char *root = rt_lowlevel_root(a->root, runtime);
        enum rt_runc_status s = rt_runc_status(root, a->id, "/proc");
        return s == RT_RUNC_GONE || s == RT_RUNC_STOPPED;
}

/* Execs `amd-ctk [--config FILE] gpu-tracker release ID`, which reads any
 * spelling of the state; returns if it cannot. */
static void release_with_ctk(const struct ctk_config *cfg, const struct rt_args *a)
{
        _cleanup_free_ char *ctk = rt_ctk_find(cfg->ctk_path, "/proc/self/exe");
        if (ctk == NULL)
                return;
        const char *config = rt_args_config_file(a);
        char *argv[8];
        size_t n = 0;
        argv[n++] = (char *)"amd-ctk";
        if (config != NULL) {
                argv[n++] = (char *)"--config";
                argv[n++] = (char *)config;
        }
        argv[n++] = (char *)"gpu-tracker";
        argv[n++] = (char *)"release";
        argv[n++] = (char *)a->id;
        argv[n] = NULL;
        execv(ctk, argv);
}

/* The child: drops the container's entry under the lock it inherited. */
static _Noreturn void release(const struct ctk_config *cfg, const struct rt_args *a,
                              const struct ctk_tracker_paths *paths, int lock_fd)
{
        ctk_stdio_to_null();
        /* A new child preempts its parent on their CPU: let the caller
         * exec runc first (else the delete waits for this work, ~1 ms of
         * CPU for 1,000 containers tracked).  Not a lower priority: this
         * holds the tracker lock the next create waits for. */
        sched_yield();
        ctk_log_open(IDENT, cfg->log_file, ctk_log_level_or(cfg->log_level, CTK_LOG_INFO));
        _cleanup_error_ struct ctk_error *err = NULL;
        struct ctk_tracker_state st;
        bool missing;
        if (ctk_tracker_load(paths, &st, &missing, &err) < 0) {
                ctk_flock_release(lock_fd);
                release_with_ctk(cfg, a);
                ctk_log(CTK_LOG_WARNING, "container %s: GPU tracker: release failed: %s (and no amd-ctk to run)", a->id,
                        err->msg);
                _exit(1);
        }
        struct ctk_tracker_container *c = missing || !st.enabled ? NULL : ctk_tracker_state_find_container(&st, a->id);
        if (c == NULL || ctk_tracker_creator_running(c, "/proc"))
                _exit(0); /* not tracked; or being created, not deleted */
        ctk_tracker_state_release(&st, a->id);
        if (ctk_tracker_save(paths, &st, &err) < 0) {
                ctk_log(CTK_LOG_WARNING, "container %s: GPU tracker: release failed: %s", a->id, err->msg);
                _exit(1);
        }
        ctk_log(CTK_LOG_INFO, "container %s: GPU tracker: GPUs released", a->id);
        _exit(0);
}

int rt_release_before_delete(const struct ctk_config *cfg, const struct rt_args *a, const char *runtime)
{
        if (a->id == NULL || !ctk_tracker_valid_container_id(a->id) || !released_safely_first(a, runtime))
                return -1;
        struct ctk_tracker_paths paths;
        _cleanup_error_ struct ctk_error *err = NULL;
        if (ctk_tracker_paths_init(&paths, cfg->state_dir, &err) < 0)
                return -1;
        int lock_fd = ctk_flock_acquire(paths.lock, CTK_TRACKER_LOCK_TIMEOUT_MS, &err);
        pid_t child = lock_fd >= 0 ? fork() : -1;
        if (child == 0)
                release(cfg, a, &paths, lock_fd);
        ctk_tracker_paths_clear(&paths);
        if (child < 0) {
                ctk_flock_release(lock_fd);
                return -1;
        }
        return 0; /* lock_fd closes when the caller execs */
}
