/* The hardware seam: every access to /sys and /dev goes through this vtable,
 * so the same discovery code runs on a real host (backends/sysfs), on an
 * in-memory tree built from a host profile (backends/fakefs) and on the FUSE
 * fake mounted as a directory (sysfs backend with --root).
 *
 * Paths are host-absolute ("/sys/...", "/dev/...").  Symbolic links in the
 * middle of a path are always followed; stat_node follows a final link too
 * (like stat(2)); read_link does not. */
#ifndef CTK_BACKEND_H
#define CTK_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/base/base.h"

enum ctk_node_type {
        CTK_NODE_FILE = 'f',
        CTK_NODE_DIR = 'd',
        CTK_NODE_LINK = 'l',
        CTK_NODE_CHR = 'c',
        CTK_NODE_BLK = 'b',
        CTK_NODE_OTHER = 'o',
};

struct ctk_node_info {
        enum ctk_node_type type;
        mode_t mode; /* permission bits only (07777) */
        unsigned int major, minor;
        uid_t uid;
        gid_t gid;
};

/* The most read_file returns: sysfs attributes are at most a page, KFD
 * properties a few hundred bytes; a larger file (a broken driver's) is an
 * error (EFBIG), not an unbounded allocation. */
#define CTK_BACKEND_MAX_FILE (1 << 20)

struct ctk_backend_ops {
        /* Whole file into a NUL-terminated buffer (*out, owned by caller). */
        int (*read_file)(void *ctx, const char *path, char **out, size_t *len, struct ctk_error **err);
        /* Entry names of a directory, without "." and "..", sorted with strcmp. */
        int (*list_dir)(void *ctx, const char *path, struct ctk_strv *names, struct ctk_error **err);
        int (*stat_node)(void *ctx, const char *path, struct ctk_node_info *out, struct ctk_error **err);
        int (*read_link)(void *ctx, const char *path, char **target, struct ctk_error **err);
        void (*destroy)(void *ctx);
        /* Optional (NULL: not offered): stat_node for several entries of one
         * directory at once.  For each names[i] (one path component) that it
         * can answer exactly as stat_node(dir + "/" + names[i]) would, fills
         * out[i] and sets done[i]; the others (links, errors) are left for
         * stat_node, which words the errors. */
        void (*stat_entries)(void *ctx, const char *dir, const char *const *names, size_t n, struct ctk_node_info *out,
                             bool *done);
};

/* Errors use err->code = errno (ENOENT for a missing path, EIO, EACCES...),
 * so callers can tell "absent" from "broken". */
struct ctk_backend {
        const struct ctk_backend_ops *ops;
        void *ctx;
        char *description; /* e.g. "root /" or "profile sim/profiles/mi210-xgmi-x8.json", for messages */
};

static inline int ctk_read_file(struct ctk_backend *b, const char *path, char **out, size_t *len,
                                struct ctk_error **err)
{
        return b->ops->read_file(b->ctx, path, out, len, err);
}
static inline int ctk_list_dir(struct ctk_backend *b, const char *path, struct ctk_strv *names, struct ctk_error **err)
{
        return b->ops->list_dir(b->ctx, path, names, err);
}
static inline int ctk_stat_node(struct ctk_backend *b, const char *path, struct ctk_node_info *out,
                                struct ctk_error **err)
{
        return b->ops->stat_node(b->ctx, path, out, err);
}
static inline int ctk_read_link(struct ctk_backend *b, const char *path, char **target, struct ctk_error **err)
{
        return b->ops->read_link(b->ctx, path, target, err);
}

void ctk_backend_free(struct ctk_backend *b); /* calls destroy; NULL-safe */
static inline void ctk_backend_freep(struct ctk_backend **b)
{
        ctk_backend_free(*b);
}
#define _cleanup_backend_ __attribute__((cleanup(ctk_backend_freep)))

#endif
