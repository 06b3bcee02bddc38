#include "backends/fakefs/host.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "backends/fakefs/build.h"
#include "backends/fakefs/layout.h"
#include "core/base/base.h"

struct ctk_fakefs_host {
        unsigned int refs;
        struct ctk_fakefs_profile *profile;
        pthread_mutex_t write_lock; /* serialises changes (held while building) */
        pthread_mutex_t lock;       /* protects state and tree (held only to swap or take a reference) */
        struct ctk_fakefs_state state;
        struct ctk_fakefs_tree *tree;
};

int ctk_fakefs_host_new_from_profile(struct ctk_fakefs_profile *p, struct ctk_fakefs_host **out, struct ctk_error **err)
{
        _cleanup_fakefs_profile_ struct ctk_fakefs_profile *owned = p;
        struct ctk_fakefs_state st = {0};
        struct ctk_fakefs_tree *t = NULL;
        if (ctk_fakefs_state_init(p, &st, err) < 0)
                return -1;
        if (ctk_fakefs_build(p, &st, &t, err) < 0) {
                ctk_fakefs_state_clear(&st);
                return -1;
        }
        struct ctk_fakefs_host *h = calloc(1, sizeof(*h));
        if (h == NULL) {
                ctk_fakefs_state_clear(&st);
                ctk_fakefs_tree_unref(t);
                return ctk_error_set(err, ENOMEM, "out of memory");
        }
        h->refs = 1;
        h->profile = ctk_steal(&owned);
        h->state = st;
        h->tree = t;
        pthread_mutex_init(&h->write_lock, NULL);
        pthread_mutex_init(&h->lock, NULL);
        *out = h;
        return 0;
}

int ctk_fakefs_host_new(const char *profile_path, struct ctk_fakefs_host **out, struct ctk_error **err)
{
        struct ctk_fakefs_profile *p = NULL;
        if (ctk_fakefs_profile_load(profile_path, &p, err) < 0)
                return -1;
        return ctk_fakefs_host_new_from_profile(p, out, err);
}

struct ctk_fakefs_host *ctk_fakefs_host_ref(struct ctk_fakefs_host *h)
{
        __atomic_add_fetch(&h->refs, 1, __ATOMIC_RELAXED);
        return h;
}

void ctk_fakefs_host_unref(struct ctk_fakefs_host *h)
{
        if (h == NULL || __atomic_sub_fetch(&h->refs, 1, __ATOMIC_ACQ_REL) != 0)
                return;
        ctk_fakefs_tree_unref(h->tree);
        ctk_fakefs_state_clear(&h->state);
        ctk_fakefs_profile_free(h->profile);
        pthread_mutex_destroy(&h->write_lock);
        pthread_mutex_destroy(&h->lock);
        free(h);
}

const struct ctk_fakefs_profile *ctk_fakefs_host_profile(const struct ctk_fakefs_host *h)
{
        return h->profile;
}

struct ctk_fakefs_tree *ctk_fakefs_host_snapshot(struct ctk_fakefs_host *h)
{
        pthread_mutex_lock(&h->lock);
        struct ctk_fakefs_tree *t = ctk_fakefs_tree_ref(h->tree);
        pthread_mutex_unlock(&h->lock);
        return t;
}

/* Builds the tree of `next` and makes it current (takes next's storage). */
static int commit(struct ctk_fakefs_host *h, struct ctk_fakefs_state *next, struct ctk_error **err)
{
        struct ctk_fakefs_tree *t = NULL;
        next->changes++;
        if (ctk_fakefs_build(h->profile, next, &t, err) < 0) {
                ctk_fakefs_state_clear(next);
                return -1;
        }
        pthread_mutex_lock(&h->lock);
        struct ctk_fakefs_tree *old = h->tree;
        struct ctk_fakefs_state old_state = h->state;
        h->tree = t;
        h->state = *next;
        pthread_mutex_unlock(&h->lock);
        ctk_fakefs_tree_unref(old);
        ctk_fakefs_state_clear(&old_state);
        return 0;
}

enum change { SET_COMPUTE, SET_MEMORY, UNPLUG, PLUG };

/* Trims white space; returns the matching available mode or NULL. */
static const char *match_mode(const struct ctk_strv *available, const char *mode)
{
        while (isspace((unsigned char)*mode))
                mode++;
        size_t len = strlen(mode);
        while (len > 0 && isspace((unsigned char)mode[len - 1]))
                len--;
        for (size_t i = 0; i < available->n; i++)
                if (strlen(available->v[i]) == len && strncasecmp(available->v[i], mode, len) == 0)
                        return available->v[i];
        return NULL;
}

/* Applies a change to *next; returns 1 if something changes, 0 if not. */
static int apply(struct ctk_fakefs_host *h, struct ctk_fakefs_state *next, size_t i, enum change what, const char *mode,
                 struct ctk_error **err)
{
        const struct ctk_fakefs_gpu *g = &h->profile->gpus[i];
        struct ctk_fakefs_gpu_state *gs = &next->gpus[i];
        if (what == UNPLUG || what == PLUG) {
                bool present = what == PLUG;
                if (gs->present == present)
                        return 0;
                gs->present = present;
                return 1;
        }
        const char *kind = what == SET_COMPUTE ? "compute" : "memory";
        if (!gs->present)
                return ctk_error_set(err, ENODEV, "gpu %s is unplugged", CTK_CUT(g->pci));
        if (!g->partition.supported)
                return ctk_error_set(err, EINVAL, "gpu %s has no partition support", CTK_CUT(g->pci));
        const struct ctk_strv *avail =
            what == SET_COMPUTE ? &g->partition.available_compute : &g->partition.available_memory;
        const char *m = match_mode(avail, mode);
        if (m == NULL)
                return ctk_error_set(err, EINVAL, "gpu %s: %s partition mode \"%s\" is not available", CTK_CUT(g->pci),
                                     CTK_CUT(kind), CTK_CUT(mode));
        char *cur = what == SET_COMPUTE ? gs->compute : gs->memory;
        if (strcmp(cur, m) == 0)
                return 0;
        (void)snprintf(cur, CTK_FAKEFS_MODE_LEN, "%s", m); /* a known mode: 4 characters at most */
        return 1;
}

static int change(struct ctk_fakefs_host *h, const char *pci, enum change what, const char *mode,
                  struct ctk_error **err)
{
        size_t i;
        if (ctk_fakefs_profile_find_gpu(h->profile, pci, &i) == NULL)
                return ctk_error_set(err, ENOENT, "no GPU at PCI address %s in %s", CTK_CUT(pci),
                                     CTK_CUT(h->profile->path));
        pthread_mutex_lock(&h->write_lock);
        struct ctk_fakefs_state next = {0};
        int rc = ctk_fakefs_state_copy(&h->state, &next, err);
        if (rc == 0)
                rc = apply(h, &next, i, what, mode, err);
        if (rc == 1)
                rc = commit(h, &next, err);
        else
                ctk_fakefs_state_clear(&next);
        pthread_mutex_unlock(&h->write_lock);
        return rc < 0 ? -1 : 0;
}

int ctk_fakefs_host_set_compute_partition(struct ctk_fakefs_host *h, const char *pci, const char *mode,
                                          struct ctk_error **err)
{
        return change(h, pci, SET_COMPUTE, mode, err);
}

int ctk_fakefs_host_set_memory_partition(struct ctk_fakefs_host *h, const char *pci, const char *mode,
                                         struct ctk_error **err)
{
        return change(h, pci, SET_MEMORY, mode, err);
}

int ctk_fakefs_host_unplug(struct ctk_fakefs_host *h, const char *pci, struct ctk_error **err)
{
        return change(h, pci, UNPLUG, NULL, err);
}

int ctk_fakefs_host_plug(struct ctk_fakefs_host *h, const char *pci, struct ctk_error **err)
{
        return change(h, pci, PLUG, NULL, err);
}

int ctk_fakefs_host_unplugged(struct ctk_fakefs_host *h, struct ctk_strv *out)
{
        pthread_mutex_lock(&h->lock);
        int rc = 0;
        for (size_t i = 0; i < h->state.ngpus && rc == 0; i++)
                if (!h->state.gpus[i].present)
                        rc = ctk_strv_push(out, h->profile->gpus[i].pci);
        pthread_mutex_unlock(&h->lock);
        return rc;
}
