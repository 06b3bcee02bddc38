/* The GPU tracker state model: init, copy, clear, lookups. */
#include "state.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void gpu_clear(struct ctk_tracker_gpu *g)
{
        free(g->pci);
        free(g->partition);
        ctk_strv_clear(&g->drm);
        memset(g, 0, sizeof(*g));
}

static void container_clear(struct ctk_tracker_container *c)
{
        free(c->id);
        free(c->gpus);
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

static int container_copy(struct ctk_tracker_container *b, const struct ctk_tracker_container *a)
{
        if ((b->id = strdup(a->id)) == NULL)
                return -1;
        if (a->runtime_root != NULL && (b->runtime_root = strdup(a->runtime_root)) == NULL)
                return -1;
        if (a->ngpus > 0) {
                if ((b->gpus = malloc(a->ngpus * sizeof(*b->gpus))) == NULL)
                        return -1;
                memcpy(b->gpus, a->gpus, a->ngpus * sizeof(*b->gpus));
        }
        b->ngpus = a->ngpus;
        b->pid = a->pid;
        b->pid_start = a->pid_start;
        return 0;
}

int ctk_tracker_state_copy(struct ctk_tracker_state *dst, const struct ctk_tracker_state *src, struct ctk_error **err)
{
        /* built in a local, handed over whole (dst is all zeros on failure) */
        struct ctk_tracker_state t = {.enabled = src->enabled};
        *dst = t;
        if (src->boot_id != NULL && (t.boot_id = strdup(src->boot_id)) == NULL)
                goto oom;
        if (src->ngpus > 0 && (t.gpus = calloc(src->ngpus, sizeof(*t.gpus))) == NULL)
                goto oom;
        for (size_t i = 0; i < src->ngpus; i++) {
                const struct ctk_tracker_gpu *a = &src->gpus[i];
                struct ctk_tracker_gpu *b = &t.gpus[i];
                t.ngpus = i + 1;
                b->pci = dup_or_empty(a->pci);
                b->partition = dup_or_empty(a->partition);
                if (b->pci == NULL || b->partition == NULL || strv_copy(&b->drm, &a->drm) < 0)
                        goto oom;
                b->has_uuid = a->has_uuid;
                b->uuid = a->uuid;
                b->access = a->access;
        }
        if (src->ncontainers > 0 && (t.containers = calloc(src->ncontainers, sizeof(*t.containers))) == NULL)
                goto oom;
        for (size_t i = 0; i < src->ncontainers; i++) {
                t.ncontainers = i + 1;
                if (container_copy(&t.containers[i], &src->containers[i]) < 0)
                        goto oom;
        }
        *dst = t;
        return 0;
oom:
        ctk_tracker_state_clear(&t);
        return ctk_error_set(err, ENOMEM, "out of memory");
}

struct ctk_tracker_container *ctk_tracker_state_find_container(const struct ctk_tracker_state *s, const char *id)
{
        for (size_t i = 0; i < s->ncontainers; i++)
                if (strcmp(s->containers[i].id, id) == 0)
                        return &s->containers[i];
        return NULL;
}

bool ctk_tracker_container_holds(const struct ctk_tracker_container *c, size_t gpu)
{
        size_t lo = 0, hi = c->ngpus;
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (c->gpus[mid] == gpu)
                        return true;
                if (c->gpus[mid] < gpu)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return false;
}

size_t ctk_tracker_state_count_holders(const struct ctk_tracker_state *s, size_t gpu)
{
        size_t n = 0;
        for (size_t i = 0; i < s->ncontainers; i++)
                n += ctk_tracker_container_holds(&s->containers[i], gpu);
        return n;
}

void ctk_tracker_state_remove_container(struct ctk_tracker_state *s, size_t i)
{
        container_clear(&s->containers[i]);
        memmove(&s->containers[i], &s->containers[i + 1], (s->ncontainers - i - 1) * sizeof(*s->containers));
        s->ncontainers--;
}
