/* Replacing a file atomically: readers see the old or the new content,
 * never a partial file; on failure the old file is left byte-identical. */
#ifndef CTK_ATOMIC_FILE_H
#define CTK_ATOMIC_FILE_H

#include <stddef.h>
#include <sys/types.h>

#include "error.h"

/* Creates missing parent directories (0755), writes data to a temporary
 * file in the same directory, sets `mode`, fsyncs it, renames it over path
 * and fsyncs the directory. */
int ctk_atomic_write_file(const char *path, const void *data, size_t len, mode_t mode, struct ctk_error **err);

/* mkdir -p with `mode` for the directories it creates. */
int ctk_mkdir_parents(const char *dir, mode_t mode, struct ctk_error **err);

#endif
