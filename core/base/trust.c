#include "trust.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "format.h"
#include "fileio.h"

enum ctk_trust ctk_trust_check(const struct stat *st, uid_t euid)
{
        if (st->st_uid != 0 && st->st_uid != euid)
                return CTK_UNTRUSTED_OWNER;
        if (S_ISLNK(st->st_mode))
                return CTK_TRUSTED;
        if ((st->st_mode & S_IWOTH) != 0)
                return CTK_UNTRUSTED_OTHERS;
        if ((st->st_mode & S_IWGRP) != 0)
                return CTK_UNTRUSTED_GROUP;
        return CTK_TRUSTED;
}

/* Checks st for the file at path; what names st's file in the message
 * ("it", "its directory D", ...).  0 when trusted, else -1 and the error. */
static int require_trust(const char *path, const char *what, const struct stat *st, uid_t euid, struct ctk_error **err)
{
        switch (ctk_trust_check(st, euid)) {
        case CTK_TRUSTED:
                return 0;
        case CTK_UNTRUSTED_OWNER:
                if (euid == 0)
                        return ctk_error_set(err, EPERM, "%s is not trusted: %s is owned by uid %u, not root",
                                             CTK_CUT(path), CTK_CUT(what), (unsigned)st->st_uid);
                return ctk_error_set(err, EPERM, "%s is not trusted: %s is owned by uid %u, neither root nor uid %u",
                                     CTK_CUT(path), CTK_CUT(what), (unsigned)st->st_uid, (unsigned)euid);
        case CTK_UNTRUSTED_GROUP:
                return ctk_error_set(err, EPERM, "%s is not trusted: %s is writable by its group (mode %04o)",
                                     CTK_CUT(path), CTK_CUT(what), (unsigned)(st->st_mode & 07777));
        case CTK_UNTRUSTED_OTHERS:
        default:
                return ctk_error_set(err, EPERM, "%s is not trusted: %s is writable by every user (mode %04o)",
                                     CTK_CUT(path), CTK_CUT(what), (unsigned)(st->st_mode & 07777));
        }
}

/* The directory of p (owned) and its last name (in p). */
static char *split(const char *p, const char **base)
{
        const char *slash = strrchr(p, '/');
        *base = slash != NULL ? slash + 1 : p;
        if (slash == NULL)
                return strdup(".");
        return strndup(p, slash == p ? 1 : (size_t)(slash - p));
}

/* Opens directory dir (named for path's messages as what) and checks it. */
static int open_dir(const char *path, const char *dir, const char *what, uid_t euid, struct ctk_error **err)
{
        int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return ctk_error_errno(err, errno, "cannot open %s", CTK_CUT(path));
        struct stat st;
        if (fstat(fd, &st) < 0 || require_trust(path, what, &st, euid, err) < 0) {
                int e = errno;
                close(fd);
                return err != NULL && *err != NULL ? -1 : ctk_error_errno(err, e, "cannot open %s", CTK_CUT(path));
        }
        return fd;
}

/* Opens name in dirfd, a regular file and no link (what: for messages),
 * and checks what was opened. */
static int open_file(int dirfd, const char *name, const char *path, const char *what, uid_t euid,
                     struct ctk_error **err)
{
        struct stat st;
        if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return ctk_error_errno(err, errno, "cannot open %s", CTK_CUT(path));
        if (!S_ISREG(st.st_mode)) /* (a device is not even opened) */
                return ctk_file_not_regular(path, st.st_mode, err);
        int fd = openat(dirfd, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
        if (fd < 0)
                return ctk_error_errno(err, errno, "cannot open %s", CTK_CUT(path));
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || require_trust(path, what, &st, euid, err) < 0) {
                int e = errno;
                close(fd);
                if (err != NULL && *err != NULL)
                        return -1;
                return S_ISREG(st.st_mode) ? ctk_error_errno(err, e, "cannot open %s", CTK_CUT(path))
                                           : ctk_file_not_regular(path, st.st_mode, err);
        }
        return fd;
}

/* For a symbolic link at path (lst): the file it leads to, opened in its
 * directory once both are checked. */
static int open_target(const char *path, const struct stat *lst, uid_t euid, struct ctk_error **err)
{
        if (require_trust(path, "the symbolic link", lst, euid, err) < 0)
                return -1;
        _cleanup_free_ char *real = realpath(path, NULL);
        if (real == NULL)
                return ctk_error_errno(err, errno, "cannot follow the symbolic link %s", CTK_CUT(path));
        const char *base;
        _cleanup_free_ char *dir = split(real, &base);
        _cleanup_free_ char *what_dir = NULL, *what = NULL;
        if (dir == NULL || asprintf(&what_dir, "its target's directory %s", dir) < 0 ||
            asprintf(&what, "its target %s", real) < 0)
                return ctk_error_set(err, ENOMEM, "out of memory");
        _cleanup_close_ int dirfd = open_dir(path, dir, what_dir, euid, err);
        if (dirfd < 0)
                return -1;
        return open_file(dirfd, base, path, what, euid, err);
}

int ctk_file_read_trusted(const char *path, size_t max, char **out, size_t *len, struct ctk_error **err)
{
        uid_t euid = geteuid();
        const char *base;
        _cleanup_free_ char *dir = split(path, &base);
        _cleanup_free_ char *what_dir = NULL;
        if (dir == NULL || asprintf(&what_dir, "its directory %s", dir) < 0)
                return ctk_error_set(err, ENOMEM, "out of memory");
        if (*base == '\0')
                return ctk_file_not_regular(path, S_IFDIR, err);
        _cleanup_close_ int dirfd = open_dir(path, dir, what_dir, euid, err);
        if (dirfd < 0)
                return -1;
        struct stat lst;
        if (fstatat(dirfd, base, &lst, AT_SYMLINK_NOFOLLOW) < 0)
                return ctk_error_errno(err, errno, "cannot open %s", CTK_CUT(path));
        _cleanup_close_ int fd =
            S_ISLNK(lst.st_mode) ? open_target(path, &lst, euid, err) : open_file(dirfd, base, path, "it", euid, err);
        if (fd < 0)
                return -1;
        return ctk_file_read_fd(fd, path, max, out, len, err);
}
