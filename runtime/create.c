/* The create/run flow: read the spec, gather the request by mode (plain
 * GPU tokens, CDI names, cdi.k8s.io/ annotations: request.c, cdi_mode.c),
 * turn discovered GPUs into the device model's edits (gpus.c), apply those
 * and the CDI devices' edits with one applier (core/cdi/apply.h), write
 * the spec back atomically.
 *
 * A denying seccomp profile gets the NUMA syscall rule before the spec is
 * written when AMD GPUs are involved.  With the GPU tracker enabled, the
 * GPUs are recorded first (and released if a later step fails) and the
 * spec gets the release hook. */
#include "create.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bundle.h"
#include "core/base/base.h"
#include "core/device/device.h"
#include "core/oci/oci.h"
#include "core/tracker/tracker.h"
#include "job.h"
#include "tracker_glue.h"

/* Whether the GPU tracker is enabled: its marker file exists, in a state
 * directory root's alone (else no GPU container starts: whoever could
 * remove the marker could turn exclusivity off). */
static int tracker_on(const struct ctk_config *cfg, bool *on, struct ctk_error **err)
{
        _cleanup_free_ char *marker = ctk_str_concat(cfg->state_dir, "/" CTK_TRACKER_ENABLED_FILE, NULL);
        if (marker == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        return ctk_tracker_marker_check(cfg->state_dir, marker, on, err);
}

static int write_spec(struct rt_job *j, struct ctk_error **err)
{
        size_t len;
        _cleanup_free_ char *text = ctk_oci_spec_encode(j->spec, &j->lits, &len);
        if (text == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        return ctk_file_write_atomic(j->spec_path, text, len, 0644, err);
}

/* A denying seccomp profile keeps its rules and gains one that allows the
 * NUMA memory-policy syscalls GPU code needs (config key seccomp-numa). */
static int allow_numa_syscalls(struct rt_job *j, bool *changed, struct ctk_error **err)
{
        *changed = false;
        if (!j->cfg->seccomp_numa)
                return 0;
        if (ctk_seccomp_numa_edit_spec(j->spec, changed, err) < 0)
                return ctk_error_prefix(err, "invalid container spec: %s", CTK_CUT(j->spec_path));
        if (*changed)
                ctk_log(CTK_LOG_INFO, "container %s: seccomp profile: allowed the NUMA memory-policy syscalls",
                        CTK_CUT(j->args->id != NULL ? j->args->id : "?"));
        return 0;
}

/* "GPUs 0,2; CDI devices a, b" for the log (after rt_job_origins). */
static char *describe(const struct rt_job *j)
{
        char *s = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&s, &len);
        if (f == NULL)
                return NULL;
        if (j->gpu_names.n > 0)
                fputs(j->gpu_names.v[0], f);
        for (size_t i = 0; i < j->names.n; i++)
                fprintf(f, "%s%s", i == 0 ? (j->gpu_names.n > 0 ? "; CDI devices " : "CDI devices ") : ", ",
                        j->names.v[i]);
        return fclose(f) == 0 ? s : NULL;
}

static int inject(struct rt_job *j, struct ctk_error **err)
{
        struct ctk_selection tracked = {0};
        bool on;
        if (tracker_on(j->cfg, &on, err) < 0 || (on && rt_job_tracked_indices(j, &tracked, err) < 0))
                return -1;
        int r = rt_tracker_reserve(j->cfg, j->args, j->runtime, &j->gpus, &tracked, &j->tracked, err);
        ctk_selection_clear(&tracked);
        if (r < 0 || rt_job_origins(j, err) < 0)
                return -1;
        _cleanup_free_ char *what = describe(j);
        bool needs_host = false;
        for (size_t i = 0; i < j->norigins && !needs_host; i++)
                for (size_t k = 0; k < j->origins[i].edits->nnodes && !needs_host; k++)
                        needs_host = ctk_cdi_node_needs_host(&j->origins[i].edits->nodes[k]);
        if (needs_host && rt_job_backend(j, err) < 0)
                return -1;
        struct ctk_cdi_apply_stats st;
        if (ctk_oci_check_editable(j->spec, err) < 0)
                return ctk_error_prefix(err, "invalid container spec: %s", CTK_CUT(j->spec_path));
        if (ctk_cdi_apply(j->spec, j->origins, j->norigins, j->backend, &st, err) < 0)
                return -1;
        bool numa = false;
        if (j->ours && allow_numa_syscalls(j, &numa, err) < 0)
                return -1;
        ctk_log(CTK_LOG_INFO,
                "container %s: %s: added %zu device nodes, %zu cgroup rules, %zu groups, %zu environment variables, "
                "%zu mounts, %zu hooks",
                CTK_CUT(j->args->id != NULL ? j->args->id : "?"), CTK_CUT(what != NULL ? what : "?"), st.devices,
                st.rules, st.gids, st.env, st.mounts, st.hooks);
        if (j->tracked && rt_tracker_add_release_hook(j->spec, j->cfg, j->args, err) < 0)
                return ctk_error_prefix(err, "invalid container spec: %s", CTK_CUT(j->spec_path));
        if (st.devices + st.rules + st.gids + st.env + st.mounts + st.hooks + st.netdevs == 0 && !st.intel_rdt &&
            !numa && !j->tracked)
                return 0;
        return write_spec(j, err);
}

static int run_job(struct rt_job *j, struct ctk_error **err)
{
        j->spec_path = rt_spec_path(j->args);
        if (j->spec_path == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        if (ctk_file_read(j->spec_path, RT_SPEC_MAX, 0, &j->data, &j->len, err) < 0)
                return ctk_error_prefix(err, "reading the container spec");
        if (!rt_spec_may_request_gpus(j->data, j->len, &j->cfg->cdi_annotation_prefixes)) {
                ctk_log(CTK_LOG_DEBUG, "container %s: no GPU requested", CTK_CUT(j->args->id ? j->args->id : "?"));
                return 0;
        }
        if (ctk_oci_spec_parse(j->data, j->len, j->spec_path, &j->spec, &j->lits, err) < 0)
                return ctk_error_prefix(err, "invalid container spec");
        if (ctk_oci_env(j->spec, &j->env, &j->nenv, err) < 0)
                return ctk_error_prefix(err, "invalid container spec: %s", CTK_CUT(j->spec_path));
        if (rt_request_gather(j, err) < 0)
                return -1;
        bool none = j->sel.kind == CTK_SELECT_NONE || (j->sel.kind == CTK_SELECT_LIST && j->sel.n == 0);
        if ((j->sel.kind != CTK_SELECT_LIST || j->sel.n == 0) && j->cdi.n == 0 &&
            !(none && ctk_cdi_simhost_is(j->cfg->root))) { /* (a simulated host's sysfs: gpus.c) */
                ctk_log(CTK_LOG_DEBUG, "container %s: %s", CTK_CUT(j->args->id ? j->args->id : "?"),
                        j->sel.kind == CTK_SELECT_NONE ? "GPUs: none" : "no GPU requested");
                return 0;
        }
        return inject(j, err);
}

int rt_create_prepare(const struct ctk_config *cfg, const struct rt_args *a, const char *runtime,
                      struct ctk_error **err)
{
        struct rt_job j = {.cfg = cfg, .args = a, .runtime = runtime, .mode = ctk_config_mode_of(cfg)};
        int r = run_job(&j, err);
        if (r < 0 && j.tracked) /* a failed create keeps nothing */
                rt_tracker_release(cfg, a->id);
        rt_job_clear(&j);
        return r;
}
