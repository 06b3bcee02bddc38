/* The FUSE operations that change the fake host: writes to a partition
 * file (a repartition) and to the control file (fault rules), and the
 * refusal of every other change. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
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

/* Makes the kernel forget the text it keeps of every file below n (whose
 * path is path[0..len)), as ops.h's cached handles let it keep. */
static void forget_texts(struct fuse *f, const struct ctk_fakefs_node *n, char *path, size_t len)
{
        for (size_t i = 0; i < n->nkids; i++) {
                const struct ctk_fakefs_node *k = n->kids[i];
                int w = snprintf(path + len, PATH_MAX - len, "/%s", k->name);
                if (w < 0 || (size_t)w >= PATH_MAX - len)
                        continue; /* (no such path is ever opened) */
                if (k->type == CTK_NODE_FILE)
                        (void)fuse_invalidate_path(f, path); /* -ENOENT: the kernel has no inode for it */
                else if (k->type == CTK_NODE_DIR)
                        forget_texts(f, k, path, len + (size_t)w);
        }
}

/* After a change: the kernel forgets the names and attributes it keeps
 * (ops.c's fakefs_init lets it keep them until then), so that every
 * lookup from now on sees the new tree, and the texts of the files of
 * before (the tree before the change), so that every read from now on is
 * answered by the server.  Before the write returns. */
static void forget_cached(const struct ctk_fakefs_tree *before)
{
        struct fuse *f = fuse_get_context()->fuse;
        struct fuse_session *se = fuse_get_session(f);
        /* the names sys and dev of the root, and every name below them */
        (void)fuse_lowlevel_notify_inval_entry(se, FUSE_ROOT_ID, "sys", 3);
        (void)fuse_lowlevel_notify_inval_entry(se, FUSE_ROOT_ID, "dev", 3);
        char path[PATH_MAX];
        forget_texts(f, before->root, path, 0);
}

/* One change at a time: each forgets what the kernel may keep of the tree
 * before it, and only that tree's files can have texts kept then. */
static pthread_mutex_t change_lock = PTHREAD_MUTEX_INITIALIZER;
/* From before a change is made until the kernel has forgotten the texts
 * of before it: meanwhile, the kernel could still answer an open of a
 * file the forgetting has not reached with the old text, and a reader
 * that saw the new generation_id would take it for the new host. */
static atomic_bool changing;

bool fakefs_fuse_changing(void)
{
        return atomic_load(&changing);
}

/* Applies text (the control file's rules, or the new partition mode of
 * h's file); 0 or a negative errno. */
static int change(const char *path, const char *text, const struct fakefs_handle *h)
{
        struct fakefs_fs *fs = fakefs_fuse_fs();
        struct ctk_error *err = NULL;
        _cleanup_fakefs_tree_ struct ctk_fakefs_tree *before = ctk_fakefs_host_snapshot(fs->host);
        int rc;
        atomic_store(&changing, true);
        if (h->ctl)
                rc = ctk_fakefs_faults_apply(fs->faults, text, FAKEFS_CTL, &err);
        else if (h->node->write_kind == CTK_FAKEFS_WRITE_COMPUTE_PARTITION)
                rc = ctk_fakefs_host_set_compute_partition(fs->host, h->node->write_arg, text, &err);
        else
                rc = ctk_fakefs_host_set_memory_partition(fs->host, h->node->write_arg, text, &err);
        if (rc == 0 || h->ctl) /* (a failed rule line: the lines before it apply) */
                forget_cached(before);
        atomic_store(&changing, false);
        return rc < 0 ? report(path, err) : 0;
}

int fakefs_fuse_write(const char *path, const char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
        (void)off;
        _cleanup_free_ char *text = strndup(buf, size);
        if (text == NULL)
                return -ENOMEM;
        if (strlen(text) != size)
                return -EINVAL;
        pthread_mutex_lock(&change_lock);
        int rc = change(path, text, fakefs_fuse_handle(fi));
        pthread_mutex_unlock(&change_lock);
        return rc < 0 ? rc : (int)size;
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
