/* The GPU tracker on the container create and delete path.
 *
 * create/run: when the tracker is enabled, the container is recorded as a
 * user of the GPUs it asked for, all or nothing; a refusal fails the create
 * with the tracker's one-line reason, before the spec is edited; a
 * recorded container's spec gets the release hook.  The poststop
 * hook (`amd-ctk gpu-tracker release ID`, by absolute path) makes runc
 * release the GPUs when it destroys the container; for a container that
 * holds none it changes nothing.
 * delete: the GPUs are released once the low-level runtime has deleted the
 * container.  With the tracker disabled (no marker) none of this reads or
 * writes any tracker file. */
#ifndef RT_TRACKER_GLUE_H
#define RT_TRACKER_GLUE_H

#include <jansson.h>
#include <stdbool.h>

#include "args.h"
#include "core/config/config.h"
#include "core/base/base.h"
#include "core/device/device.h"

/* Records a->id as the user of the GPUs of sel.  *tracked says whether
 * anything was recorded (to release if a later step fails).  runtime is the
 * low-level runtime's path (its default --root depends on it). */
int rt_tracker_reserve(const struct ctk_config *cfg, const struct rt_args *a, const char *runtime,
                       const struct ctk_gpu_list *gpus, const struct ctk_selection *sel, bool *tracked,
                       struct ctk_error **err);

/* Adds to hooks.poststop: [amd-ctk, (--config FILE,) gpu-tracker, release, ID].
 * Without an amd-ctk to run (config ctk-path, else the one beside this
 * program) nothing is added and a warning is logged: delete still releases. */
int rt_tracker_add_release_hook(json_t *spec, const struct ctk_config *cfg, const struct rt_args *a,
                                struct ctk_error **err);

/* Forgets the container's GPUs; failures are logged, not fatal. */
void rt_tracker_release(const struct ctk_config *cfg, const char *id);

/* delete with the tracker enabled: runs the low-level runtime as a child
 * (args as for rt_lowlevel_exec), then releases the container's GPUs if it
 * no longer exists.  Returns the exit status to exit with, or -1 when the
 * tracker is disabled or holds nothing for the container (then exec as
 * usual: no fork, no lock). */
int rt_tracker_delete(const struct ctk_config *cfg, const struct rt_args *a, const char *runtime, char *const args[],
                      int n);

#endif
