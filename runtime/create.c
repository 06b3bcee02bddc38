/* The create/run flow: read the spec, resolve the GPU request, discover the
 * GPUs once, add their nodes to the spec, write it back atomically.
 *
 * A denying seccomp profile gets the NUMA syscall rule before the spec is
 * written.  With the GPU tracker enabled, the selection is recorded first
 * (and released if a later step fails) and the spec gets the release hook. */
#include "create.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/open.h"
#include "bundle.h"
#include "core/base/base.h"
#include "core/device/device.h"
#include "core/oci/oci.h"
#include "tracker_glue.h"

struct create_job {
        const struct ctk_config *cfg;
        const struct rt_args *args;
        const char *runtime; /* the low-level runtime (its default --root) */
        bool tracked;        /* the GPU tracker recorded the selection */
        char *spec_path;
        char *data;
        size_t len;
        json_t *spec;
        const char **env;
        size_t nenv;
        struct ctk_backend *backend;
        struct ctk_gpu_list gpus;
        struct ctk_selection sel;
        struct ctk_devnode *nodes;
        size_t nnodes;
};

static void job_clear(struct create_job *j)
{
        for (size_t i = 0; i < j->nnodes; i++)
                ctk_devnode_clear(&j->nodes[i]);
        free(j->nodes);
        ctk_selection_clear(&j->sel);
        ctk_gpu_list_clear(&j->gpus);
        ctk_backend_free(j->backend);
        free(j->env);
        json_decref(j->spec);
        free(j->data);
        free(j->spec_path);
}

static const char *const *kinds(const struct ctk_config *cfg)
{
        static const char *const none[] = {NULL};
        return cfg->resource_kinds.v != NULL ? (const char *const *)cfg->resource_kinds.v : none;
}

/* Resolves the selection; GPUs are discovered only when the request names
 * GPUs (not for unset, empty, "void" or "none"). */
static int resolve_selection(struct create_job *j, struct ctk_error **err)
{
        const struct ctk_gpu_list no_gpus = {0};
        _cleanup_error_ struct ctk_error *ignored = NULL;
        struct ctk_selection pre = {0};
        int r = ctk_select_from_env((char *const *)j->env, j->nenv, kinds(j->cfg), &no_gpus, &pre, &ignored);
        enum ctk_select_kind pre_kind = pre.kind;
        ctk_selection_clear(&pre);
        if (r == 0 && pre_kind != CTK_SELECT_LIST) {
                j->sel.kind = pre_kind;
                return 0;
        }
        if (ctk_backend_open(j->cfg->root, j->cfg->profile, &j->backend, err) < 0 ||
            ctk_discover_gpus(j->backend, &j->gpus, err) < 0)
                return ctk_error_prefix(err, "cannot provide the requested GPUs");
        return ctk_select_from_env((char *const *)j->env, j->nenv, kinds(j->cfg), &j->gpus, &j->sel, err);
}

/* The card and render nodes of each selected GPU, then /dev/kfd. */
static int collect_nodes(struct create_job *j, struct ctk_error **err)
{
        size_t max = 1;
        for (size_t i = 0; i < j->sel.n; i++) {
                if (j->sel.idx[i] >= j->gpus.n)
                        return ctk_error_set(err, ENODEV, "GPU %zu does not exist", j->sel.idx[i]);
                max += j->gpus.v[j->sel.idx[i]].drm.n;
        }
        _cleanup_free_ const char **paths = calloc(max, sizeof(*paths));
        _cleanup_free_ size_t *owner = calloc(max, sizeof(*owner)); /* the GPU of each path */
        j->nodes = calloc(max, sizeof(*j->nodes));
        if (paths == NULL || owner == NULL || j->nodes == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        size_t n = 0;
        for (size_t i = 0; i < j->sel.n; i++) {
                const struct ctk_gpu *g = &j->gpus.v[j->sel.idx[i]];
                for (size_t k = 0; k < g->drm.n; k++) {
                        owner[n] = g->index;
                        paths[n++] = g->drm.v[k];
                }
        }
        paths[n++] = "/dev/kfd";
        size_t failed = 0;
        if (ctk_devnode_stat_many(j->backend, paths, n, j->nodes, &failed, err) < 0)
                return failed + 1 < n ? ctk_error_prefix(err, "GPU %zu", owner[failed]) : -1;
        j->nnodes = n;
        return 0;
}

static char *format_indices(const struct ctk_selection *s)
{
        size_t cap = s->n * 21 + 1;
        char *out = malloc(cap), *p = out;
        if (out == NULL)
                return NULL;
        *p = '\0';
        for (size_t i = 0; i < s->n; i++)
                p += snprintf(p, cap - (size_t)(p - out), "%s%zu", i > 0 ? "," : "", s->idx[i]);
        return out;
}

static int write_spec(struct create_job *j, struct ctk_error **err)
{
        size_t len;
        _cleanup_free_ char *text = ctk_oci_spec_encode(j->spec, &len);
        if (text == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        return ctk_file_write_atomic(j->spec_path, text, len, 0644, err);
}

/* A denying seccomp profile keeps its rules and gains one that allows the
 * NUMA memory-policy syscalls GPU code needs (config key seccomp-numa). */
static int allow_numa_syscalls(struct create_job *j, bool *changed, struct ctk_error **err)
{
        *changed = false;
        if (!j->cfg->seccomp_numa)
                return 0;
        if (ctk_seccomp_numa_edit_spec(j->spec, changed, err) < 0)
                return ctk_error_prefix(err, "invalid container spec: %s", j->spec_path);
        if (*changed)
                ctk_log(CTK_LOG_INFO, "container %s: seccomp profile: allowed the NUMA memory-policy syscalls",
                        j->args->id != NULL ? j->args->id : "?");
        return 0;
}

static int inject(struct create_job *j, struct ctk_error **err)
{
        if (rt_tracker_reserve(j->cfg, j->args, j->runtime, &j->gpus, &j->sel, &j->tracked, err) < 0)
                return -1;
        if (collect_nodes(j, err) < 0)
                return -1;
        struct ctk_oci_edit_stats st;
        if (ctk_oci_add_devnodes(j->spec, j->nodes, j->nnodes, &st, err) < 0)
                return ctk_error_prefix(err, "invalid container spec: %s", j->spec_path);
        bool numa = false;
        if (allow_numa_syscalls(j, &numa, err) < 0)
                return -1;
        _cleanup_free_ char *list = format_indices(&j->sel);
        ctk_log(CTK_LOG_INFO, "container %s: GPUs %s: added %zu device nodes, %zu cgroup rules, %zu groups",
                j->args->id != NULL ? j->args->id : "?", list != NULL ? list : "?", st.devices, st.rules, st.gids);
        if (j->tracked && rt_tracker_add_release_hook(j->spec, j->cfg, j->args, err) < 0)
                return ctk_error_prefix(err, "invalid container spec: %s", j->spec_path);
        if (st.devices + st.rules + st.gids == 0 && !numa && !j->tracked)
                return 0;
        return write_spec(j, err);
}

static int run_job(struct create_job *j, struct ctk_error **err)
{
        j->spec_path = rt_spec_path(j->args);
        if (j->spec_path == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        if (ctk_file_read_all(j->spec_path, &j->data, &j->len, err) < 0)
                return ctk_error_prefix(err, "reading the container spec");
        if (!rt_spec_may_request_gpus(j->data, j->len)) {
                ctk_log(CTK_LOG_DEBUG, "container %s: no GPU requested", j->args->id ? j->args->id : "?");
                return 0;
        }
        if (ctk_oci_spec_parse(j->data, j->len, j->spec_path, &j->spec, err) < 0)
                return ctk_error_prefix(err, "invalid container spec");
        if (ctk_oci_env(j->spec, &j->env, &j->nenv, err) < 0)
                return ctk_error_prefix(err, "invalid container spec: %s", j->spec_path);
        if (resolve_selection(j, err) < 0)
                return -1;
        if (j->sel.kind != CTK_SELECT_LIST || j->sel.n == 0) {
                ctk_log(CTK_LOG_DEBUG, "container %s: %s", j->args->id ? j->args->id : "?",
                        j->sel.kind == CTK_SELECT_NONE ? "GPUs: none" : "no GPU requested");
                return 0;
        }
        return inject(j, err);
}

int rt_create_prepare(const struct ctk_config *cfg, const struct rt_args *a, const char *runtime,
                      struct ctk_error **err)
{
        struct create_job j = {.cfg = cfg, .args = a, .runtime = runtime};
        int r = run_job(&j, err);
        if (r < 0 && j.tracked) /* a failed create keeps nothing */
                rt_tracker_release(cfg, a->id);
        job_clear(&j);
        return r;
}
