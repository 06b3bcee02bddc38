/* The state of one create/run while the runtime works out and applies what
 * the container asks for (create.c runs it; request.c gathers the request,
 * cdi_mode.c resolves it in mode cdi, gpus.c turns discovered GPUs into
 * edits).  Everything is opened or loaded on first need: a request of
 * plain tokens never reads the CDI spec directories, one of CDI names only
 * never walks /sys (unless the GPU tracker needs the topology). */
#ifndef RT_JOB_H
#define RT_JOB_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "args.h"
#include "core/base/base.h"
#include "core/cdi/cdi.h"
#include "core/config/config.h"
#include "core/device/device.h"
#include "core/oci/oci.h"

struct rt_job {
        const struct ctk_config *cfg;
        const struct rt_args *args;
        const char *runtime; /* the low-level runtime (its default --root) */
        enum ctk_config_mode mode;
        bool tracked; /* the GPU tracker recorded the selection */
        char *spec_path;
        char *data;
        size_t len;
        json_t *spec;
        struct ctk_oci_literals lits; /* what jansson could not hold of the spec's text */
        const char **env;
        size_t nenv;

        struct ctk_backend *backend; /* rt_job_backend */
        bool discovered;             /* rt_job_discover: gpus holds the host's GPUs */
        struct ctk_gpu_list gpus;

        struct ctk_selection sel;       /* GPUs named by plain tokens, resolved by discovery */
        struct ctk_strv names, sources; /* CDI names in request order, and where each came from */
        bool cache_loaded;
        struct ctk_cdi_cache cache;
        struct ctk_cdi_resolved cdi; /* the CDI names, resolved */

        struct ctk_cdi_host host;        /* the nodes of the GPUs of sel */
        struct ctk_cdi_device_list devs; /* their devices ("0", "1", ...) */
        struct ctk_cdi_edits *gpu_edits; /* what the device model gives for each */
        json_t *sim_mounts;              /* a simulated host's sysfs, borrowed by gpu_edits (simhost.h) */
        struct ctk_strv gpu_names;       /* "GPU 0", ... */
        struct ctk_cdi_origin *origins;  /* everything to apply, in order */
        size_t norigins;
        bool ours; /* AMD GPUs are involved (the seccomp NUMA rule) */
};

/* Frees everything the job holds. */
void rt_job_clear(struct rt_job *j);
/* The backend of the configuration (root, profile), opened once. */
int rt_job_backend(struct rt_job *j, struct ctk_error **err);
/* The host's GPUs, discovered once. */
int rt_job_discover(struct rt_job *j, struct ctk_error **err);
/* The spec directories (config key cdi-spec-dirs), loaded once. */
int rt_job_cache(struct rt_job *j, struct ctk_error **err);
/* The resource kinds of the configuration, NULL-terminated. */
const char *const *rt_job_kinds(const struct rt_job *j);

/* Gathers the request (request.c): plain tokens into sel (modes auto and
 * legacy: through discovery), CDI names into names (mode legacy: an
 * error), cdi.k8s.io/ annotations (not in mode legacy); in mode cdi the
 * plain tokens become amd.com/gpu names (cdi_mode.c). */
int rt_request_gather(struct rt_job *j, struct ctk_error **err);

/* Mode cdi (cdi_mode.c): resolves the request through the spec
 * directories, with the staleness rule of core/cdi/stale.h: a stale spec
 * fails the create, or is regenerated first (cdi-refresh-on-stale). */
int rt_cdi_mode_resolve(struct rt_job *j, bool plain, struct ctk_error **err);

/* The edits of the GPUs of sel by the device model (gpus.c), then those
 * of the resolved CDI names: j->origins. */
int rt_job_origins(struct rt_job *j, struct ctk_error **err);
/* The groups of those GPUs' nodes (groups.c): only those the container's
 * user namespace maps, as its ids (core/oci/idmap.h); the others are left
 * out with a warning on stderr and in the log (the log only when the
 * container keeps the user's groups, crun's keep-groups). */
int rt_job_map_groups(struct rt_job *j, struct ctk_error **err);
/* The GPU indices the tracker records (gpus.c): those of sel, and those of
 * the amd.com/gpu devices the CDI names resolved to (by index, UUID or
 * all; other kinds are not tracked).  *out is malloc'ed. */
int rt_job_tracked_indices(struct rt_job *j, struct ctk_selection *out, struct ctk_error **err);

#endif
