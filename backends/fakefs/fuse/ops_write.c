/* The FUSE operations that change the fake host: writes to a partition
 * file (a repartition) and to the control file (fault rules), and the
 * refusal of every other change. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/base.h"
#include "ops.h"

#include <fuse_lowlevel.h>

static int report(const char *what, struct ctk_error *err)
{
        int code = err->code > 0 ? err->code : EIO;
        if (fakefs_fuse_fs()->debug)
                fprintf(stderr, "amd-ctk-fakefs: %s: %s\n", what, err->msg);
        ctk_error_free(err);
        return -code;
}

/* After a change: the kernel forgets the names and attributes it keeps
 * (ops.c's fakefs_init lets it keep them until then), so that every
 * lookup from now on sees the new tree.  Before the write returns. */
static void forget_cached(void)
{
        /* the names sys and dev of the root, and every name below them */
        struct fuse_session *se = fuse_get_session(fuse_get_context()->fuse);
        (void)fuse_lowlevel_notify_inval_entry(se, FUSE_ROOT_ID, "sys", 3);
        (void)fuse_lowlevel_notify_inval_entry(se, FUSE_ROOT_ID, "dev", 3);
}

int fakefs_fuse_write(const char *path, const char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
        (void)off;
        struct fakefs_handle *h = fakefs_fuse_handle(fi);
        struct ctk_error *err = NULL;
        _cleanup_free_ char *text = strndup(buf, size);
        if (text == NULL)
                return -ENOMEM;
        if (strlen(text) != size)
                return -EINVAL;
        if (h->ctl) {
                int rc = ctk_fakefs_faults_apply(fakefs_fuse_fs()->faults, text, FAKEFS_CTL, &err);
                forget_cached(); /* (also after a failed line: the lines before it apply) */
                return rc < 0 ? report(path, err) : (int)size;
        }
        const struct ctk_fakefs_node *n = h->node;
        int rc = n->write_kind == CTK_FAKEFS_WRITE_COMPUTE_PARTITION
                     ? ctk_fakefs_host_set_compute_partition(fakefs_fuse_fs()->host, n->write_arg, text, &err)
                     : ctk_fakefs_host_set_memory_partition(fakefs_fuse_fs()->host, n->write_arg, text, &err);
        if (rc < 0)
                return report(path, err);
        forget_cached();
        return (int)size;
}

int fakefs_fuse_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
        (void)size;
        (void)fi;
        if (fakefs_fuse_is_ctl(path))
                return 0;
        _cleanup_fakefs_tree_ struct ctk_fakefs_tree *t = NULL;
        const struct ctk_fakefs_node *n;
        int rc = fakefs_fuse_lookup(path, &t, &n);
        if (rc < 0)
                return rc;
        if (n->type == CTK_NODE_DIR)
                return -EISDIR;
        return n->write_kind != CTK_FAKEFS_WRITE_NONE ? 0 : -EACCES;
}

/* The tree is read-only apart from the partition files and the control
 * file: creating, removing, renaming or changing owners is refused. */
int fakefs_fuse_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
        (void)path;
        (void)mode;
        (void)fi;
        return -EACCES;
}

int fakefs_fuse_mkdir(const char *path, mode_t mode)
{
        (void)path;
        (void)mode;
        return -EACCES;
}

int fakefs_fuse_remove(const char *path)
{
        (void)path;
        return -EACCES;
}

int fakefs_fuse_link(const char *from, const char *to)
{
        (void)from;
        (void)to;
        return -EACCES;
}

int fakefs_fuse_rename(const char *from, const char *to, unsigned int flags)
{
        (void)flags;
        return fakefs_fuse_link(from, to);
}

int fakefs_fuse_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
        (void)path;
        (void)mode;
        (void)fi;
        return -EPERM;
}

int fakefs_fuse_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi)
{
        (void)path;
        (void)uid;
        (void)gid;
        (void)fi;
        return -EPERM;
}
