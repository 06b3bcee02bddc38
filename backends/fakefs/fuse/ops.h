/* The FUSE operations of the fake host (high-level, path-based API):
 * looking and reading in ops.c, changes (the partition and control files'
 * writes, and the refusal of every other change) in ops_write.c. */
#ifndef CTK_FAKEFS_FUSE_OPS_H
#define CTK_FAKEFS_FUSE_OPS_H

#define FUSE_USE_VERSION 312
#include <fuse.h>
#include <stdbool.h>
#include <time.h>

#include "backends/fakefs/faults.h"
#include "backends/fakefs/host.h"
#include "backends/fakefs/tree.h"

/* fuse private_data */
struct fakefs_devcg;

struct fakefs_fs {
        struct ctk_fakefs_host *host;
        struct fakefs_devcg *devcg; /* NULL: every reader may read every GPU's KFD files */
        struct ctk_fakefs_faults *faults;
        time_t start;
        bool debug;
};

#define FAKEFS_CTL_DIR "/.fakefs"
#define FAKEFS_CTL     "/.fakefs/ctl"

extern const struct fuse_operations fakefs_fuse_ops;

/* What an open file or directory holds: a snapshot of the tree (so reads
 * of one open file are consistent) or the control file's text.
 *
 * A file opened to be read by a reader its GPU's cgroup rule lets read it,
 * while no fault rule is set and no change is being made, is `cached`: the
 * kernel keeps its text from one open to the next (a tool that opens
 * 25,000 files twice asks 2 things of the server per open, not 5), and
 * forgets it at every change before the change's write returns
 * (ops_write.c).  No open during a change is cached, so a reader that saw
 * the change (a new generation_id) never gets the text of before it.  Its
 * reads answer from the current tree (as sysfs makes an attribute's text
 * at the read): after a change, what the kernel reads again is never the
 * old text; a file the change removed reads ENODEV. */
struct fakefs_handle {
        struct ctk_fakefs_tree *tree;
        const struct ctk_fakefs_node *node;
        bool ctl;
        bool cached;
        bool denied; /* the reader's device cgroup denies the GPU: reads fail with EPERM */
        char *text;  /* ctl contents at open */
        size_t len;
};

/* The mount's private data (of the request being served). */
static inline struct fakefs_fs *fakefs_fuse_fs(void)
{
        return fuse_get_context()->private_data;
}
/* The handle of an open file or directory. */
static inline struct fakefs_handle *fakefs_fuse_handle(const struct fuse_file_info *fi)
{
        return (struct fakefs_handle *)(uintptr_t)fi->fh;
}
/* Is path the control file? */
bool fakefs_fuse_is_ctl(const char *path);
/* Looks path up in a new snapshot (kept in *tree on success); 0 or a negative errno. */
int fakefs_fuse_lookup(const char *path, struct ctk_fakefs_tree **tree, const struct ctk_fakefs_node **n);

/* Is a change being made (ops.h's cached handles are not given out then)? */
bool fakefs_fuse_changing(void);
/* write: a partition file's new mode, or the control file's rules. */
int fakefs_fuse_write(const char *path, const char *buf, size_t size, off_t off, struct fuse_file_info *fi);
/* truncate: accepted (and ignored) on the files that take writes. */
int fakefs_fuse_truncate(const char *path, off_t size, struct fuse_file_info *fi);
/* create: refused, as every change but a write is. */
int fakefs_fuse_create(const char *path, mode_t mode, struct fuse_file_info *fi);
/* mkdir: refused. */
int fakefs_fuse_mkdir(const char *path, mode_t mode);
/* unlink and rmdir: refused. */
int fakefs_fuse_remove(const char *path);
/* link and symlink: refused. */
int fakefs_fuse_link(const char *from, const char *to);
/* rename: refused. */
int fakefs_fuse_rename(const char *from, const char *to, unsigned int flags);
/* chmod: refused. */
int fakefs_fuse_chmod(const char *path, mode_t mode, struct fuse_file_info *fi);
/* chown: refused. */
int fakefs_fuse_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi);

#endif
