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
                for (size_t j = 0; j < h->gpus[i].n; j++)
                        ctk_devnode_clear(&h->gpus[i].nodes[j]);
                free(h->gpus[i].nodes);
        }
        free(h->gpus);
        ctk_devnode_clear(&h->kfd);
        *h = (struct ctk_cdi_host){0};
}

int ctk_cdi_host_collect(struct ctk_backend *b, const struct ctk_gpu_list *gpus, struct ctk_cdi_host *out,
                         struct ctk_error **err)
{
        *out = (struct ctk_cdi_host){0};
        out->gpus = calloc(gpus->n > 0 ? gpus->n : 1, sizeof(*out->gpus));
        if (out->gpus == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < gpus->n; i++) {
                const struct ctk_gpu *g = &gpus->v[i];
                struct ctk_cdi_host_gpu *hg = &out->gpus[out->n++];
                hg->index = g->index;
                hg->has_uuid = g->has_uuid;
                hg->uuid = g->uuid;
                hg->nodes = calloc(g->drm.n > 0 ? g->drm.n : 1, sizeof(*hg->nodes));
                if (hg->nodes == NULL) {
                        ctk_cdi_host_clear(out);
                        return ctk_error_set(err, ENOMEM, "out of memory");
                }
                for (size_t j = 0; j < g->drm.n; j++) {
                        if (ctk_devnode_stat(b, g->drm.v[j], &hg->nodes[j], err) < 0) {
                                ctk_cdi_host_clear(out);
                                return ctk_error_prefix(err, "GPU %zu", g->index);
                        }
                        hg->n++;
                }
        }
        if (ctk_devnode_stat(b, CTK_CDI_KFD_PATH, &out->kfd, err) < 0) {
                ctk_cdi_host_clear(out);
                return -1;
        }
        return 0;
}
