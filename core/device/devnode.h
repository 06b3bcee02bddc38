/* Device nodes as they are injected into containers (OCI linux.devices, CDI
 * deviceNodes): attributes come from stat() through the backend. */
#ifndef CTK_DEVNODE_H
#define CTK_DEVNODE_H

#include <sys/types.h>

#include "backend.h"
#include "core/base/base.h"

struct ctk_devnode {
        char *path; /* "/dev/dri/renderD128", "/dev/kfd" */
        char type;  /* 'c' or 'b' */
        unsigned int major, minor;
        mode_t mode; /* permission bits, e.g. 0660 */
        uid_t uid;
        gid_t gid;
};

/* Stats a device node; a missing node or one that is not a device is an
 * error naming the path. */
int ctk_devnode_stat(struct ctk_backend *b, const char *path, struct ctk_devnode *out, struct ctk_error **err);
void ctk_devnode_clear(struct ctk_devnode *d);

/* ctk_devnode_stat for each of paths[0..n), into out[0..n); nodes of one
 * directory (consecutive paths) are stat'ed together where the backend
 * offers it.  On error *failed is the index of the path that failed and
 * nothing is left in out. */
int ctk_devnode_stat_many(struct ctk_backend *b, const char *const *paths, size_t n, struct ctk_devnode *out,
                          size_t *failed, struct ctk_error **err);

/* stat_node for each of paths[0..n), into out[0..n): errs[i] is 0, or the
 * errno of a path that could not be stat'ed (ENOENT for a missing one).
 * Entries of one directory (consecutive paths) are stat'ed together where
 * the backend offers it, without following a final link.  Fails only when
 * out of memory. */
int ctk_node_stat_batch(struct ctk_backend *b, const char *const *paths, size_t n, struct ctk_node_info *out, int *errs,
                        struct ctk_error **err);

#endif
