/* An in-memory filesystem tree: directories, regular files with contents,
 * symbolic links and character device nodes.
 *
 * A tree is built once (the add functions create missing parent
 * directories) and is immutable afterwards: it is shared by reference
 * counting, so a reader that holds a reference keeps a consistent snapshot
 * while a writer builds a new tree and swaps it in (see host.h).  The same
 * tree serves the in-memory backend, `materialize` and the FUSE server. */
#ifndef CTK_FAKEFS_TREE_H
#define CTK_FAKEFS_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/device/device.h"
#include "core/base/base.h"

/* What writing a file does (only files served writable over FUSE). */
enum ctk_fakefs_write_kind {
        CTK_FAKEFS_WRITE_NONE = 0,
        CTK_FAKEFS_WRITE_COMPUTE_PARTITION, /* arg: the GPU's PCI address */
        CTK_FAKEFS_WRITE_MEMORY_PARTITION,  /* arg: the GPU's PCI address */
};

struct ctk_fakefs_node {
        char *name; /* "" for the root */
        enum ctk_node_type type;
        mode_t mode; /* permission bits */
        uid_t uid;
        gid_t gid;
        unsigned int major, minor; /* CTK_NODE_CHR */
        char *data;                /* file contents or link target (NUL-terminated) */
        size_t len;
        enum ctk_fakefs_write_kind write_kind;
        char *write_arg;
        unsigned int gate_minor; /* a GPU's KFD file: reading it needs access to renderD<gate_minor>; 0: none */
        struct ctk_fakefs_node *parent;
        struct ctk_fakefs_node **kids; /* sorted by name (strcmp) */
        size_t nkids, capkids;
};

struct ctk_fakefs_tree {
        unsigned int refs;
        struct ctk_fakefs_node *root;
        uint64_t generation; /* the KFD generation_id it was built for */
};

/* An empty tree holding one reference. */
int ctk_fakefs_tree_new(struct ctk_fakefs_tree **out, struct ctk_error **err);
/* Takes one more reference on t; returns t. */
struct ctk_fakefs_tree *ctk_fakefs_tree_ref(struct ctk_fakefs_tree *t);
void ctk_fakefs_tree_unref(struct ctk_fakefs_tree *t); /* NULL-safe */
static inline void ctk_fakefs_tree_unrefp(struct ctk_fakefs_tree **t)
{
        ctk_fakefs_tree_unref(*t);
}
#define _cleanup_fakefs_tree_ __attribute__((cleanup(ctk_fakefs_tree_unrefp)))

/* Building (absolute paths; missing parents are created with mode 0755; an
 * existing entry is an EEXIST error, except mkdir of an existing directory). */
int ctk_fakefs_tree_mkdir(struct ctk_fakefs_tree *t, const char *path, struct ctk_error **err);
int ctk_fakefs_tree_add_file(struct ctk_fakefs_tree *t, const char *path, const char *data, size_t len, mode_t mode,
                             struct ctk_fakefs_node **out, struct ctk_error **err);
/* A read-only (0444) file whose contents are printf-formatted. */
int ctk_fakefs_tree_add_filef(struct ctk_fakefs_tree *t, const char *path, struct ctk_error **err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int ctk_fakefs_tree_add_link(struct ctk_fakefs_tree *t, const char *path, const char *target, struct ctk_error **err);
int ctk_fakefs_tree_add_chr(struct ctk_fakefs_tree *t, const char *path, unsigned int major, unsigned int minor,
                            mode_t mode, uid_t uid, gid_t gid, struct ctk_error **err);

/* Looks a path up, following symbolic links in the middle of the path, and
 * the final one too when follow_final ("." and ".." are understood; ".." of
 * the root is the root).  Returns 0 or a negative errno: -ENOENT, -ENOTDIR,
 * -ELOOP, -EINVAL (relative path), -ENOMEM. */
int ctk_fakefs_tree_lookup(const struct ctk_fakefs_tree *t, const char *path, bool follow_final,
                           const struct ctk_fakefs_node **out);

/* The child called name, or NULL (binary search). */
const struct ctk_fakefs_node *ctk_fakefs_node_child(const struct ctk_fakefs_node *dir, const char *name);

/* The absolute path of a node (owned by the caller), NULL on ENOMEM. */
char *ctk_fakefs_node_path(const struct ctk_fakefs_node *n);

#endif
