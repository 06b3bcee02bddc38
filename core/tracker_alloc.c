#include "tracker_alloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"

bool ctk_tracker_valid_container_id(const char *id)
{
        size_t n = id != NULL ? strlen(id) : 0;
        if (n == 0 || n > 1024 || strcmp(id, ".") == 0 || strcmp(id, "..") == 0)
                return false;
        for (const unsigned char *p = (const unsigned char *)id; *p != '\0'; p++)
                if (*p == '/' || *p <= ' ' || *p == 0x7f)
                        return false;
        return true;
}

/* Marks requested GPUs in a bitmap-like array; rejects out-of-range ones. */
static int requested(const struct ctk_tracker_state *s, const size_t *idx, size_t n, bool **out, struct ctk_error **err)
{
        *out = calloc(s->ngpus + 1, sizeof(bool));
        if (*out == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < n; i++) {
                if (idx[i] >= s->ngpus) {
                        free(*out);
                        *out = NULL;
                        return ctk_error_set(err, EINVAL, "GPU %zu does not exist (the tracker knows %zu GPUs)", idx[i],
                                             s->ngpus);
                }
                (*out)[idx[i]] = true;
        }
        return 0;
}

static int append_refusal(char **msg, size_t gpu, const char *holder)
{
        char *m = NULL;
        int r = asprintf(&m, "%s%sGPU %zu is exclusive and in use by container %.*s", *msg ? *msg : "",
                         *msg ? "; " : "", gpu, CTK_SHORT_ID_LEN, holder);
        free(*msg);
        *msg = r < 0 ? NULL : m;
        return r < 0 ? -1 : 0;
}

static int upsert_container(struct ctk_tracker_state *s, const struct ctk_tracker_container *who, bool *changed)
{
        struct ctk_tracker_container *c = ctk_tracker_state_find_container(s, who->id);
        if (c == NULL) {
                struct ctk_tracker_container *v = realloc(s->containers, (s->ncontainers + 1) * sizeof(*v));
                if (v == NULL)
                        return -1;
                s->containers = v;
                c = &v[s->ncontainers];
                memset(c, 0, sizeof(*c));
                if ((c->id = strdup(who->id)) == NULL)
                        return -1;
                s->ncontainers++;
                *changed = true;
        }
        const char *old = c->runtime_root, *new = who->runtime_root;
        if ((old == NULL) != (new == NULL) || (old != NULL && strcmp(old, new) != 0)) {
                char *r = new != NULL ? strdup(new) : NULL;
                if (new != NULL && r == NULL)
                        return -1;
                free(c->runtime_root);
                c->runtime_root = r;
                *changed = true;
        }
        if (c->pid != who->pid || c->pid_start != who->pid_start) {
                c->pid = who->pid;
                c->pid_start = who->pid_start;
                *changed = true;
        }
        return 0;
}

int ctk_tracker_state_alloc(struct ctk_tracker_state *s, const struct ctk_tracker_container *who, const size_t *idx,
                            size_t n, bool *changed, struct ctk_error **err)
{
        *changed = false;
        if (!ctk_tracker_valid_container_id(who->id))
                return ctk_error_set(err, EINVAL, "invalid container id \"%s\"", who->id ? who->id : "");
        _cleanup_free_ bool *want = NULL;
        if (requested(s, idx, n, &want, err) < 0)
                return -1;
        /* Decide first, on the unchanged state ... */
        _cleanup_free_ char *msg = NULL;
        bool any = false;
        for (size_t i = 0; i < s->ngpus; i++) {
                if (!want[i])
                        continue;
                any = true;
                const struct ctk_tracker_gpu *g = &s->gpus[i];
                if (g->access != CTK_TRACKER_EXCLUSIVE)
                        continue;
                for (size_t h = 0; h < g->holders.n; h++) {
                        if (strcmp(g->holders.v[h], who->id) == 0)
                                continue;
                        if (append_refusal(&msg, i, g->holders.v[h]) < 0)
                                return ctk_error_set(err, ENOMEM, "out of memory");
                        break;
                }
        }
        if (msg != NULL)
                return ctk_error_set(err, EBUSY, "%s", msg);
        if (!any)
                return 0;
        /* ... then apply.  Running out of memory half-way leaves a state the
         * caller must not save (it returns the error and drops it). */
        for (size_t i = 0; i < s->ngpus; i++) {
                if (!want[i] || ctk_strv_contains(&s->gpus[i].holders, who->id))
                        continue;
                if (ctk_strv_push(&s->gpus[i].holders, who->id) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
                *changed = true;
        }
        if (upsert_container(s, who, changed) < 0)
                return ctk_error_set(err, ENOMEM, "out of memory");
        return 0;
}

static bool strv_remove_all(struct ctk_strv *sv, const char *str)
{
        size_t w = 0;
        for (size_t r = 0; r < sv->n; r++) {
                if (strcmp(sv->v[r], str) == 0)
                        free(sv->v[r]);
                else
                        sv->v[w++] = sv->v[r];
        }
        bool changed = w != sv->n;
        sv->n = w;
        if (sv->v != NULL)
                sv->v[w] = NULL;
        return changed;
}

static void remove_container_at(struct ctk_tracker_state *s, size_t i)
{
        free(s->containers[i].id);
        free(s->containers[i].runtime_root);
        memmove(&s->containers[i], &s->containers[i + 1], (s->ncontainers - i - 1) * sizeof(*s->containers));
        s->ncontainers--;
}

bool ctk_tracker_state_release(struct ctk_tracker_state *s, const char *id)
{
        bool changed = false;
        for (size_t i = 0; i < s->ngpus; i++)
                changed |= strv_remove_all(&s->gpus[i].holders, id);
        for (size_t i = 0; i < s->ncontainers; i++)
                if (strcmp(s->containers[i].id, id) == 0) {
                        remove_container_at(s, i);
                        changed = true;
                        break;
                }
        return changed;
}

bool ctk_tracker_state_prune(struct ctk_tracker_state *s)
{
        bool changed = false;
        for (size_t i = 0; i < s->ncontainers;) {
                bool held = false;
                for (size_t g = 0; g < s->ngpus && !held; g++)
                        held = ctk_strv_contains(&s->gpus[g].holders, s->containers[i].id);
                if (held) {
                        i++;
                } else {
                        remove_container_at(s, i);
                        changed = true;
                }
        }
        return changed;
}

void ctk_tracker_access_result_clear(struct ctk_tracker_access_result *r)
{
        free(r->changed);
        free(r->refused);
        memset(r, 0, sizeof(*r));
}

int ctk_tracker_state_set_access(struct ctk_tracker_state *s, const size_t *idx, size_t n,
                                 enum ctk_tracker_access access, struct ctk_tracker_access_result *r,
                                 struct ctk_error **err)
{
        _cleanup_free_ bool *want = NULL;
        if (requested(s, idx, n, &want, err) < 0)
                return -1;
        size_t cap = s->ngpus > 0 ? s->ngpus : 1;
        free(r->changed);
        free(r->refused);
        r->changed = calloc(cap, sizeof(size_t));
        r->refused = calloc(cap, sizeof(size_t));
        r->nchanged = r->nrefused = 0;
        if (r->changed == NULL || r->refused == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < s->ngpus; i++) {
                if (!want[i])
                        continue;
                if (access == CTK_TRACKER_EXCLUSIVE && s->gpus[i].holders.n > 1) {
                        r->refused[r->nrefused++] = i;
                        continue;
                }
                s->gpus[i].access = access;
                r->changed[r->nchanged++] = i;
        }
        return 0;
}
