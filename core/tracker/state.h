/* The GPU tracker state: the model and its JSON file form.
 *
 * File form (compact JSON on one line, each fact stored once):
 *
 *   {"version":1,"enabled":true,"bootId":"6e1f...",
 *    "gpus":[{"uuid":"0xEA35F57CC80DEB35","pci":"0000:03:00.0","partition":"",
 *             "drm":["/dev/dri/card1","/dev/dri/renderD128"],"accessibility":"exclusive"}, ...],
 *    "runtimeRoots":["/run/docker/runtime-runc/moby"],
 *    "containers":[["36b0...",[0,1,2],0,4242,123456], ...]}
 *
 * gpus[i] is GPU index i (uuid null: the device has none; accessibility
 * "shared" or "exclusive").  A container is [id, GPU indices, index into
 * runtimeRoots or null, pid, pid start time]: the GPUs it holds and how to
 * tell whether it still exists (reconcile.h; root null = never
 * reconciled).  Containers are listed in allocation order, which is the
 * order the status shows them in.  Unknown keys are ignored; a wrong type or
 * value is an error naming the place.  Both directions go through jansson
 * (state_json.c). */
#ifndef CTK_TRACKER_STATE_H
#define CTK_TRACKER_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/base/base.h"
#include "core/device/device.h"

#define CTK_TRACKER_STATE_VERSION 1

enum ctk_tracker_access {
        CTK_TRACKER_SHARED = 0,
        CTK_TRACKER_EXCLUSIVE = 1,
};

struct ctk_tracker_gpu {
        /* Identity: what tells that index i is still the same device (see
         * topology.h). */
        char *pci;       /* BDF of the physical GPU, "" if unknown */
        char *partition; /* "spx_nps1", "" (only the first partition carries it) */
        bool has_uuid;
        uint64_t uuid;
        /* Recorded for information only (card numbers may change at boot). */
        struct ctk_strv drm;
        enum ctk_tracker_access access;
};

/* A tracked container: the GPUs it holds and how to tell whether it still
 * exists. */
struct ctk_tracker_container {
        char *id;
        size_t *gpus; /* ascending, unique */
        size_t ngpus;
        char *runtime_root;           /* low-level runtime --root, NULL = unknown */
        pid_t pid;                    /* the process that allocated (creating runtime), 0 = unknown */
        unsigned long long pid_start; /* its start time (/proc/PID/stat field 22) */
};

struct ctk_tracker_state {
        bool enabled;
        char *boot_id; /* NULL = unknown */
        struct ctk_tracker_gpu *gpus;
        size_t ngpus;
        struct ctk_tracker_container *containers; /* allocation order */
        size_t ncontainers;
};

/* Frees the state and zeroes it. */
void ctk_tracker_state_clear(struct ctk_tracker_state *s);
static inline void ctk_tracker_state_clearp(struct ctk_tracker_state *s)
{
        ctk_tracker_state_clear(s);
}
#define _cleanup_tracker_state_ __attribute__((cleanup(ctk_tracker_state_clearp)))

/* Fresh state: every host GPU shared and unused (gpus may be NULL: none). */
int ctk_tracker_state_init(struct ctk_tracker_state *s, const struct ctk_gpu_list *gpus, bool enabled,
                           const char *boot_id, struct ctk_error **err);

/* Deep copy (src unchanged). */
int ctk_tracker_state_copy(struct ctk_tracker_state *dst, const struct ctk_tracker_state *src, struct ctk_error **err);

/* JSON text -> model: any JSON spelling of the state (duplicate keys
 * refused).  Errors say what is wrong (with line and column for syntax
 * errors); callers add the file name.  *out is empty on failure. */
int ctk_tracker_state_parse(const char *text, size_t len, struct ctk_tracker_state *out, struct ctk_error **err);
/* Model -> the file form above, ending with "\n" (NULL on ENOMEM).  Bytes
 * of a string that are not UTF-8 are written as U+FFFD. */
char *ctk_tracker_state_format(const struct ctk_tracker_state *s);

/* The container entry for id, or NULL. */
struct ctk_tracker_container *ctk_tracker_state_find_container(const struct ctk_tracker_state *s, const char *id);

/* Whether the container holds GPU `gpu`. */
bool ctk_tracker_container_holds(const struct ctk_tracker_container *c, size_t gpu);

/* Number of containers holding GPU `gpu`. */
size_t ctk_tracker_state_count_holders(const struct ctk_tracker_state *s, size_t gpu);

/* Removes containers[i] (later entries move up). */
void ctk_tracker_state_remove_container(struct ctk_tracker_state *s, size_t i);

#endif
