/* struct ctk_gpu helpers (discovery itself is in discover.c). */
#include <stdlib.h>
#include <string.h>

#include "gpu.h"

static const char *drm_path(const struct ctk_gpu *g, const char *prefix)
{
        size_t len = strlen(prefix);
        for (size_t i = 0; i < g->drm.n; i++)
                if (strncmp(g->drm.v[i], prefix, len) == 0)
                        return g->drm.v[i];
        return NULL;
}

const char *ctk_gpu_render_path(const struct ctk_gpu *g)
{
        return drm_path(g, "/dev/dri/renderD");
}
const char *ctk_gpu_card_path(const struct ctk_gpu *g)
{
        return drm_path(g, "/dev/dri/card");
}

void ctk_gpu_list_clear(struct ctk_gpu_list *l)
{
        for (size_t i = 0; i < l->n; i++) {
                struct ctk_gpu *g = &l->v[i];
                free(g->pci);
                free(g->group_key);
                free(g->sysfs_path);
                free(g->partition);
                ctk_strv_clear(&g->drm);
        }
        free(l->v);
        l->v = NULL;
        l->n = 0;
}
