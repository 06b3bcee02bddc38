/* GPU tracker decisions on an in-memory state (pure: no I/O, no locking).
 *
 * Rules (the user documentation's, without the Go toolkit's flaws):
 *  - a shared GPU may be held by any number of containers;
 *  - an exclusive GPU by at most one; the container already holding it may
 *    ask again;
 *  - an allocation is all-or-nothing: either every requested GPU is granted
 *    or the state is left exactly as it was;
 *  - a GPU requested twice counts once, a container holds a GPU once;
 *  - a GPU can be made exclusive only while at most one container uses it. */
#ifndef CTK_TRACKER_ALLOC_H
#define CTK_TRACKER_ALLOC_H

#include <stdbool.h>
#include <stddef.h>

#include "core/base/base.h"
#include "state.h"

/* Length of the short container id used in messages (docker's). */
#define CTK_SHORT_ID_LEN 12

/* A container id is safe to record and to use as a path component:
 * 1..1024 printable characters, no '/', not "." or "..". */
bool ctk_tracker_valid_container_id(const char *id);

/* Grants `who->id` every GPU in idx[0..n) or nothing.  On refusal returns -1
 * with err->code EBUSY and one line naming each refused GPU and its holder:
 *   "GPU 1 is exclusive and in use by container 90cb29e11e83"
 *   (several joined with "; ").
 * `who` also carries how to reconcile the container later (runtime root,
 * pid); its entry is added or updated when GPUs are granted.  *changed says
 * whether the state differs afterwards. */
int ctk_tracker_state_alloc(struct ctk_tracker_state *s, const struct ctk_tracker_container *who, const size_t *idx,
                            size_t n, bool *changed, struct ctk_error **err);

/* Forgets the container and every GPU it holds.  Returns true if the state
 * changed. */
bool ctk_tracker_state_release(struct ctk_tracker_state *s, const char *id);

struct ctk_tracker_access_result {
        bool enabled;    /* false: the tracker is disabled, nothing was done */
        size_t *changed; /* GPUs given the new accessibility, ascending */
        size_t nchanged;
        size_t *refused; /* exclusive only: GPUs used by more than one container */
        size_t nrefused;
};
void ctk_tracker_access_result_clear(struct ctk_tracker_access_result *r);

/* Sets the accessibility of idx[0..n) (duplicates count once). */
int ctk_tracker_state_set_access(struct ctk_tracker_state *s, const size_t *idx, size_t n,
                                 enum ctk_tracker_access access, struct ctk_tracker_access_result *r,
                                 struct ctk_error **err);

/* Drops containers that hold no GPU. Returns true if any was dropped. */
bool ctk_tracker_state_prune(struct ctk_tracker_state *s);

#endif
