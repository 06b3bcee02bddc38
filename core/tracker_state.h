/* The GPU tracker state: the model and its JSON file form.
 *
 * File form (compact JSON, one line; the keys the Go toolkit writes are kept
 * so scripts that read them keep working, ours are added):
 *
 *   {"version":1,"enabled":true,"bootId":"6e1f...",
 *    "gpusStatus":{"0":{"uuid":"0xEA35F57CC80DEB35","partitionType":"spx_nps1",
 *                       "accessibility":0,"containerIds":["36b0..."]}, ...},
 *    "gpusInfo":{"0":{"DrmDevices":["/dev/dri/card1","/dev/dri/renderD128"],
 *                     "PartitionType":"spx_nps1","pci":"0000:03:00.0"}, ...},
 *    "containers":{"36b0...":{"runtimeRoot":"/run/docker/runtime-runc/moby",
 *                             "pid":4242,"pidStart":123456}}}
 *
 * accessibility: 0 = shared, 1 = exclusive.  uuid "" = the device has none.
 * "containers" says how to tell whether a tracked container still exists
 * (see tracker_reconcile.h); a container without an entry there is never
 * reconciled.  Unknown keys are ignored; a wrong type or value is an error
 * naming the key. */
#ifndef CTK_TRACKER_STATE_H
#define CTK_TRACKER_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"
#include "gpu.h"
#include "strv.h"

#define CTK_TRACKER_STATE_VERSION 1

enum ctk_tracker_access {
        CTK_TRACKER_SHARED = 0,
        CTK_TRACKER_EXCLUSIVE = 1,
};

struct ctk_tracker_gpu {
        /* Identity: what tells that index i is still the same device (see
         * tracker_topology.h). */
        char *pci;       /* BDF of the physical GPU, "" if unknown */
        char *partition; /* "spx_nps1", "" (only the first partition carries it) */
        bool has_uuid;
        uint64_t uuid;
        /* Recorded for information only (card numbers may change at boot). */
        struct ctk_strv drm;
        /* Policy and holders. */
        enum ctk_tracker_access access;
        struct ctk_strv holders; /* full container ids, in allocation order, unique */
};

/* A tracked container and how to tell whether it still exists. */
struct ctk_tracker_container {
        char *id;
        char *runtime_root;           /* low-level runtime --root, NULL = unknown */
        pid_t pid;                    /* the process that allocated (creating runtime), 0 = unknown */
        unsigned long long pid_start; /* its start time (/proc/PID/stat field 22) */
};

struct ctk_tracker_state {
        bool enabled;
        char *boot_id; /* NULL = unknown */
        struct ctk_tracker_gpu *gpus;
        size_t ngpus;
        struct ctk_tracker_container *containers;
        size_t ncontainers;
};

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

/* JSON text <-> model.  Parse errors say what is wrong (with line and
 * column for syntax errors); callers add the file name. */
int ctk_tracker_state_parse(const char *text, size_t len, struct ctk_tracker_state *out, struct ctk_error **err);
char *ctk_tracker_state_format(const struct ctk_tracker_state *s); /* NULL on ENOMEM; ends with "\n" */

/* The container entry for id, or NULL. */
struct ctk_tracker_container *ctk_tracker_state_find_container(const struct ctk_tracker_state *s, const char *id);

#endif
