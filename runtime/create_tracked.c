/* The allocation of a tracked create costs a locked read-modify-write of
 * the tracker state, with an fsync of the file and of its directory: about
 * a millisecond on a disk.  runc create takes some 20 ms, most of which its
 * caller spends waiting, so the allocation is made then, in this process,
 * while runc runs as its child: the recorded creating pid (this process)
 * lives until runc has written the container's state.
 *
 * A refused container exists for a moment and is deleted again before the
 * create fails; runc runs its poststop hook, the release, which finds
 * nothing to release.  stdio are inherited: a container engine passes the
 * container's stdio through the runtime. */
#include "create_tracked.h"

#include <sched.h>
#include <stdlib.h>
#include <sys/types.h>

#include "core/cleanup.h"
#include "core/log.h"
#include "lowlevel_child.h"
#include "tracker_glue.h"

/* `runtime GLOBAL-OPTIONS delete --force ID`: the options that locate the
 * container (--root, --systemd-cgroup) and runc's log (--log, --log-format)
 * are the create's.  Its output is dropped: the create's error is our one
 * line (runc would add, for one, the release hook's failure when the
 * tracker state is corrupt); runc's --log file keeps its entries, before
 * ours. */
static void delete_created(const struct rt_args *a, const char *runtime, char *const argv[])
{
        int nglobal = a->command_argi - a->runc_argi;
        _cleanup_free_ char **args = calloc((size_t)nglobal + 3, sizeof(*args));
        if (args == NULL) {
                ctk_log(CTK_LOG_WARNING, "container %s: cannot delete it: out of memory", a->id);
                return;
        }
        for (int i = 0; i < nglobal; i++)
                args[i] = argv[a->runc_argi + i];
        args[nglobal] = "delete";
        args[nglobal + 1] = "--force";
        args[nglobal + 2] = (char *)a->id;
        _cleanup_error_ struct ctk_error *err = NULL;
        pid_t child;
        if (rt_lowlevel_spawn(runtime, args, nglobal + 3, true, &child, &err) < 0) {
                ctk_log(CTK_LOG_WARNING, "container %s: cannot delete it: %s", a->id, err->msg);
                return;
        }
        int status = rt_lowlevel_wait(child);
        if (status != 0)
                ctk_log(CTK_LOG_WARNING, "container %s: %s delete --force exited with status %d", a->id, runtime,
                        status);
}

int rt_create_tracked(const struct ctk_config *cfg, const struct rt_args *a, const char *runtime,
                      const struct rt_deferred_alloc *later, char *const argv[], int argc, int *status,
                      struct ctk_error **err)
{
        pid_t child;
        if (rt_lowlevel_spawn(runtime, argv + a->runc_argi, argc - a->runc_argi, false, &child, err) < 0)
                return -1;
        bool tracked = false;
        /* runc first on a shared CPU.  (Not a lower priority for the
         * allocation: it holds the tracker lock other creates wait for.) */
        sched_yield();
        int r = rt_tracker_reserve(cfg, a, runtime, &later->gpus, &later->sel, &tracked, err);
        *status = rt_lowlevel_wait(child);
        if (r < 0) {
                if (*status == 0) { /* our error is reported once the container is gone */
                        ctk_log(CTK_LOG_INFO, "container %s: GPU tracker: not allocated, deleting the container",
                                a->id);
                        delete_created(a, runtime, argv);
                }
                return -1;
        }
        if (*status != 0 && tracked) /* a failed create keeps nothing */
                rt_tracker_release(cfg, a->id);
        return 0;
}
