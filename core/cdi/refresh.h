/* Writing the spec of our GPUs: `amd-ctk cdi generate` and mode cdi's
 * refresh of a stale spec (config key cdi-refresh-on-stale). */
#ifndef CTK_CDI_REFRESH_H
#define CTK_CDI_REFRESH_H

#include <jansson.h>
#include <stdbool.h>

#include "core/base/base.h"
#include "core/device/device.h"

struct ctk_cdi_options;

/* Writes text to path unless path already holds exactly that with mode
 * 0644 (force: write anyway): the directory is created, the file replaced
 * atomically and given mode 0644, so every CDI client can read it.
 * *written (optional) says whether it was written. */
int ctk_cdi_spec_save(const char *path, const char *text, bool force, bool *written, struct ctk_error **err);

/* The options a spec of ours was generated with: device names by index
 * and/or UUID, additionalGids (the kind stays the default). */
void ctk_cdi_options_of(const json_t *spec, struct ctk_cdi_options *o);

/* Regenerates the spec at path from this host (discovery through b) with
 * the options of old (NULL: the defaults), holding the lock file lock_path
 * (NULL: none) while it does: concurrent creates wait for one refresh.
 * The file is written as by ctk_cdi_spec_save (not when it holds the new
 * spec already).  *written (optional) says whether it was written. */
int ctk_cdi_refresh(struct ctk_backend *b, const char *path, const json_t *old, const char *lock_path, bool *written,
                    struct ctk_error **err);

#endif
