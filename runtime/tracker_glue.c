#include "tracker_glue.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/base.h"
#include "core/tracker/tracker.h"
#include "lowlevel.h"
#include "lowlevel_child.h"

static int open_tracker(const struct ctk_config *cfg, struct ctk_tracker **t, struct ctk_error **err)
{
        struct ctk_tracker_opts o = {.state_dir = cfg->state_dir};
        return ctk_tracker_new(&o, t, err);
}

/* Whether runc (or crun) has state for the container. */
static bool container_exists(const char *root, const char *id)
{
        struct ctk_tracker_container c = {.id = (char *)id, .runtime_root = (char *)root};
        return ctk_tracker_container_presence(&c, "/proc") != CTK_CONTAINER_GONE;
}

int rt_tracker_reserve(const struct ctk_config *cfg, const struct rt_args *a, const char *runtime,
                       const struct ctk_gpu_list *gpus, const struct ctk_selection *sel, bool *tracked,
                       struct ctk_error **err)
{
        *tracked = false;
        if (sel->kind != CTK_SELECT_LIST || sel->n == 0)
                return 0;
        if (a->id == NULL)
                return ctk_error_set(err, EINVAL, "%s without a container id", CTK_CUT(a->command_name));
        _cleanup_tracker_ struct ctk_tracker *t = NULL;
        if (open_tracker(cfg, &t, err) < 0)
                return -1;
        struct ctk_tracker_request req = {
            .container_id = a->id,
            .idx = sel->idx,
            .n = sel->n,
            .runtime_root = rt_lowlevel_root(a->root, runtime),
            .pid = getpid(), /* lives until the runtime's create is over (it becomes that runtime by
                                exec) */
        };
        if (ctk_tracker_allocate(t, gpus, &req, tracked, err) < 0)
                return -1;
        if (*tracked)
                ctk_log(CTK_LOG_INFO, "container %s: GPU tracker: GPUs allocated", CTK_CUT(a->id));
        return 0;
}

void rt_tracker_release(const struct ctk_config *cfg, const char *id)
{
        _cleanup_error_ struct ctk_error *err = NULL;
        _cleanup_tracker_ struct ctk_tracker *t = NULL;
        bool released = false;
        if (open_tracker(cfg, &t, &err) < 0 || ctk_tracker_release(t, id, &released, &err) < 0)
                ctk_log_msg(CTK_LOG_WARNING, err->msg, "container %s: GPU tracker: release failed", CTK_CUT(id));
        else if (released)
                ctk_log(CTK_LOG_INFO, "container %s: GPU tracker: GPUs released", CTK_CUT(id));
}

static bool append_string(json_t *arr, const char *s)
{
        return json_array_append_new(arr, json_string(s)) == 0;
}

int rt_tracker_add_release_hook(json_t *spec, const struct ctk_config *cfg, const struct rt_args *a,
                                struct ctk_error **err)
{
        _cleanup_free_ char *ctk = rt_ctk_find(cfg->ctk_path, "/proc/self/exe");
        if (ctk == NULL) {
                ctk_log(CTK_LOG_WARNING, "container %s: no amd-ctk for the GPU release hook (set ctk-path)",
                        CTK_CUT(a->id));
                return 0;
        }
        const char *cfg_path = rt_args_config_file(a); /* the hook reads the same file */
        _cleanup_free_ char *abs_cfg = cfg_path != NULL ? realpath(cfg_path, NULL) : NULL;
        json_t *hooks = json_object_get(spec, "hooks");
        if (hooks == NULL) {
                hooks = json_object();
                if (hooks == NULL || json_object_set_new(spec, "hooks", hooks) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
        } else if (!json_is_object(hooks)) {
                return ctk_error_set(err, EINVAL, "hooks is not an object");
        }
        json_t *post = json_object_get(hooks, "poststop");
        if (post == NULL) {
                post = json_array();
                if (post == NULL || json_object_set_new(hooks, "poststop", post) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
        } else if (!json_is_array(post)) {
                return ctk_error_set(err, EINVAL, "hooks.poststop is not an array");
        }
        json_t *hook = json_object(), *args = json_array();
        bool ok = hook != NULL && args != NULL && append_string(args, "amd-ctk");
        if (ok && abs_cfg != NULL)
                ok = append_string(args, "--config") && append_string(args, abs_cfg);
        ok = ok && append_string(args, "gpu-tracker") && append_string(args, "release") && append_string(args, a->id);
        ok = ok && json_object_set_new(hook, "path", json_string(ctk)) == 0 &&
             json_object_set_new(hook, "args", json_incref(args)) == 0 && json_array_append(post, hook) == 0;
        json_decref(args);
        json_decref(hook);
        return ok ? 0 : ctk_error_set(err, ENOMEM, "out of memory");
}

int rt_tracker_delete(const struct ctk_config *cfg, const struct rt_args *a, const char *runtime, char *const args[],
                      int n)
{
        if (a->id == NULL || a->help)
                return -1;
        _cleanup_error_ struct ctk_error *err = NULL;
        _cleanup_tracker_ struct ctk_tracker *t = NULL;
        if (open_tracker(cfg, &t, &err) < 0 || !ctk_tracker_is_tracked(t, a->id))
                return -1; /* disabled, or no GPUs recorded for it: plain exec */
        pid_t child;
        if (rt_lowlevel_spawn(runtime, args, n, false, &child, &err) < 0)
                return -1; /* the exec reports it */
        int status = rt_lowlevel_wait(child);
        if (!container_exists(rt_lowlevel_root(a->root, runtime), a->id))
                rt_tracker_release(cfg, a->id);
        return status;
}
