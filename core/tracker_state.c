/* The GPU tracker state model: init, copy, clear, lookups. */
#include "tracker_state.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void gpu_clear(struct ctk_tracker_gpu *g)
{
        free(g->pci);
        free(g->partition);
        ctk_strv_clear(&g->drm);
        ctk_strv_clear(&g->holders);
        memset(g, 0, sizeof(*g));
}

static void container_clear(struct ctk_tracker_container *c)
{
        free(c->id);
        free(c->runtime_root);
        memset(c, 0, sizeof(*c));
}

void ctk_tracker_state_clear(struct ctk_tracker_state *s)
{
        for (size_t i = 0; i < s->ngpus; i++)
                gpu_clear(&s->gpus[i]);
        for (size_t i = 0; i < s->ncontainers; i++)
                container_clear(&s->containers[i]);
        free(s->gpus);
        free(s->containers);
        free(s->boot_id);
        memset(s, 0, sizeof(*s));
}

static int strv_copy(struct ctk_strv *dst, const struct ctk_strv *src)
{
        for (size_t i = 0; i < src->n; i++)
                if (ctk_strv_push(dst, src->v[i]) < 0)
                        return -1;
        return 0;
}

static char *dup_or_empty(const char *s)
{
        return strdup(s != NULL ? s : "");
}

int ctk_tracker_state_init(struct ctk_tracker_state *s, const struct ctk_gpu_list *gpus, bool enabled,
                           const char *boot_id, struct ctk_error **err)
{
        memset(s, 0, sizeof(*s));
        s->enabled = enabled;
        if (boot_id != NULL && (s->boot_id = strdup(boot_id)) == NULL)
                goto oom;
        size_t n = gpus != NULL ? gpus->n : 0;
        if (n > 0 && (s->gpus = calloc(n, sizeof(*s->gpus))) == NULL)
                goto oom;
        for (size_t i = 0; i < n; i++) {
                const struct ctk_gpu *g = &gpus->v[i];
                struct ctk_tracker_gpu *t = &s->gpus[i];
                s->ngpus = i + 1;
                t->pci = dup_or_empty(g->pci);
                t->partition = dup_or_empty(g->partition);
                if (t->pci == NULL || t->partition == NULL || strv_copy(&t->drm, &g->drm) < 0)
                        goto oom;
                t->has_uuid = g->has_uuid;
                t->uuid = g->uuid;
                t->access = CTK_TRACKER_SHARED;
        }
        return 0;
oom:
        ctk_tracker_state_clear(s);
        return ctk_error_set(err, ENOMEM, "out of memory");
}

int ctk_tracker_state_copy(struct ctk_tracker_state *dst, const struct ctk_tracker_state *src, struct ctk_error **err)
{
        memset(dst, 0, sizeof(*dst));
        dst->enabled = src->enabled;
        if (src->boot_id != NULL && (dst->boot_id = strdup(src->boot_id)) == NULL)
                goto oom;
        if (src->ngpus > 0 && (dst->gpus = calloc(src->ngpus, sizeof(*dst->gpus))) == NULL)
                goto oom;
        for (size_t i = 0; i < src->ngpus; i++) {
                const struct ctk_tracker_gpu *a = &src->gpus[i];
                struct ctk_tracker_gpu *b = &dst->gpus[i];
                dst->ngpus = i + 1;
                b->pci = dup_or_empty(a->pci);
                b->partition = dup_or_empty(a->partition);
                if (b->pci == NULL || b->partition == NULL || strv_copy(&b->drm, &a->drm) < 0 ||
                    strv_copy(&b->holders, &a->holders) < 0)
                        goto oom;
                b->has_uuid = a->has_uuid;
                b->uuid = a->uuid;
                b->access = a->access;
        }
        if (src->ncontainers > 0 && (dst->containers = calloc(src->ncontainers, sizeof(*dst->containers))) == NULL)
                goto oom;
        for (size_t i = 0; i < src->ncontainers; i++) {
                const struct ctk_tracker_container *a = &src->containers[i];
                struct ctk_tracker_container *b = &dst->containers[i];
                dst->ncontainers = i + 1;
                if ((b->id = strdup(a->id)) == NULL)
                        goto oom;
                if (a->runtime_root != NULL && (b->runtime_root = strdup(a->runtime_root)) == NULL)
                        goto oom;
                b->pid = a->pid;
                b->pid_start = a->pid_start;
        }
        return 0;
oom:
        ctk_tracker_state_clear(dst);
        return ctk_error_set(err, ENOMEM, "out of memory");
}

struct ctk_tracker_container *ctk_tracker_state_find_container(const struct ctk_tracker_state *s, const char *id)
{
        for (size_t i = 0; i < s->ncontainers; i++)
                if (strcmp(s->containers[i].id, id) == 0)
                        return &s->containers[i];
        return NULL;
}
