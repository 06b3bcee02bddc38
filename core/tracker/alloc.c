#include "alloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/base.h"

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

/* c->gpus := c->gpus U {i : want[i]}; returns 1 if it grew, -1 on ENOMEM. */
static int merge_gpus(struct ctk_tracker_container *c, const bool *want, size_t ngpus)
{
        size_t n = 0;
        for (size_t i = 0; i < ngpus; i++)
                n += want[i] || ctk_tracker_container_holds(c, i);
        if (n == c->ngpus)
                return 0;
        size_t *v = calloc(n, sizeof(*v));
        if (v == NULL)
                return -1;
        n = 0;
        for (size_t i = 0; i < ngpus; i++)
                if (want[i] || ctk_tracker_container_holds(c, i))
                        v[n++] = i;
        free(c->gpus);
        c->gpus = v;
        c->ngpus = n;
        return 1;
}

static int update_owner(struct ctk_tracker_container *c, const struct ctk_tracker_container *who, bool *changed)
{
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

static struct ctk_tracker_container *append_container(struct ctk_tracker_state *s, const char *id)
{
        struct ctk_tracker_container *v = realloc(s->containers, (s->ncontainers + 1) * sizeof(*v));
        if (v == NULL)
                return NULL;
        s->containers = v;
        struct ctk_tracker_container *c = &v[s->ncontainers];
        memset(c, 0, sizeof(*c));
        if ((c->id = strdup(id)) == NULL)
                return NULL;
        s->ncontainers++;
        return c;
}

int ctk_tracker_state_alloc(struct ctk_tracker_state *s, const struct ctk_tracker_container *who, const size_t *idx,
                            size_t n, bool *changed, struct ctk_error **err)
{
        *changed = false;
        if (!ctk_tracker_valid_container_id(who->id))
                return ctk_error_set(err, EINVAL, "invalid container id \"%s\"", CTK_CUT(who->id ? who->id : ""));
        _cleanup_free_ bool *want = NULL;
        if (requested(s, idx, n, &want, err) < 0)
                return -1;
        bool any = false;
        for (size_t i = 0; i < s->ngpus; i++)
                any |= want[i];
        if (!any)
                return 0;
        /* Decide first, on the unchanged state ... */
        _cleanup_free_ const char **holder = calloc(s->ngpus, sizeof(*holder));
        if (holder == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < s->ncontainers; i++) {
                const struct ctk_tracker_container *c = &s->containers[i];
                if (strcmp(c->id, who->id) == 0)
                        continue;
                for (size_t k = 0; k < c->ngpus; k++) {
                        size_t g = c->gpus[k];
                        if (want[g] && s->gpus[g].access == CTK_TRACKER_EXCLUSIVE && holder[g] == NULL)
                                holder[g] = c->id;
                }
        }
        _cleanup_free_ char *msg = NULL;
        for (size_t g = 0; g < s->ngpus; g++)
                if (holder[g] != NULL && append_refusal(&msg, g, holder[g]) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
        if (msg != NULL)
                return ctk_error_set_msg(err, EBUSY, msg);
        /* ... then apply.  Running out of memory half-way leaves a state the
         * caller must not save (it returns the error and drops it). */
        struct ctk_tracker_container *c = ctk_tracker_state_find_container(s, who->id);
        if (c == NULL) {
                if ((c = append_container(s, who->id)) == NULL)
                        return ctk_error_set(err, ENOMEM, "out of memory");
                *changed = true;
        }
        int grew = merge_gpus(c, want, s->ngpus);
        if (grew < 0 || update_owner(c, who, changed) < 0)
                return ctk_error_set(err, ENOMEM, "out of memory");
        *changed |= grew > 0;
        return 0;
}

bool ctk_tracker_state_release(struct ctk_tracker_state *s, const char *id)
{
        bool changed = false;
        for (size_t i = 0; i < s->ncontainers;) {
                if (strcmp(s->containers[i].id, id) == 0) {
                        ctk_tracker_state_remove_container(s, i);
                        changed = true;
                } else {
                        i++;
                }
        }
        return changed;
}

bool ctk_tracker_state_prune(struct ctk_tracker_state *s)
{
        bool changed = false;
        for (size_t i = 0; i < s->ncontainers;) {
                if (s->containers[i].ngpus == 0) {
                        ctk_tracker_state_remove_container(s, i);
                        changed = true;
                } else {
                        i++;
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
        _cleanup_free_ size_t *holders = calloc(cap, sizeof(size_t));
        free(r->changed);
        free(r->refused);
        r->changed = calloc(cap, sizeof(size_t));
        r->refused = calloc(cap, sizeof(size_t));
        r->nchanged = r->nrefused = 0;
        if (r->changed == NULL || r->refused == NULL || holders == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < s->ncontainers; i++)
                for (size_t k = 0; k < s->containers[i].ngpus; k++)
                        holders[s->containers[i].gpus[k]]++;
        for (size_t i = 0; i < s->ngpus; i++) {
                if (!want[i])
                        continue;
                if (access == CTK_TRACKER_EXCLUSIVE && holders[i] > 1) {
                        r->refused[r->nrefused++] = i;
                        continue;
                }
                s->gpus[i].access = access;
                r->changed[r->nchanged++] = i;
        }
        return 0;
}
