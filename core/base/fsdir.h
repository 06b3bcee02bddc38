/* Directory helpers for state files we own. */
#ifndef CTK_FSDIR_H
#define CTK_FSDIR_H

#include <sys/types.h>

#include "error.h"

/* fsyncs the directory that contains `path` (after a rename or unlink). */
int ctk_fsync_parent_dir(const char *path, struct ctk_error **err);

/* mkdir -p with `mode` for directories that are created. */
int ctk_mkdir_p(const char *dir, mode_t mode, struct ctk_error **err);

/* ctk_mkdir_p of the directory that contains `path`. */
int ctk_mkdir_parent(const char *path, mode_t mode, struct ctk_error **err);

#endif
