/* The FUSE operations that look at and read the fake host (attributes,
 * links, directories, open files, the control file's text) and its
 * operations table; the changes are in ops_write.c. */
#include "ops.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>

#include "core/base/base.h"
#include "devcg.h"

static void sleep_ms(unsigned int ms)
{
        struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

/* Applies the fault rules of path; returns 0 or a negative errno. */
static int faults(const char *path, bool content)
{
        unsigned int delay;
        int rc = ctk_fakefs_faults_check(fakefs_fuse_fs()->faults, path, content, &delay);
        if (delay > 0)
                sleep_ms(delay);
        return -rc;
}

bool fakefs_fuse_is_ctl(const char *path)
{
        return strcmp(path, FAKEFS_CTL) == 0;
}
static bool is_ctl_dir(const char *path)
{
        return strcmp(path, FAKEFS_CTL_DIR) == 0;
}

static void fill_stat(const struct ctk_fakefs_node *n, struct stat *st)
{
        memset(st, 0, sizeof(*st));
        st->st_mode = n->mode & 07777;
        st->st_uid = n->uid;
        st->st_gid = n->gid;
        st->st_nlink = 1;
        switch (n->type) {
        case CTK_NODE_DIR:
                st->st_mode |= S_IFDIR;
                st->st_nlink = 2;
                for (size_t i = 0; i < n->nkids; i++)
                        st->st_nlink += n->kids[i]->type == CTK_NODE_DIR;
                break;
        case CTK_NODE_LINK:
                st->st_mode |= S_IFLNK;
                st->st_size = (off_t)n->len;
                break;
        case CTK_NODE_CHR:
                st->st_mode |= S_IFCHR;
                st->st_rdev = makedev(n->major, n->minor);
                break;
        default:
                st->st_mode |= S_IFREG;
                st->st_size = (off_t)n->len;
                break;
        }
        st->st_blksize = 4096;
        st->st_blocks = (st->st_size + 511) / 512;
        st->st_atime = st->st_mtime = st->st_ctime = fakefs_fuse_fs()->start;
}

int fakefs_fuse_lookup(const char *path, struct ctk_fakefs_tree **tree, const struct ctk_fakefs_node **n)
{
        struct ctk_fakefs_tree *t = ctk_fakefs_host_snapshot(fakefs_fuse_fs()->host);
        int rc = ctk_fakefs_tree_lookup(t, path, false, n);
        if (rc < 0) {
                ctk_fakefs_tree_unref(t);
                return rc;
        }
        *tree = t;
        return 0;
}

/* fakefs_fuse_lookup() after the fault rules for path (content: the
 * operation reads what the path holds, not only its attributes). */
static int find(const char *path, bool content, struct ctk_fakefs_tree **tree, const struct ctk_fakefs_node **n)
{
        int rc = faults(path, content);
        return rc < 0 ? rc : fakefs_fuse_lookup(path, tree, n);
}

static int fakefs_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
        (void)fi;
        if (is_ctl_dir(path) || fakefs_fuse_is_ctl(path)) {
                memset(st, 0, sizeof(*st));
                st->st_mode = fakefs_fuse_is_ctl(path) ? S_IFREG | 0644 : S_IFDIR | 0755;
                st->st_nlink = fakefs_fuse_is_ctl(path) ? 1 : 2;
                if (fakefs_fuse_is_ctl(path)) {
                        _cleanup_free_ char *text = ctk_fakefs_faults_list(fakefs_fuse_fs()->faults);
                        st->st_size = text != NULL ? (off_t)strlen(text) : 0;
                }
                st->st_atime = st->st_mtime = st->st_ctime = fakefs_fuse_fs()->start;
                return 0;
        }
        _cleanup_fakefs_tree_ struct ctk_fakefs_tree *t = NULL;
        const struct ctk_fakefs_node *n;
        int rc = find(path, false, &t, &n);
        if (rc < 0)
                return rc;
        fill_stat(n, st);
        uint64_t huge = n->type == CTK_NODE_FILE ? ctk_fakefs_faults_size(fakefs_fuse_fs()->faults, path) : 0;
        if (huge > (uint64_t)st->st_size)
                st->st_size = (off_t)huge;
        if (strcmp(path, "/") == 0)
                st->st_nlink++; /* .fakefs */
        return 0;
}

static int fakefs_readlink(const char *path, char *buf, size_t size)
{
        _cleanup_fakefs_tree_ struct ctk_fakefs_tree *t = NULL;
        const struct ctk_fakefs_node *n;
        int rc = find(path, true, &t, &n);
        if (rc < 0)
                return rc;
        if (n->type != CTK_NODE_LINK)
                return -EINVAL;
        if (size == 0)
                return -EINVAL;
        (void)snprintf(buf, size, "%s", n->data); /* a longer target is cut, as readlink(2) does */
        return 0;
}

static int new_handle(struct fuse_file_info *fi, struct fakefs_handle **out)
{
        struct fakefs_handle *h = calloc(1, sizeof(*h));
        if (h == NULL)
                return -ENOMEM;
        fi->fh = (uint64_t)(uintptr_t)h;
        *out = h;
        return 0;
}

/* A handle on node n of tree t (whose reference it takes over), unless
 * refused (< 0): then the reference is dropped and refused returned. */
static int tree_handle(struct fuse_file_info *fi, struct ctk_fakefs_tree *t, const struct ctk_fakefs_node *n,
                       int refused)
{
        struct fakefs_handle *h;
        int rc = refused < 0 ? refused : new_handle(fi, &h);
        if (rc < 0) {
                ctk_fakefs_tree_unref(t);
                return rc;
        }
        h->tree = t;
        h->node = n;
        return 0;
}

static int fakefs_opendir(const char *path, struct fuse_file_info *fi)
{
        struct fakefs_handle *h;
        if (is_ctl_dir(path))
                return new_handle(fi, &h);
        struct ctk_fakefs_tree *t;
        const struct ctk_fakefs_node *n;
        int rc = find(path, true, &t, &n);
        if (rc < 0)
                return rc;
        return tree_handle(fi, t, n, n->type != CTK_NODE_DIR ? -ENOTDIR : 0);
}

static int fakefs_readdir(const char *path, void *buf, fuse_fill_dir_t filler, off_t off, struct fuse_file_info *fi,
                          enum fuse_readdir_flags flags)
{
        (void)off;
        (void)flags;
        struct fakefs_handle *h = fakefs_fuse_handle(fi);
        filler(buf, ".", NULL, 0, 0);
        filler(buf, "..", NULL, 0, 0);
        if (h->node == NULL) { /* .fakefs */
                filler(buf, "ctl", NULL, 0, 0);
                return 0;
        }
        int rc = faults(path, true);
        if (rc < 0)
                return rc;
        bool root = strcmp(path, "/") == 0;
        if (root)
                filler(buf, ".fakefs", NULL, 0, 0);
        for (size_t i = 0; i < h->node->nkids; i++) {
                const char *name = h->node->kids[i]->name;
                _cleanup_free_ char *sub = NULL;
                if (asprintf(&sub, "%s/%s", root ? "" : path, name) < 0) {
                        sub = NULL;
                        return -ENOMEM;
                }
                if (!ctk_fakefs_faults_hidden(fakefs_fuse_fs()->faults, sub))
                        filler(buf, name, NULL, 0, 0);
        }
        return 0;
}

static int release_handle(struct fuse_file_info *fi)
{
        struct fakefs_handle *h = fakefs_fuse_handle(fi);
        if (h != NULL) {
                ctk_fakefs_tree_unref(h->tree);
                free(h->text);
                free(h);
        }
        return 0;
}

static int fakefs_releasedir(const char *path, struct fuse_file_info *fi)
{
        (void)path;
        return release_handle(fi);
}

static int fakefs_release(const char *path, struct fuse_file_info *fi)
{
        (void)path;
        return release_handle(fi);
}

static bool wants_write(const struct fuse_file_info *fi)
{
        return (fi->flags & O_ACCMODE) != O_RDONLY;
}

/* May the requesting process read node n of tree t (its GPU's KFD files
 * need the GPU's render node): 1 yes, 0 no, -ESRCH (the reader is gone)
 * or -EIO (it cannot be told). */
static int may_read(const struct ctk_fakefs_node *n, const struct ctk_fakefs_tree *t)
{
        struct fakefs_devcg *dc = fakefs_fuse_fs()->devcg;
        if (n->gate_minor == 0 || dc == NULL)
                return 1;
        int allowed = fakefs_devcg_allowed(dc, fuse_get_context()->pid, n->gate_minor, t->generation);
        return allowed >= 0 || allowed == -ESRCH ? allowed : -EIO;
}

static int fakefs_open(const char *path, struct fuse_file_info *fi)
{
        struct fakefs_handle *h;
        int rc;
        if (fakefs_fuse_is_ctl(path)) {
                fi->direct_io = 1;
                if ((rc = new_handle(fi, &h)) < 0)
                        return rc;
                h->ctl = true;
                if ((fi->flags & O_ACCMODE) != O_WRONLY) {
                        h->text = ctk_fakefs_faults_list(fakefs_fuse_fs()->faults);
                        h->len = h->text != NULL ? strlen(h->text) : 0;
                }
                return 0;
        }
        struct ctk_fakefs_tree *t;
        const struct ctk_fakefs_node *n;
        if ((rc = find(path, true, &t, &n)) < 0)
                return rc;
        int refused = n->type == CTK_NODE_DIR                                     ? -EISDIR
                      : wants_write(fi) && n->write_kind == CTK_FAKEFS_WRITE_NONE ? -EACCES
                                                                                  : 0;
        /* like amdkfd: the open succeeds, reads of a denied GPU's files fail */
        int allowed = refused == 0 ? may_read(n, t) : 1;
        if (allowed < 0)
                refused = allowed;
        bool cached = refused == 0 && allowed == 1 && !wants_write(fi) && !fakefs_fuse_changing() &&
                      !ctk_fakefs_faults_any(fakefs_fuse_fs()->faults); /* (ops.h) */
        if ((rc = tree_handle(fi, t, n, refused)) < 0)
                return rc;
        fi->noflush = !wants_write(fi); /* nothing to flush: one request less per close */
        fi->direct_io = !cached;
        fi->keep_cache = cached;
        fakefs_fuse_handle(fi)->cached = cached;
        fakefs_fuse_handle(fi)->denied = allowed == 0;
        return 0;
}

/* What a cached handle reads now: its node if the host has not changed
 * since its open, else the node at its path in the current tree, which
 * the reader's cgroup must let it read (0, or a negative errno). */
static int current_node(const char *path, const struct fakefs_handle *h, struct ctk_fakefs_tree **now,
                        const struct ctk_fakefs_node **n)
{
        *now = ctk_fakefs_host_snapshot(fakefs_fuse_fs()->host);
        if (*now == h->tree) {
                *n = h->node;
                return 0;
        }
        if (ctk_fakefs_tree_lookup(*now, path, false, n) < 0 || (*n)->type != CTK_NODE_FILE)
                return -ENODEV; /* as sysfs reads an attribute of a device removed since its open */
        int allowed = may_read(*n, *now);
        return allowed == 1 ? 0 : allowed == 0 ? -EPERM : allowed;
}

static int fakefs_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
        struct fakefs_handle *h = fakefs_fuse_handle(fi);
        if (h->denied)
                return -EPERM;
        _cleanup_fakefs_tree_ struct ctk_fakefs_tree *now = NULL;
        const struct ctk_fakefs_node *node = h->node;
        if (h->cached) {
                int rc = current_node(path, h, &now, &node);
                if (rc < 0)
                        return rc;
        }
        const char *data = h->ctl ? h->text : node->data;
        size_t len = h->ctl ? h->len : node->len;
        if (!h->ctl) {
                int rc = faults(path, true);
                if (rc < 0)
                        return rc;
        }
        uint64_t huge = h->ctl ? 0 : ctk_fakefs_faults_size(fakefs_fuse_fs()->faults, path);
        if (off < 0 || (uint64_t)off >= (huge > len ? huge : len))
                return 0;
        size_t n = 0;
        if (data != NULL && (size_t)off < len) {
                n = len - (size_t)off < size ? len - (size_t)off : size;
                memcpy(buf, data + off, n);
        }
        if (huge > len && n < size) { /* the rest of a huge file: spaces */
                uint64_t left = huge - (uint64_t)off - n;
                size_t pad = left < size - n ? (size_t)left : size - n;
                memset(buf + n, ' ', pad);
                n += pad;
        }
        return (int)n;
}

static int fakefs_statfs(const char *path, struct statvfs *st)
{
        (void)path;
        memset(st, 0, sizeof(*st));
        st->f_bsize = 4096;
        st->f_frsize = 4096;
        st->f_namemax = 255;
        return 0;
}

static void *fakefs_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
        (void)conn;
        /* The kernel keeps names and attributes (a tool that walks the KFD
         * topology of 63 partitions looks 100,000 names up), and the text
         * of cached files (ops.h), until a change: every write that changes
         * the tree or the fault rules makes it forget them before it
         * returns (ops_write.c).  Each open says whether its file is cached. */
        cfg->entry_timeout = 86400;
        cfg->negative_timeout = 86400;
        cfg->attr_timeout = 86400;
        cfg->kernel_cache = 0;
        return fuse_get_context()->private_data;
}

const struct fuse_operations fakefs_fuse_ops = {
    .init = fakefs_init,
    .getattr = fakefs_getattr,
    .readlink = fakefs_readlink,
    .opendir = fakefs_opendir,
    .readdir = fakefs_readdir,
    .releasedir = fakefs_releasedir,
    .open = fakefs_open,
    .read = fakefs_read,
    .write = fakefs_fuse_write,
    .truncate = fakefs_fuse_truncate,
    .release = fakefs_release,
    .statfs = fakefs_statfs,
    .create = fakefs_fuse_create,
    .mkdir = fakefs_fuse_mkdir,
    .unlink = fakefs_fuse_remove,
    .rmdir = fakefs_fuse_remove,
    .symlink = fakefs_fuse_link,
    .link = fakefs_fuse_link,
    .rename = fakefs_fuse_rename,
    .chmod = fakefs_fuse_chmod,
    .chown = fakefs_fuse_chown,
};
