/* The host as CDI sees it: every GPU's device nodes and /dev/kfd, with their
 * attributes from stat() through the backend. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdi.h"
#include "core/base/base.h"

void ctk_cdi_host_clear(struct ctk_cdi_host *h)
{
        for (size_t i = 0; i < h->n; i++) {
                // NOLINTNEXTLINE(clang-analyzer-core.NullDereference): n > 0 only once gpus is allocated
                for (size_t j = 0; j < h->gpus[i].n; j++)
                        ctk_devnode_clear(&h->gpus[i].nodes[j]);
                free(h->gpus[i].nodes);
        }
        free(h->gpus);
        ctk_devnode_clear(&h->kfd);
        *h = (struct ctk_cdi_host){0};
}

int ctk_cdi_host_collect_some(struct ctk_backend *b, const struct ctk_gpu_list *gpus, const size_t *idx, size_t n,
                              struct ctk_cdi_host *out, struct ctk_error **err)
{
        *out = (struct ctk_cdi_host){0};
        size_t total = 1;
        for (size_t i = 0; i < n; i++) {
                if (idx[i] >= gpus->n)
                        return ctk_error_set(err, ENODEV, "GPU %zu does not exist", idx[i]);
                total += gpus->v[idx[i]].drm.n;
        }
        /* every node in one list: the nodes of a directory are stat'ed together */
        _cleanup_free_ const char **paths = calloc(total, sizeof(*paths));
        _cleanup_free_ size_t *owner = calloc(total, sizeof(*owner));
        _cleanup_free_ struct ctk_devnode *nodes = calloc(total, sizeof(*nodes));
        out->gpus = calloc(n + 1, sizeof(*out->gpus));
        if (paths == NULL || owner == NULL || nodes == NULL || out->gpus == NULL) {
                ctk_cdi_host_clear(out);
                return ctk_error_set(err, ENOMEM, "out of memory");
        }
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
                for (size_t j = 0; j < gpus->v[idx[i]].drm.n; j++) {
                        owner[k] = idx[i];
                        paths[k++] = gpus->v[idx[i]].drm.v[j];
                }
        paths[k++] = CTK_CDI_KFD_PATH;
        size_t failed = 0;
        if (ctk_devnode_stat_many(b, paths, k, nodes, &failed, err) < 0) {
                ctk_cdi_host_clear(out);
                return failed + 1 < k ? ctk_error_prefix(err, "GPU %zu", owner[failed]) : -1;
        }
        k = 0;
        for (size_t i = 0; i < n; i++) {
                const struct ctk_gpu *g = &gpus->v[idx[i]];
                struct ctk_cdi_host_gpu *hg = &out->gpus[out->n++];
                *hg = (struct ctk_cdi_host_gpu){.index = g->index, .has_uuid = g->has_uuid, .uuid = g->uuid};
                hg->nodes = calloc(g->drm.n + 1, sizeof(*hg->nodes));
                if (hg->nodes == NULL) {
                        for (size_t j = k; j < total; j++)
                                ctk_devnode_clear(&nodes[j]);
                        ctk_cdi_host_clear(out);
                        return ctk_error_set(err, ENOMEM, "out of memory");
                }
                for (size_t j = 0; j < g->drm.n; j++)
                        hg->nodes[hg->n++] = nodes[k++];
        }
        out->kfd = nodes[k];
        return 0;
}

int ctk_cdi_host_collect(struct ctk_backend *b, const struct ctk_gpu_list *gpus, struct ctk_cdi_host *out,
                         struct ctk_error **err)
{
        _cleanup_free_ size_t *idx = calloc(gpus->n + 1, sizeof(*idx));
        if (idx == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < gpus->n; i++)
                idx[i] = i;
        return ctk_cdi_host_collect_some(b, gpus, idx, gpus->n, out, err);
}
