#include "backends/fakefs/materialize.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "core/base/base.h"

static int write_all(int fd, const char *data, size_t len)
{
        while (len > 0) {
                ssize_t n = write(fd, data, len);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -1;
                }
                data += n;
                len -= (size_t)n;
        }
        return 0;
}

static int fail(struct ctk_error **err, int errnum, const char *dir, const struct ctk_fakefs_node *n, const char *what)
{
        _cleanup_free_ char *path = ctk_fakefs_node_path(n);
        if (errnum == EPERM && n->type == CTK_NODE_CHR)
                return ctk_error_errno(err, errnum, "%s %s%s (device nodes need root or CAP_MKNOD)", CTK_CUT(what),
                                       CTK_CUT(dir), CTK_CUT(path != NULL ? path : "?"));
        return ctk_error_errno(err, errnum, "%s %s%s", CTK_CUT(what), CTK_CUT(dir), CTK_CUT(path != NULL ? path : "?"));
}

/* Creates node `n` (a child of the directory open as dirfd). */
static int create(int dirfd, const char *dir, const struct ctk_fakefs_node *n, struct ctk_error **err)
{
        switch (n->type) {
        case CTK_NODE_DIR: {
                if (mkdirat(dirfd, n->name, 0700) < 0)
                        return fail(err, errno, dir, n, "creating directory");
                _cleanup_close_ int fd = openat(dirfd, n->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (fd < 0)
                        return fail(err, errno, dir, n, "opening directory");
                for (size_t i = 0; i < n->nkids; i++)
                        if (create(fd, dir, n->kids[i], err) < 0)
                                return -1;
                if (fchmod(fd, n->mode) < 0)
                        return fail(err, errno, dir, n, "chmod");
                return 0;
        }
        case CTK_NODE_FILE: {
                _cleanup_close_ int fd =
                    openat(dirfd, n->name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
                if (fd < 0)
                        return fail(err, errno, dir, n, "creating");
                if (write_all(fd, n->data, n->len) < 0)
                        return fail(err, errno, dir, n, "writing");
                if (fchmod(fd, n->mode) < 0)
                        return fail(err, errno, dir, n, "chmod");
                return 0;
        }
        case CTK_NODE_LINK:
                if (symlinkat(n->data, dirfd, n->name) < 0)
                        return fail(err, errno, dir, n, "creating symbolic link");
                return 0;
        case CTK_NODE_CHR:
                if (mknodat(dirfd, n->name, S_IFCHR | 0600, makedev(n->major, n->minor)) < 0)
                        return fail(err, errno, dir, n, "creating device node");
                if (fchownat(dirfd, n->name, n->uid, n->gid, AT_SYMLINK_NOFOLLOW) < 0)
                        return fail(err, errno, dir, n, "chown");
                if (fchmodat(dirfd, n->name, n->mode, 0) < 0)
                        return fail(err, errno, dir, n, "chmod");
                return 0;
        default:
                return ctk_error_set(err, EINVAL, "cannot materialize node type '%c'", n->type);
        }
}

/* Best-effort removal of what create() made. */
static void remove_node(int dirfd, const struct ctk_fakefs_node *n)
{
        if (n->type == CTK_NODE_DIR) {
                int fd = openat(dirfd, n->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (fd >= 0) {
                        for (size_t i = 0; i < n->nkids; i++)
                                remove_node(fd, n->kids[i]);
                        close(fd);
                }
                unlinkat(dirfd, n->name, AT_REMOVEDIR);
                return;
        }
        unlinkat(dirfd, n->name, 0);
}

int ctk_fakefs_materialize(const struct ctk_fakefs_tree *t, const char *dir, struct ctk_error **err)
{
        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                return ctk_error_errno(err, errno, "creating %s", CTK_CUT(dir));
        _cleanup_close_ int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dirfd < 0)
                return ctk_error_errno(err, errno, "opening %s", CTK_CUT(dir));
        const char *dirname = strcmp(dir, "/") == 0 ? "" : dir;
        for (size_t i = 0; i < t->root->nkids; i++) {
                struct stat st;
                if (fstatat(dirfd, t->root->kids[i]->name, &st, AT_SYMLINK_NOFOLLOW) == 0)
                        return ctk_error_set(err, EEXIST, "%s/%s exists already; materialize into a new directory",
                                             CTK_CUT(dirname), CTK_CUT(t->root->kids[i]->name));
        }
        for (size_t i = 0; i < t->root->nkids; i++) {
                if (create(dirfd, dirname, t->root->kids[i], err) < 0) {
                        for (size_t j = 0; j <= i; j++)
                                remove_node(dirfd, t->root->kids[j]);
                        return -1;
                }
        }
        return 0;
}
