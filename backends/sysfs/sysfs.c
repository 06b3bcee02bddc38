/* The sysfs backend: host-absolute paths are opened below `root` with every
 * symbolic link resolved inside it (see resolve.h), so a FUSE mount or a
 * materialized tree works as --root exactly like "/" does.  Attributes come
 * from fstat(); nothing here spawns a process. */
#include "backends/sysfs/sysfs.h"

#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "core/base/base.h"

struct sysfs_ctx {
        int rootfd;
        char *root; /* without trailing slash; "" for "/" */
        enum ctk_resolve_mode mode;
};

/* The path as it exists on this machine, for messages ("/tmp/x/sys/..."). */
static int fail(struct sysfs_ctx *c, struct ctk_error **err, int errnum, const char *what, const char *path)
{
        return ctk_error_errno(err, errnum, "%s %s%s", CTK_CUT(what), CTK_CUT(c->root), CTK_CUT(path));
}

static int open_path(struct sysfs_ctx *c, const char *path, int flags)
{
        return ctk_resolve_open(c->rootfd, path, flags, &c->mode);
}

/* Through the bounded reader (regular files only, at most
 * CTK_BACKEND_MAX_FILE bytes, never waiting on the open). */
static int sysfs_read_file(void *ctx, const char *path, char **out, size_t *len, struct ctk_error **err)
{
        struct sysfs_ctx *c = ctx;
        _cleanup_close_ int fd = open_path(c, path, O_RDONLY | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return fail(c, err, -fd, "reading", path);
        _cleanup_free_ char *where = ctk_str_concat(c->root, path, NULL);
        if (where == NULL)
                return fail(c, err, ENOMEM, "reading", path);
        if (ctk_file_read_fd(fd, where, CTK_BACKEND_MAX_FILE, out, len, err) == 0)
                return 0;
        if (err != NULL && *err != NULL && (*err)->code == EFBIG)
                ctk_error_suffix(err, " (no sysfs attribute is: a broken driver?)");
        return -1;
}

struct linux_dirent64 {
        uint64_t d_ino;
        int64_t d_off;
        unsigned short d_reclen;
        unsigned char d_type;
        char d_name[];
};

/* getdents64 directly: opendir() would add an fstat, two fcntl calls and a
 * 32 KiB allocation to every listing (discovery lists ~130 directories). */
static int sysfs_list_dir(void *ctx, const char *path, struct ctk_strv *names, struct ctk_error **err)
{
        struct sysfs_ctx *c = ctx;
        _cleanup_close_ int fd = open_path(c, path, O_RDONLY | O_DIRECTORY);
        if (fd < 0)
                return fail(c, err, -fd, "listing", path);
        _cleanup_strv_ struct ctk_strv v = {0};
        union {
                struct linux_dirent64 align;
                char bytes[8192];
        } buf;
        for (;;) {
                long n = syscall(SYS_getdents64, fd, buf.bytes, sizeof(buf.bytes));
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return fail(c, err, errno, "listing", path);
                if (n == 0)
                        break;
                for (long off = 0; off < n;) {
                        const struct linux_dirent64 *de = (const void *)(buf.bytes + off);
                        off += de->d_reclen;
                        const char *name = de->d_name;
                        if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0')))
                                continue;
                        if (ctk_strv_push(&v, name) < 0)
                                return fail(c, err, ENOMEM, "listing", path);
                }
        }
        ctk_strv_sort(&v);
        ctk_strv_clear(names);
        *names = v;
        v = (struct ctk_strv){0};
        return 0;
}

static enum ctk_node_type node_type(mode_t m)
{
        switch (m & S_IFMT) {
        case S_IFREG:
                return CTK_NODE_FILE;
        case S_IFDIR:
                return CTK_NODE_DIR;
        case S_IFLNK:
                return CTK_NODE_LINK;
        case S_IFCHR:
                return CTK_NODE_CHR;
        case S_IFBLK:
                return CTK_NODE_BLK;
        default:
                return CTK_NODE_OTHER;
        }
}

static void info_from_stat(const struct stat *st, struct ctk_node_info *out)
{
        *out = (struct ctk_node_info){
            .type = node_type(st->st_mode),
            .mode = st->st_mode & 07777,
            .uid = st->st_uid,
            .gid = st->st_gid,
        };
        if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode)) {
                out->major = major(st->st_rdev);
                out->minor = minor(st->st_rdev);
        }
}

static int sysfs_stat_node(void *ctx, const char *path, struct ctk_node_info *out, struct ctk_error **err)
{
        struct sysfs_ctx *c = ctx;
        _cleanup_close_ int fd = open_path(c, path, O_PATH);
        if (fd < 0)
                return fail(c, err, -fd, "stat", path);
        struct stat st;
        if (fstat(fd, &st) < 0)
                return fail(c, err, errno, "stat", path);
        info_from_stat(&st, out);
        return 0;
}

/* The directory is resolved once (within the root); an entry that is not a
 * symbolic link is then what stat_node would find: one fstatat() instead of
 * open + fstat + close per node (127 nodes for 63 partitions). */
static void sysfs_stat_entries(void *ctx, const char *dir, const char *const *names, size_t n,
                               struct ctk_node_info *out, bool *done)
{
        struct sysfs_ctx *c = ctx;
        for (size_t i = 0; i < n; i++)
                done[i] = false;
        _cleanup_close_ int fd = open_path(c, dir, O_PATH | O_DIRECTORY);
        if (fd < 0)
                return;
        for (size_t i = 0; i < n; i++) {
                const char *name = names[i];
                struct stat st;
                if (name[0] == '\0' || strchr(name, '/') != NULL || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
                        continue;
                if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || S_ISLNK(st.st_mode))
                        continue;
                info_from_stat(&st, &out[i]);
                done[i] = true;
        }
}

static int sysfs_read_link(void *ctx, const char *path, char **target, struct ctk_error **err)
{
        struct sysfs_ctx *c = ctx;
        _cleanup_close_ int fd = open_path(c, path, O_PATH | O_NOFOLLOW);
        if (fd < 0)
                return fail(c, err, -fd, "reading link", path);
        struct stat st;
        if (fstat(fd, &st) < 0)
                return fail(c, err, errno, "reading link", path);
        if (!S_ISLNK(st.st_mode))
                return fail(c, err, EINVAL, "reading link", path);
        for (size_t size = 256;; size *= 2) {
                _cleanup_free_ char *buf = malloc(size);
                if (buf == NULL)
                        return fail(c, err, ENOMEM, "reading link", path);
                ssize_t n = readlinkat(fd, "", buf, size);
                if (n < 0)
                        return fail(c, err, errno, "reading link", path);
                if ((size_t)n < size) {
                        buf[n] = '\0';
                        *target = ctk_steal(&buf);
                        return 0;
                }
        }
}

static void sysfs_destroy(void *ctx)
{
        struct sysfs_ctx *c = ctx;
        if (c == NULL)
                return;
        if (c->rootfd >= 0)
                close(c->rootfd);
        free(c->root);
        free(c);
}

static const struct ctk_backend_ops sysfs_ops = {
    .read_file = sysfs_read_file,
    .list_dir = sysfs_list_dir,
    .stat_node = sysfs_stat_node,
    .read_link = sysfs_read_link,
    .destroy = sysfs_destroy,
    .stat_entries = sysfs_stat_entries,
};

int ctk_sysfs_backend_new_mode(const char *root, enum ctk_resolve_mode mode, struct ctk_backend **out,
                               struct ctk_error **err)
{
        if (root == NULL || root[0] == '\0')
                root = "/";
        struct sysfs_ctx *c = calloc(1, sizeof(*c));
        if (c == NULL)
                return ctk_error_errno(err, ENOMEM, "opening root %s", CTK_CUT(root));
        c->mode = mode;
        c->rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (c->rootfd < 0) {
                int e = errno;
                free(c);
                return ctk_error_errno(err, e, "opening root directory %s", CTK_CUT(root));
        }
        size_t len = strlen(root);
        while (len > 0 && root[len - 1] == '/')
                len--;
        c->root = strndup(root, len);
        struct ctk_backend *b = calloc(1, sizeof(*b));
        if (c->root == NULL || b == NULL || asprintf(&b->description, "root %s", root) < 0) {
                if (b != NULL)
                        b->description = NULL;
                free(b);
                sysfs_destroy(c);
                return ctk_error_errno(err, ENOMEM, "opening root %s", CTK_CUT(root));
        }
        b->ops = &sysfs_ops;
        b->ctx = c;
        *out = b;
        return 0;
}

int ctk_sysfs_backend_new(const char *root, struct ctk_backend **out, struct ctk_error **err)
{
        return ctk_sysfs_backend_new_mode(root, CTK_RESOLVE_AUTO, out, err);
}
