/* Mode cdi: every request through the spec directories (see job.h).  Plain
 * tokens name amd.com/gpu devices: index N the device "N", a UUID the
 * index devices of that UUID (known from the spec's UUID devices), all
 * the device "all"; there is no discovery, and the spec's freshness is
 * checked by core/cdi/stale.h's rule. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/base.h"
#include "core/tracker/tracker.h"
#include "job.h"
#include "policy.h"

#define MAX_INDEX 4096 /* index device names beyond this are not GPUs of ours */

static bool digits(const char *s, size_t max)
{
        size_t n = strlen(s);
        return n > 0 && n <= max && strspn(s, "0123456789") == n;
}

static const char *dev_name(const struct ctk_cdi_entry *e)
{
        return e->name + strlen(CTK_CDI_DEFAULT_KIND) + 1;
}

/* The render node of a device (its first /dev/dri/renderD node), or NULL. */
static const char *render_node(const json_t *device)
{
        size_t i;
        const json_t *n;
        json_array_foreach(json_object_get(json_object_get(device, "containerEdits"), "deviceNodes"), i, n)
        {
                const char *hp = json_string_value(json_object_get(n, "hostPath"));
                const char *p = hp != NULL && hp[0] != '\0' ? hp : json_string_value(json_object_get(n, "path"));
                if (p != NULL && strncmp(p, "/dev/dri/renderD", 16) == 0)
                        return p;
        }
        return NULL;
}

static bool has_node(const json_t *device, const char *path)
{
        size_t i;
        const json_t *n;
        json_array_foreach(json_object_get(json_object_get(device, "containerEdits"), "deviceNodes"), i, n)
        {
                const char *hp = json_string_value(json_object_get(n, "hostPath"));
                const char *p = hp != NULL && hp[0] != '\0' ? hp : json_string_value(json_object_get(n, "path"));
                if (p != NULL && strcmp(p, path) == 0)
                        return true;
        }
        return false;
}

/* The GPUs the spec's amd.com/gpu devices describe, for the selection
 * grammar: one per index device, with the UUID of the UUID device that
 * holds its render node (partitions of one GPU share it: their "pci" is
 * that device's name, so the grammar takes them together). */
static int spec_gpus(const struct ctk_cdi_cache *c, struct ctk_gpu_list *out, struct ctk_error **err)
{
        size_t first, n, count = 0;
        ctk_cdi_cache_kind_range(c, CTK_CDI_DEFAULT_KIND, &first, &n);
        for (size_t i = first; i < first + n; i++)
                if (digits(dev_name(&c->devices[i]), 4) && strtoul(dev_name(&c->devices[i]), NULL, 10) < MAX_INDEX)
                        count = strtoul(dev_name(&c->devices[i]), NULL, 10) + 1 > count
                                    ? strtoul(dev_name(&c->devices[i]), NULL, 10) + 1
                                    : count;
        *out = (struct ctk_gpu_list){.v = calloc(count + 1, sizeof(*out->v)), .n = count};
        if (out->v == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < count; i++)
                out->v[i] = (struct ctk_gpu){.index = i, .render_minor = -1, .card_minor = -1, .kfd_node = -1};
        for (size_t i = first; i < first + n; i++) {
                const char *name = dev_name(&c->devices[i]);
                uint64_t uuid;
                if (!(name[0] == '0' && (name[1] == 'x' || name[1] == 'X')) || ctk_uuid_parse(name, &uuid) < 0)
                        continue;
                for (size_t k = first; k < first + n; k++) {
                        const char *idx = dev_name(&c->devices[k]);
                        const char *render = render_node(c->devices[k].device);
                        if (!digits(idx, 4) || strtoul(idx, NULL, 10) >= count || render == NULL ||
                            !has_node(c->devices[i].device, render))
                                continue;
                        struct ctk_gpu *g = &out->v[strtoul(idx, NULL, 10)];
                        g->has_uuid = true;
                        g->uuid = uuid;
                        free(g->pci);
                        if ((g->pci = strdup(name)) == NULL)
                                return ctk_error_set(err, ENOMEM, "out of memory");
                }
        }
        return 0;
}

/* The files that give amd.com/gpu devices, for messages. */
static char *our_files(const struct ctk_cdi_cache *c)
{
        struct ctk_strv files _cleanup_strv_ = {0};
        for (size_t i = 0; i < c->nspecs; i++)
                if (strcmp(c->specs[i].kind, CTK_CDI_DEFAULT_KIND) == 0 && !ctk_strv_contains(&files, c->specs[i].path))
                        ctk_strv_push(&files, c->specs[i].path);
        return ctk_strv_join(&files, ", ");
}

/* The spec to regenerate: the file of the first amd.com/gpu device, else amd.json in the first spec directory. */
static const struct ctk_cdi_spec *our_spec(const struct ctk_cdi_cache *c)
{
        size_t first, n;
        ctk_cdi_cache_kind_range(c, CTK_CDI_DEFAULT_KIND, &first, &n);
        return n > 0 ? &c->specs[c->devices[first].spec] : NULL;
}

/* The command that writes the spec at path again as it was written (names
 * by index and/or UUID, additionalGids), for the message of a stale spec:
 * a plain `amd-ctk cdi generate` would drop UUID names. */
static char *generate_command(const struct ctk_cdi_spec *sp, const char *path)
{
        struct ctk_cdi_options o;
        ctk_cdi_options_of(sp != NULL ? sp->doc->root : NULL, &o);
        const char *strategy = !o.by_uuid   ? ""
                               : o.by_index ? " --device-name-strategy index,uuid"
                                            : " --device-name-strategy uuid";
        bool default_path = strcmp(path, CTK_CDI_DEFAULT_OUTPUT) == 0;
        char *cmd = NULL;
        return asprintf(&cmd, "amd-ctk cdi generate%s%s%s%s", strategy, o.additional_gids ? " --additional-gids" : "",
                        default_path ? "" : " --output ", default_path ? "" : path) < 0
                   ? NULL
                   : cmd;
}

/* A stale spec: regenerated (cdi-refresh-on-stale, once), else the create fails. */
static int stale(struct rt_job *j, const char *why, bool again, bool *refreshed, struct ctk_error **err)
{
        const struct ctk_cdi_spec *sp = our_spec(&j->cache);
        _cleanup_free_ char *files = our_files(&j->cache);
        _cleanup_free_ char *fallback = ctk_str_concat(j->cfg->cdi_spec_dirs.v[0], "/amd.json", NULL);
        const char *path = sp != NULL ? sp->path : fallback;
        if (path == NULL || files == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        if (!j->cfg->cdi_refresh_on_stale || again) {
                _cleanup_free_ char *cmd = generate_command(sp, path);
                if (cmd == NULL)
                        return ctk_error_set(err, ENOMEM, "out of memory");
                const char *hint = again ? "" : " (or set cdi-refresh-on-stale to regenerate it)";
                /* (why is a message, the spec's difference: taken whole) */
                ctk_error_set_msg(err, ESTALE, why);
                if (sp == NULL) /* why says that there is none */
                        ctk_error_prefix(err, "mode cdi");
                else
                        ctk_error_prefix(err, "mode cdi: the CDI spec %s %s this host", CTK_CUT(files),
                                         again ? "still does not match, regenerated," : "does not match");
                return ctk_error_suffix(err, "; run '%s'%s", CTK_CUT(cmd), CTK_CUT(hint));
        }
        /* (the lock's directory: root's alone, as the tracker's, which it is) */
        if (ctk_tracker_dir_make(j->cfg->state_dir, err) < 0)
                return ctk_error_prefix(err, "mode cdi");
        _cleanup_free_ char *lock = ctk_str_concat(j->cfg->state_dir, "/cdi-refresh.lock", NULL);
        bool written = false;
        if (lock == NULL || rt_job_backend(j, err) < 0 ||
            ctk_cdi_refresh(j->backend, path, sp != NULL ? sp->doc->root : NULL, lock, &written, err) < 0)
                return lock == NULL ? ctk_error_set(err, ENOMEM, "out of memory") : ctk_error_prefix(err, "mode cdi");
        ctk_log_msg(CTK_LOG_INFO, why, "container %s: mode cdi: the CDI spec %s was %s; it was stale",
                    CTK_CUT(j->args->id ? j->args->id : "?"), CTK_CUT(path),
                    written ? "regenerated" : "regenerated by another create meanwhile");
        ctk_cdi_resolved_clear(&j->cdi);
        ctk_cdi_cache_clear(&j->cache);
        j->cache_loaded = false;
        *refreshed = true;
        return 0;
}

/* The names plain tokens give: "all" when they select every index device
 * and the spec has "all", else one per index. */
static int plain_names(struct rt_job *j, struct ctk_strv *names, struct ctk_strv *sources, struct ctk_strv *env_names,
                       struct ctk_strv *env_vars, struct ctk_error **err)
{
        _cleanup_gpu_list_ struct ctk_gpu_list gpus = {0};
        if (spec_gpus(&j->cache, &gpus, err) < 0)
                return -1;
        ctk_selection_clear(&j->sel);
        if (ctk_select_from_env_names((char *const *)j->env, j->nenv, rt_job_kinds(j), &gpus, &j->sel, env_names,
                                      env_vars, err) < 0) {
                _cleanup_free_ char *files = our_files(&j->cache);
                return ctk_error_prefix(err, "mode cdi (the GPUs of %s)", CTK_CUT(files != NULL ? files : "the spec"));
        }
        bool all =
            j->sel.n == gpus.n && gpus.n > 0 && ctk_cdi_cache_find(&j->cache, CTK_CDI_DEFAULT_KIND "=all") != NULL;
        for (size_t i = 0; i < (all ? 1 : j->sel.n); i++) {
                char name[64];
                if (all)
                        (void)snprintf(name, sizeof(name), CTK_CDI_DEFAULT_KIND "=all");
                else
                        (void)snprintf(name, sizeof(name), CTK_CDI_DEFAULT_KIND "=%zu", j->sel.idx[i]);
                if (ctk_strv_push(names, name) < 0 || ctk_strv_push(sources, "GPU selection (mode cdi)") < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
        }
        ctk_selection_clear(&j->sel); /* the GPUs are CDI devices now */
        return 0;
}

static bool names_ours(const struct ctk_strv *names)
{
        for (size_t i = 0; i < names->n; i++)
                if (strncmp(names->v[i], CTK_CDI_DEFAULT_KIND "=", strlen(CTK_CDI_DEFAULT_KIND) + 1) == 0)
                        return true;
        return false;
}

/* One try: resolves, and checks the spec when our GPUs are involved. */
static int attempt(struct rt_job *j, bool plain, const struct ctk_strv *later, const struct ctk_strv *later_src,
                   char **why, struct ctk_error **err)
{
        struct ctk_strv names _cleanup_strv_ = {0}, sources _cleanup_strv_ = {0};
        struct ctk_strv env_names _cleanup_strv_ = {0}, env_vars _cleanup_strv_ = {0};
        if (rt_job_cache(j, err) < 0)
                return -1;
        bool ours = plain || names_ours(later);
        if (ours) {
                size_t first, n;
                ctk_cdi_cache_kind_range(&j->cache, CTK_CDI_DEFAULT_KIND, &first, &n);
                if (n == 0) {
                        _cleanup_free_ char *dirs = ctk_strv_join(&j->cfg->cdi_spec_dirs, ", ");
                        return asprintf(why, "no CDI spec in %s has kind " CTK_CDI_DEFAULT_KIND, dirs ? dirs : "?") < 0
                                   ? ctk_error_set(err, ENOMEM, "out of memory")
                                   : 0;
                }
                if (rt_job_backend(j, err) < 0 ||
                    ctk_cdi_stale_dri(&j->cache, CTK_CDI_DEFAULT_KIND, j->backend, why, err) < 0)
                        return -1;
                if (*why != NULL)
                        return 0;
        }
        if (plain && (plain_names(j, &names, &sources, &env_names, &env_vars, err) < 0 ||
                      rt_policy_check_kinds(j->cfg, &env_names, &env_vars, err) < 0))
                return -1;
        for (size_t i = 0; i < env_names.n; i++)
                if (ctk_strv_push(&names, env_names.v[i]) < 0 || ctk_strv_push(&sources, env_vars.v[i]) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < later->n; i++)
                if (ctk_strv_push(&names, later->v[i]) < 0 || ctk_strv_push(&sources, later_src->v[i]) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
        ours = ours || names_ours(&names);
        if (ctk_cdi_resolve(&j->cache, &names, &sources, &j->cdi, err) < 0)
                return -1;
        ctk_strv_clear(&j->names);
        ctk_strv_clear(&j->sources);
        j->names = names;
        j->sources = sources;
        names = sources = (struct ctk_strv){0};
        if (ours && (rt_job_backend(j, err) < 0 ||
                     ctk_cdi_stale_requested(&j->cdi, CTK_CDI_DEFAULT_KIND, j->backend, why, err) < 0))
                return -1;
        return 0;
}

int rt_cdi_mode_resolve(struct rt_job *j, bool plain, struct ctk_error **err)
{
        /* what the request names besides its plain tokens: kept across a refresh */
        struct ctk_strv later _cleanup_strv_ = {0}, later_src _cleanup_strv_ = {0};
        later = j->names;
        later_src = j->sources;
        j->names = j->sources = (struct ctk_strv){0};
        for (int again = 0; again < 2; again++) {
                _cleanup_free_ char *why = NULL;
                bool refreshed = false;
                if (attempt(j, plain, &later, &later_src, &why, err) < 0)
                        return -1;
                if (why == NULL)
                        return 0;
                if (stale(j, why, again > 0, &refreshed, err) < 0)
                        return -1;
        }
        return ctk_error_set(err, ESTALE, "mode cdi: the CDI spec does not match this host");
}
