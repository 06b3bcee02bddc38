/* Whole-file reads and crash-safe file replacement for state and
 * configuration files we own (never for /sys or /dev: use the backend). */
#ifndef CTK_FILEIO_H
#define CTK_FILEIO_H

#include <stddef.h>
#include <sys/types.h>

#include "error.h"

/* Reads a regular file into a NUL-terminated buffer (*out owned by the
 * caller).  Errors name the path; err->code is the errno (ENOENT when the
 * file does not exist). */
int ctk_file_read_all(const char *path, char **out, size_t *len, struct ctk_error **err);

/* Replaces `path` atomically: writes `tmp_path` (created or truncated, mode
 * `mode`), fsyncs it, renames it over `path` and fsyncs the directory.  A
 * reader sees either the old or the new content, never a mix, and a crash
 * at any point leaves one of the two.  With tmp_path NULL a unique temporary
 * name beside `path` is used (for writers that hold no lock); a fixed
 * tmp_path must only be used under a lock.  On failure the temporary file is
 * removed and `path` is untouched. */
int ctk_file_replace(const char *path, const char *tmp_path, const void *data, size_t len, mode_t mode,
                     struct ctk_error **err);

/* fsyncs the directory that contains `path` (after a rename or unlink). */
int ctk_fsync_parent_dir(const char *path, struct ctk_error **err);

/* mkdir -p with `mode` for directories that are created. */
int ctk_mkdir_p(const char *dir, mode_t mode, struct ctk_error **err);

#endif
