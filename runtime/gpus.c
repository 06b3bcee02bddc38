/* The discovered GPUs of a request as container edits (the device model
 * that `cdi generate` writes into the spec), and the GPU indices the
 * tracker records (see job.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/base.h"
#include "job.h"

/* "GPUs 0,2,3" (the log's words too) */
static char *gpus_name(const struct ctk_selection *sel)
{
        size_t cap = sel->n * 21 + 8;
        char *out = malloc(cap);
        if (out == NULL)
                return NULL;
        size_t len = (size_t)snprintf(out, cap, "GPUs ");
        for (size_t i = 0; i < sel->n; i++)
                len += (size_t)snprintf(out + len, cap - len, "%s%zu", i > 0 ? "," : "", sel->idx[i]);
        return out;
}

/* The selected GPUs as one origin: what the device model gives for a
 * device made of their nodes and /dev/kfd (as the spec's device "all" is
 * for every GPU), with the groups their users need that the container's
 * user namespace maps. */
static int gpu_origins(struct rt_job *j, struct ctk_error **err)
{
        bool none = j->sel.kind == CTK_SELECT_NONE || (j->sel.kind == CTK_SELECT_LIST && j->sel.n == 0);
        if (none) { /* no GPU: on a simulated host, its sysfs all the same (as a real host's is) */
                j->gpu_edits = calloc(1, sizeof(*j->gpu_edits));
                if (j->gpu_edits == NULL)
                        return ctk_error_set(err, ENOMEM, "out of memory");
                if (ctk_cdi_simhost_edits(j->cfg->root, &j->gpu_edits[0], &j->sim_mounts, err) < 0)
                        return -1;
                if (j->sim_mounts == NULL)
                        return 0;
                if (ctk_strv_push(&j->gpu_names, "no GPUs") < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
                j->origins[j->norigins++] =
                    (struct ctk_cdi_origin){.name = j->gpu_names.v[0], .file = NULL, .edits = &j->gpu_edits[0]};
                return 0;
        }
        if (j->sel.kind != CTK_SELECT_LIST)
                return 0;
        /* the host of the selected GPUs only: its device "all" is theirs */
        if (ctk_cdi_host_collect_some(j->backend, &j->gpus, j->sel.idx, j->sel.n, &j->host, err) < 0 ||
            ctk_cdi_host_devices(&j->host, false, false, &j->devs, err) < 0)
                return -1;
        j->gpu_edits = calloc(1, sizeof(*j->gpu_edits));
        if (j->gpu_edits == NULL || ctk_strv_push_take(&j->gpu_names, gpus_name(&j->sel)) < 0)
                return ctk_error_set(err, ENOMEM, "out of memory");
        if (ctk_cdi_device_edits(&j->devs.v[0], true, &j->gpu_edits[0], err) < 0 || rt_job_map_groups(j, err) < 0 ||
            ctk_cdi_simhost_edits(j->cfg->root, &j->gpu_edits[0], &j->sim_mounts, err) < 0)
                return -1;
        j->origins[j->norigins++] =
            (struct ctk_cdi_origin){.name = j->gpu_names.v[0], .file = NULL, .edits = &j->gpu_edits[0]};
        j->ours = true;
        return 0;
}

static bool of_our_kind(const struct ctk_cdi_entry *e)
{
        return e != NULL && strncmp(e->name, CTK_CDI_DEFAULT_KIND "=", strlen(CTK_CDI_DEFAULT_KIND) + 1) == 0;
}

int rt_job_origins(struct rt_job *j, struct ctk_error **err)
{
        size_t n = 1 + j->cdi.n;
        j->origins = calloc(n + 1, sizeof(*j->origins));
        if (j->origins == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        if (gpu_origins(j, err) < 0)
                return -1;
        for (size_t i = 0; i < j->cdi.n; i++) {
                j->origins[j->norigins++] = j->cdi.origins[i];
                j->ours = j->ours || of_our_kind(j->cdi.entries[i]);
        }
        return 0;
}

int rt_job_tracked_indices(struct rt_job *j, struct ctk_selection *out, struct ctk_error **err)
{
        *out = (struct ctk_selection){.kind = CTK_SELECT_UNSET};
        bool any = j->sel.kind == CTK_SELECT_LIST && j->sel.n > 0;
        for (size_t i = 0; i < j->cdi.n; i++)
                any = any || of_our_kind(j->cdi.entries[i]);
        if (!any)
                return 0;
        if (rt_job_discover(j, err) < 0)
                return ctk_error_prefix(err, "GPU tracker");
        _cleanup_free_ bool *marks = calloc(j->gpus.n + 1, sizeof(*marks));
        if (marks == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; j->sel.kind == CTK_SELECT_LIST && i < j->sel.n; i++)
                if (j->sel.idx[i] < j->gpus.n)
                        marks[j->sel.idx[i]] = true;
        for (size_t i = 0; i < j->cdi.n; i++)
                if (of_our_kind(j->cdi.entries[i]))
                        (void)ctk_cdi_gpu_name_mark(&j->gpus,
                                                    j->cdi.entries[i]->name + strlen(CTK_CDI_DEFAULT_KIND) + 1,
                                                    marks); /* another name of ours is no GPU to track */
        size_t count = 0;
        for (size_t i = 0; i < j->gpus.n; i++)
                count += marks[i];
        out->idx = calloc(count + 1, sizeof(*out->idx));
        if (out->idx == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < j->gpus.n; i++)
                if (marks[i])
                        out->idx[out->n++] = i;
        out->kind = CTK_SELECT_LIST;
        return 0;
}
