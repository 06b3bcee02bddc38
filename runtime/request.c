/* What a container asks for, by mode (see job.h): the selection variables
 * (AMD_VISIBLE_DEVICES, DOCKER_RESOURCE_<KIND>) with plain tokens and CDI
 * names mixed, and the annotations of the configured prefixes (cdi.k8s.io/);
 * the configuration's policy (policy.h) first: the variables may be refused
 * from unprivileged containers, CDI names must have a kind of cdi-kinds. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "backends/sysfs/sysfs.h"
#include "core/base/base.h"
#include "job.h"
#include "policy.h"

void rt_job_clear(struct rt_job *j)
{
        free(j->origins);
        if (j->gpu_edits != NULL)
                ctk_cdi_edits_clear(&j->gpu_edits[0]);
        free(j->gpu_edits);
        json_decref(j->sim_mounts);
        ctk_strv_clear(&j->gpu_names);
        ctk_cdi_device_list_clear(&j->devs);
        ctk_cdi_host_clear(&j->host);
        ctk_cdi_resolved_clear(&j->cdi);
        ctk_cdi_cache_clear(&j->cache);
        ctk_strv_clear(&j->names);
        ctk_strv_clear(&j->sources);
        ctk_selection_clear(&j->sel);
        ctk_gpu_list_clear(&j->gpus);
        ctk_backend_free(j->backend);
        free(j->env);
        json_decref(j->spec);
        ctk_oci_literals_clear(&j->lits);
        free(j->data);
        free(j->spec_path);
}

const char *const *rt_job_kinds(const struct rt_job *j)
{
        static const char *const none[] = {NULL};
        return j->cfg->resource_kinds.v != NULL ? (const char *const *)j->cfg->resource_kinds.v : none;
}

int rt_job_backend(struct rt_job *j, struct ctk_error **err)
{
        if (j->backend != NULL)
                return 0;
        return ctk_sysfs_backend_new(j->cfg->root != NULL ? j->cfg->root : "/", &j->backend, err);
}

int rt_job_discover(struct rt_job *j, struct ctk_error **err)
{
        if (j->discovered)
                return 0;
        if (rt_job_backend(j, err) < 0 || ctk_discover_gpus(j->backend, &j->gpus, err) < 0)
                return -1;
        j->discovered = true;
        return 0;
}

int rt_job_cache(struct rt_job *j, struct ctk_error **err)
{
        if (j->cache_loaded)
                return 0;
        const struct ctk_strv *d = &j->cfg->cdi_spec_dirs;
        if (ctk_cdi_cache_load((const char *const *)d->v, d->n, &j->cache, err) < 0)
                return -1;
        j->cache_loaded = true;
        /* a spec not used (not trusted, too large, invalid): one line each */
        for (size_t i = 0; i < j->cache.nproblems; i++)
                ctk_log_msg(CTK_LOG_WARNING, j->cache.problems[i].msg, "container %s",
                            CTK_CUT(j->args->id != NULL ? j->args->id : "?"));
        return 0;
}

static int append(struct ctk_strv *to, const struct ctk_strv *from, struct ctk_error **err)
{
        for (size_t i = 0; i < from->n; i++)
                if (ctk_strv_push(to, from->v[i]) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
        return 0;
}

/* Mode legacy: a CDI name has no meaning. */
static int refuse_names(const struct ctk_strv *names, const struct ctk_strv *vars, struct ctk_error **err)
{
        return ctk_error_set(err, EINVAL,
                             "%s: '%s' is a CDI device name, but the runtime's mode is legacy (config key mode), "
                             "where GPU indices, ranges and UUIDs select GPUs; set mode to auto or cdi to use CDI "
                             "names",
                             CTK_CUT(vars->n > 0 ? vars->v[0] : CTK_VISIBLE_DEVICES), CTK_CUT(names->v[0]));
}

/* The variables of an unprivileged container, when the configuration
 * refuses them: logged once, then the container has none. */
static void drop_variables(struct rt_job *j)
{
        ctk_log(CTK_LOG_WARNING,
                "container %s: AMD_VISIBLE_DEVICES and DOCKER_RESOURCE_* ignored: the container is %s, and "
                "accept-visible-devices-envvar-when-unprivileged is false",
                CTK_CUT(j->args->id != NULL ? j->args->id : "?"),
                rt_policy_privilege_why(rt_policy_privilege(j->spec)));
        j->nenv = 0;
}

int rt_request_gather(struct rt_job *j, struct ctk_error **err)
{
        /* A first look without GPUs: whether plain tokens name any (then
         * they are resolved against the GPUs of the mode), and the CDI names
         * when they alone make the request. */
        const struct ctk_gpu_list no_gpus = {0};
        _cleanup_error_ struct ctk_error *ignored = NULL;
        struct ctk_selection pre = {0};
        struct ctk_strv names _cleanup_strv_ = {0}, vars _cleanup_strv_ = {0};
        int r = ctk_select_from_env_names((char *const *)j->env, j->nenv, rt_job_kinds(j), &no_gpus, &pre, &names,
                                          &vars, &ignored);
        bool plain = r < 0 || pre.kind == CTK_SELECT_LIST;
        if ((plain || pre.kind != CTK_SELECT_UNSET || names.n > 0) && !rt_policy_env_accepted(j->cfg, j->spec)) {
                drop_variables(j);
                plain = false;
                pre.kind = CTK_SELECT_UNSET;
                ctk_strv_clear(&names);
                ctk_strv_clear(&vars);
        }
        j->sel.kind = pre.kind;
        ctk_selection_clear(&pre);
        if (plain) {
                ctk_strv_clear(&names);
                ctk_strv_clear(&vars);
        }
        if (plain && j->mode != CTK_MODE_CDI) {
                if (rt_job_discover(j, err) < 0)
                        return ctk_error_prefix(err, "cannot provide the requested GPUs");
                if (ctk_select_from_env_names((char *const *)j->env, j->nenv, rt_job_kinds(j), &j->gpus, &j->sel,
                                              &names, &vars, err) < 0)
                        return -1;
        }
        if (j->mode == CTK_MODE_LEGACY) {
                if (names.n > 0)
                        return refuse_names(&names, &vars, err);
                if (ctk_cdi_spec_requests_annotations(j->spec, &j->cfg->cdi_annotation_prefixes))
                        ctk_log(CTK_LOG_DEBUG, "container %s: mode legacy: CDI request annotations ignored",
                                CTK_CUT(j->args->id != NULL ? j->args->id : "?"));
                return 0;
        }
        if (append(&j->names, &names, err) < 0 || append(&j->sources, &vars, err) < 0)
                return -1;
        if (ctk_cdi_annotation_names(j->spec, &j->cfg->cdi_annotation_prefixes, &j->names, &j->sources, err) < 0)
                return ctk_error_prefix(err, "invalid container spec: %s", CTK_CUT(j->spec_path));
        if (rt_policy_check_kinds(j->cfg, &j->names, &j->sources, err) < 0)
                return -1;
        if (j->mode == CTK_MODE_CDI)
                return plain || j->names.n > 0 ? rt_cdi_mode_resolve(j, plain, err) : 0;
        if (j->names.n == 0)
                return 0;
        if (rt_job_cache(j, err) < 0)
                return -1;
        return ctk_cdi_resolve(&j->cache, &j->names, &j->sources, &j->cdi, err);
}
