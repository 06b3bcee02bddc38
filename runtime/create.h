/* `create` / `run`: give the container the GPUs its spec asks for. */
#ifndef RT_CREATE_H
#define RT_CREATE_H

#include <stdbool.h>

#include "args.h"
#include "core/config/config.h"
#include "core/base/base.h"
#include "core/device/device.h"

/* Reads the bundle's spec; when it requests GPUs (AMD_VISIBLE_DEVICES,
 * DOCKER_RESOURCE_<KIND>), adds their device nodes, cgroup rules and groups
 * and rewrites the spec atomically.  With nothing requested (or "none") the
 * spec is not written.  On failure the spec is unchanged.
 * With the GPU tracker enabled, the GPUs are recorded first (all or
 * nothing) and the spec gets the release hook. */
int rt_create_prepare(const struct ctk_config *cfg, const struct rt_args *a, const char *runtime,
                      struct ctk_error **err);

#endif
