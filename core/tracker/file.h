/* GPU tracker files in the state directory:
 *   gpu-tracker.json     the state (state.h), replaced atomically
 *   .gpu-tracker.json.*  the next state while it is written (a writer
 *                        killed mid-write leaves one; the next save removes it)
 *   gpu-tracker.lock     flock'ed around every read-modify-write
 *   gpu-tracker.enabled  exists whenever the tracker may be enabled
 * The "enabled" marker says whether the tracker is enabled, and only it:
 * a container starts without reading (or even being able to read) the
 * state when the tracker is disabled, and the tracker stays enabled when
 * the state file is removed, corrupt or replaced (its "enabled" member is
 * what the marker said when it was written).  Enabling writes a fresh
 * state, then creates the marker; disabling removes the marker first: a
 * crash in between leaves the tracker disabled. */
#ifndef CTK_TRACKER_FILE_H
#define CTK_TRACKER_FILE_H

#include <stdbool.h>

#include "core/base/base.h"
#include "state.h"

#define CTK_TRACKER_STATE_FILE   "gpu-tracker.json"
#define CTK_TRACKER_LOCK_FILE    "gpu-tracker.lock"
#define CTK_TRACKER_ENABLED_FILE "gpu-tracker.enabled"
/* The most of a state file read (~200 bytes a container: 300,000 containers). */
#define CTK_TRACKER_STATE_MAX ((size_t)64 << 20)

struct ctk_tracker_paths {
        char *dir;
        char *state;
        char *lock;
        char *enabled;
};

/* The state, lock and marker paths in dir (owned copies). */
int ctk_tracker_paths_init(struct ctk_tracker_paths *p, const char *dir, struct ctk_error **err);
/* Frees the paths. */
void ctk_tracker_paths_clear(struct ctk_tracker_paths *p);

/* Loads the state.  A missing file sets *missing and returns 0.  An
 * unreadable or corrupt file is one error line naming the file and the fix
 * (`amd-ctk gpu-tracker reset`). */
int ctk_tracker_load(const struct ctk_tracker_paths *p, struct ctk_tracker_state *out, bool *missing,
                     struct ctk_error **err);

/* Writes the state (tmp + fsync + rename + fsync(dir)); the caller holds the lock. */
int ctk_tracker_save(const struct ctk_tracker_paths *p, const struct ctk_tracker_state *s, struct ctk_error **err);

/* Refuses a state directory that is not root's alone (whoever else can
 * write there could remove the marker or rewrite the state): it and every
 * directory above must be trusted (trust.h), and it must be owned by root
 * (or euid) and writable by neither its group nor others, sticky or not.
 * EPERM: "GPU Tracker state directory DIR is not trusted: it is writable
 * by its group (mode 0770): refused (chown root:root DIR; chmod 0700
 * DIR)"; ENOENT when it is missing. */
int ctk_tracker_dir_check(const char *dir, struct ctk_error **err);
/* Creates the state directory (0700; missing directories above it 0755,
 * each in a trusted one) unless it exists, then checks it. */
int ctk_tracker_dir_make(const char *dir, struct ctk_error **err);
/* Whether the tracker is enabled, which the marker alone says (whatever
 * the state file is, or whether there is one): false when the directory
 * is missing; an error when it is not trusted. */
int ctk_tracker_marker_check(const char *dir, const char *marker, bool *on, struct ctk_error **err);

/* Whether the "enabled" marker file exists. */
bool ctk_tracker_marker_exists(const struct ctk_tracker_paths *p);
/* Creates or removes the marker (durably: the directory is synced). */
int ctk_tracker_set_marker(const struct ctk_tracker_paths *p, bool enabled, struct ctk_error **err);

#endif
