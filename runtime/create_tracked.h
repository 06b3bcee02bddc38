/* `create` with the GPU tracker enabled: the GPUs are allocated while the
 * low-level runtime's create runs. */
#ifndef RT_CREATE_TRACKED_H
#define RT_CREATE_TRACKED_H

#include "args.h"
#include "core/config.h"
#include "core/error.h"
#include "create.h"

/* Runs `runtime argv[a->runc_argi..argc)` as a child, allocates the GPUs
 * of later for a->id meanwhile, waits for the child and combines:
 *   both succeeded: 0, *status = 0;
 *   the allocation was refused or failed: the container the runtime
 *     created is deleted again (`runtime GLOBAL-OPTIONS delete --force ID`)
 *     and -1 is returned with *err, the create's error to report;
 *   the runtime failed: what was allocated is released; 0, *status = its
 *     exit status (128 + N when signal N killed it).
 * -1 with *err and nothing allocated when the runtime cannot be started. */
int rt_create_tracked(const struct ctk_config *cfg, const struct rt_args *a, const char *runtime,
                      const struct rt_deferred_alloc *later, char *const argv[], int argc, int *status,
                      struct ctk_error **err);

#endif
