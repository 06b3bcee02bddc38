/* `create` / `run`: give the container the GPUs its spec asks for. */
#ifndef RT_CREATE_H
#define RT_CREATE_H

#include <stdbool.h>

#include "args.h"
#include "core/config.h"
#include "core/error.h"
#include "core/gpu.h"
#include "core/select.h"

/* A create's GPU allocation, left for the time the low-level runtime's
 * create runs (create_tracked.h). */
struct rt_deferred_alloc {
        bool pending; /* there is one */
        struct ctk_gpu_list gpus;
        struct ctk_selection sel;
};
void rt_deferred_alloc_clear(struct rt_deferred_alloc *d);

/* Reads the bundle's spec; when it requests GPUs (AMD_VISIBLE_DEVICES,
 * DOCKER_RESOURCE_<KIND>), adds their device nodes, cgroup rules and groups
 * and rewrites the spec atomically.  With nothing requested (or "none") the
 * spec is not written.  On failure the spec is unchanged.
 * With the GPU tracker enabled, run records the GPUs first; create leaves
 * that to the caller in *later (later->pending), once the spec (with the
 * release hook) is written. */
int rt_create_prepare(const struct ctk_config *cfg, const struct rt_args *a, const char *runtime,
                      struct rt_deferred_alloc *later, struct ctk_error **err);

#endif
