#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "format.h"
#include "trust.h"

/* The bounded reader: every file the toolkit reads goes through here. */

void ctk_size_text(size_t n, char buf[CTK_SIZE_TEXT_MAX])
{
        if (n >= ((size_t)1 << 20) && n % ((size_t)1 << 20) == 0)
                (void)snprintf(buf, CTK_SIZE_TEXT_MAX, "%zu MiB", n >> 20);
        else if (n >= 1024 && n % 1024 == 0)
                (void)snprintf(buf, CTK_SIZE_TEXT_MAX, "%zu KiB", n >> 10);
        else
                (void)snprintf(buf, CTK_SIZE_TEXT_MAX, "%zu bytes", n);
}

static int too_big(const char *path, size_t max, struct ctk_error **err)
{
        char limit[CTK_SIZE_TEXT_MAX];
        ctk_size_text(max, limit);
        return ctk_error_set(err, EFBIG, "%s is larger than %s: not read", CTK_CUT(path), limit);
}

/* What a file that is not a regular one is, for messages. */
static const char *file_type(mode_t mode)
{
        return S_ISDIR(mode)    ? "a directory"
               : S_ISFIFO(mode) ? "a FIFO"
               : S_ISCHR(mode)  ? "a character device"
               : S_ISBLK(mode)  ? "a block device"
               : S_ISSOCK(mode) ? "a socket"
               : S_ISLNK(mode)  ? "a symbolic link"
                                : "not a regular file";
}

int ctk_file_not_regular(const char *path, mode_t mode, struct ctk_error **err)
{
        if (S_ISLNK(mode))
                return ctk_error_set(err, ELOOP, "%s is a symbolic link: not read", CTK_CUT(path));
        return ctk_error_set(err, S_ISDIR(mode) ? EISDIR : EINVAL, "%s is %s, not a regular file: not read",
                             CTK_CUT(path), file_type(mode));
}

/* Grows *buf (*cap bytes, n used) towards max + 2 (the content, one byte
 * to see it is too long, the NUL); false when out of memory. */
static bool grow_buffer(char **buf, size_t *cap, size_t n, size_t max, char *small)
{
        size_t want = *cap * 2 > max + 2 ? max + 2 : *cap * 2;
        char *bigger = realloc(*buf == small ? NULL : *buf, want);
        if (bigger == NULL)
                return false;
        if (*buf == small)
                memcpy(bigger, small, n);
        *buf = bigger;
        *cap = want;
        return true;
}

/* The rest of fd's content (a regular file, st its fstat), at most max
 * bytes, NUL-terminated.  Small files (sysfs attributes) are read into a
 * stack buffer and copied once; a file that says its size gets a buffer of
 * that size at once (sysfs and proc sizes are not the content's: the loop
 * grows the buffer then). */
static int read_bounded(int fd, const struct stat *st, const char *path, size_t max, char **out, size_t *len,
                        struct ctk_error **err)
{
        char small[4096];
        char *buf = small;
        size_t cap = sizeof(small), n = 0;
        if (st->st_size >= (off_t)sizeof(small)) {
                cap = (size_t)st->st_size + 2; /* + NUL, + 1 to see the end in one read */
                buf = malloc(cap);
                if (buf == NULL)
                        return ctk_error_set(err, ENOMEM, "out of memory");
        }
        int rc = 0;
        for (;;) {
                if (n + 1 >= cap && (cap >= max + 2 || !grow_buffer(&buf, &cap, n, max, small))) {
                        rc = n > max ? too_big(path, max, err) : ctk_error_set(err, ENOMEM, "out of memory");
                        break;
                }
                ssize_t r = read(fd, buf + n, cap - n - 1);
                if (r < 0 && errno == EINTR)
                        continue;
                if (r < 0) {
                        rc = ctk_error_errno(err, errno, "cannot read %s", CTK_CUT(path));
                        break;
                }
                if (r == 0)
                        break;
                n += (size_t)r;
                if (n > max) {
                        rc = too_big(path, max, err);
                        break;
                }
        }
        if (rc == 0 && buf == small) {
                buf = malloc(n + 1);
                if (buf == NULL)
                        return ctk_error_set(err, ENOMEM, "out of memory");
                memcpy(buf, small, n);
        }
        if (rc < 0) {
                if (buf != small)
                        free(buf);
                return -1;
        }
        buf[n] = '\0';
        *out = buf;
        if (len != NULL)
                *len = n;
        return 0;
}

int ctk_file_read_fd(int fd, const char *path, size_t max, char **out, size_t *len, struct ctk_error **err)
{
        struct stat st;
        if (fstat(fd, &st) < 0)
                return ctk_error_errno(err, errno, "cannot read %s", CTK_CUT(path));
        if (!S_ISREG(st.st_mode))
                return ctk_file_not_regular(path, st.st_mode, err);
        if (st.st_size > 0 && (uintmax_t)st.st_size > max)
                return too_big(path, max, err);
        return read_bounded(fd, &st, path, max, out, len, err);
}

/* Opens path to read it: never waiting (O_NONBLOCK: a FIFO has no writer
 * to wait for), and only when it is a regular file (a device is not even
 * opened: its driver could act on an open); *st is the open file's. */
static int open_read(const char *path, unsigned flags, struct stat *st, struct ctk_error **err)
{
        bool nofollow = (flags & CTK_READ_NOFOLLOW) != 0;
        if ((nofollow ? lstat(path, st) : stat(path, st)) < 0)
                return ctk_error_errno(err, errno, "cannot open %s", CTK_CUT(path));
        if (!S_ISREG(st->st_mode))
                return ctk_file_not_regular(path, st->st_mode, err);
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | (nofollow ? O_NOFOLLOW : 0));
        if (fd < 0 && errno == ELOOP && nofollow)
                return ctk_error_set(err, ELOOP, "%s is a symbolic link: not read", CTK_CUT(path));
        if (fd < 0)
                return ctk_error_errno(err, errno, "cannot open %s", CTK_CUT(path));
        if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) { /* replaced since: checked again */
                int e = errno;
                mode_t mode = st->st_mode;
                close(fd);
                return S_ISREG(mode) ? ctk_error_errno(err, e, "cannot read %s", CTK_CUT(path))
                                     : ctk_file_not_regular(path, mode, err);
        }
        return fd;
}

int ctk_file_read(const char *path, size_t max, unsigned flags, char **out, size_t *len, struct ctk_error **err)
{
        struct stat st;
        _cleanup_close_ int fd = open_read(path, flags, &st, err);
        if (fd < 0)
                return -1;
        if (st.st_size > 0 && (uintmax_t)st.st_size > max)
                return too_big(path, max, err);
        return read_bounded(fd, &st, path, max, out, len, err);
}

int ctk_file_read_all(const char *path, char **out, size_t *len, struct ctk_error **err)
{
        return ctk_file_read(path, CTK_FILE_MAX, 0, out, len, err);
}

static int write_all(int fd, const char *p, size_t len)
{
        while (len > 0) {
                ssize_t w = write(fd, p, len);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w < 0)
                        return -1;
                p += w;
                len -= (size_t)w;
        }
        return 0;
}

/* What the written file gets: its mode (force_mode: even when the file
 * existed, else that file's), and its owner (has_owner: uid and gid, else
 * an existing file's, or the writer's for a new one). */
struct attrs {
        mode_t mode;
        bool force_mode;
        bool has_owner;
        uid_t uid;
        gid_t gid;
};

/* Gives the temporary file (created with no permission at all) the owner,
 * then the mode, the final file should have (st: the existing file, or
 * NULL), before a byte is written: it is never readable by anyone the
 * final file would not be. */
static int copy_attributes(int fd, const struct stat *st, const struct attrs *a)
{
        uid_t uid = a->has_owner ? a->uid : st != NULL ? st->st_uid : geteuid();
        gid_t gid = a->has_owner ? a->gid : st != NULL ? st->st_gid : getegid();
        if ((uid != geteuid() || gid != getegid()) && fchown(fd, uid, gid) < 0 && errno != EPERM)
                return -1;
        return fchmod(fd, st == NULL || a->force_mode ? a->mode : st->st_mode & 07777);
}

/* A new file named .BASE.XXXXXX in dirfd, created exclusively (never
 * through a link) and with no permission (copy_attributes gives it its
 * own); its name in *tmp. */
static int create_temp(int dirfd, const char *base, char **tmp)
{
        for (int attempt = 0; attempt < 100; attempt++) {
                static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
                unsigned char r[6];
                char suffix[7];
                if (getentropy(r, sizeof(r)) < 0)
                        return -1;
                for (size_t i = 0; i < sizeof(r); i++)
                        suffix[i] = abc[r[i] % (sizeof(abc) - 1)];
                suffix[6] = '\0';
                free(*tmp);
                if (asprintf(tmp, ".%s.%s", base, suffix) < 0) {
                        *tmp = NULL;
                        errno = ENOMEM;
                        return -1;
                }
                int fd = openat(dirfd, *tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0);
                if (fd >= 0 || errno != EEXIST)
                        return fd;
        }
        errno = EEXIST;
        return -1;
}

/* path's directory (owned, no trailing slash) and last name (in path). */
static int split_path(const char *path, char **dir, const char **base, struct ctk_error **err)
{
        const char *slash = strrchr(path, '/');
        size_t n = slash == NULL ? 0 : (size_t)(slash - path);
        while (n > 1 && path[n - 1] == '/') /* "a//b": "a" (a trailing slash would follow a link) */
                n--;
        *dir = slash == NULL ? strdup(".") : strndup(path, n > 0 ? n : 1);
        *base = slash == NULL ? path : slash + 1;
        if (*dir == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        if (**base == '\0')
                return ctk_error_set(err, EISDIR, "cannot write %s: it names a directory", CTK_CUT(path));
        return 0;
}

/* What the writer refuses at path (st from lstat): a link, a non-file. */
static int refuse_target(const char *path, const struct stat *st, struct ctk_error **err)
{
        if (S_ISLNK(st->st_mode))
                return ctk_error_set(err, ELOOP, "%s is a symbolic link: not written (write to the file it points to)",
                                     CTK_CUT(path));
        if (!S_ISREG(st->st_mode))
                return ctk_error_set(err, EINVAL, "%s is not a regular file: not written", CTK_CUT(path));
        return 0;
}

/* The directory path's file goes to: walked as flags say (trust.h) or
 * opened; *base is the file's name in it. */
static int open_parent(const char *path, unsigned flags, char **dir, const char **base, struct ctk_error **err)
{
        if (split_path(path, dir, base, err) < 0)
                return -1;
        if ((flags & (CTK_WRITE_TRUSTED | CTK_WRITE_NO_LINKS)) == 0) {
                int fd = open(*dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                return fd >= 0 ? fd : ctk_error_errno(err, errno, "cannot create a temporary file in %s", *dir);
        }
        struct ctk_trust_walk w;
        unsigned walk = (flags & CTK_WRITE_NO_LINKS) != 0 ? CTK_TRUST_NO_LINKS : 0;
        _cleanup_error_ struct ctk_error *e = NULL;
        if (ctk_trust_walk(path, walk, &w, &e) < 0) {
                if (e->code == ENOENT)
                        return ctk_error_errno(err, ENOENT, "cannot create a temporary file in %s", *dir);
                ctk_error_set_msg(err, e->code, e->msg);
                return ctk_error_suffix(err, ": not written");
        }
        int fd = ctk_steal_fd(&w.dirfd);
        ctk_trust_walk_clear(&w);
        return fd;
}

int ctk_file_write_check(const char *path, unsigned flags, struct ctk_error **err)
{
        _cleanup_free_ char *dir = NULL;
        const char *base;
        _cleanup_close_ int dirfd = -1;
        if ((flags & (CTK_WRITE_TRUSTED | CTK_WRITE_NO_LINKS)) != 0) {
                _cleanup_error_ struct ctk_error *e = NULL;
                dirfd = open_parent(path, flags, &dir, &base, &e);
                if (dirfd < 0 && e->code == ENOENT)
                        return 0; /* (its directory is made first) */
                if (dirfd < 0)
                        return ctk_error_set_msg(err, e->code, e->msg);
        }
        struct stat st;
        if (lstat(path, &st) < 0)
                return errno == ENOENT ? 0 : ctk_error_errno(err, errno, "cannot write %s", CTK_CUT(path));
        return refuse_target(path, &st, err);
}

/* Replaces path by a new file holding data, or leaves it as it was: the
 * file is written beside it under a fresh name in the directory opened once,
 * flushed, then renamed over it.  A path that is a symbolic link is refused
 * (its target is never written, the link never replaced); a hard link of
 * path elsewhere keeps the old content. */
static int write_atomic(const char *path, const void *data, size_t len, const struct attrs *a, unsigned flags,
                        struct ctk_error **err)
{
        _cleanup_free_ char *dir = NULL;
        const char *base;
        _cleanup_close_ int dirfd = open_parent(path, flags, &dir, &base, err);
        if (dirfd < 0)
                return -1;
        struct stat st;
        bool exists = fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0;
        if (!exists && errno != ENOENT)
                return ctk_error_errno(err, errno, "cannot write %s", CTK_CUT(path));
        if (exists && refuse_target(path, &st, err) < 0)
                return -1;
        _cleanup_free_ char *tmp = NULL;
        _cleanup_close_ int fd = create_temp(dirfd, base, &tmp);
        if (fd < 0)
                return ctk_error_errno(err, errno, "cannot create a temporary file in %s", CTK_CUT(dir));
        if (copy_attributes(fd, exists ? &st : NULL, a) < 0 || write_all(fd, data, len) < 0 || fsync(fd) < 0) {
                int e = errno;
                unlinkat(dirfd, tmp, 0);
                return ctk_error_errno(err, e, "cannot write %s/%s", CTK_CUT(dir), CTK_CUT(tmp));
        }
        int fd2 = ctk_steal_fd(&fd);
        if (close(fd2) < 0) {
                int e = errno;
                unlinkat(dirfd, tmp, 0);
                return ctk_error_errno(err, e, "cannot write %s/%s", CTK_CUT(dir), CTK_CUT(tmp));
        }
        if (renameat(dirfd, tmp, dirfd, base) < 0) {
                int e = errno;
                unlinkat(dirfd, tmp, 0);
                return ctk_error_errno(err, e, "cannot replace %s", CTK_CUT(path));
        }
        (void)fsync(dirfd); /* best effort: some filesystems cannot sync a directory */
        return 0;
}

int ctk_file_write_atomic_flags(const char *path, const void *data, size_t len, mode_t mode, unsigned flags,
                                struct ctk_error **err)
{
        const struct attrs a = {.mode = mode, .force_mode = (flags & CTK_WRITE_FORCE_MODE) != 0};
        return write_atomic(path, data, len, &a, flags, err);
}

int ctk_file_write_atomic_as(const char *path, const void *data, size_t len, mode_t mode, uid_t uid, gid_t gid,
                             unsigned flags, struct ctk_error **err)
{
        const struct attrs a = {.mode = mode, .force_mode = true, .has_owner = true, .uid = uid, .gid = gid};
        return write_atomic(path, data, len, &a, flags, err);
}

int ctk_file_write_atomic(const char *path, const void *data, size_t len, mode_t new_mode, struct ctk_error **err)
{
        return ctk_file_write_atomic_flags(path, data, len, new_mode, 0, err);
}

int ctk_file_write_atomic_mode(const char *path, const void *data, size_t len, mode_t mode, struct ctk_error **err)
{
        return ctk_file_write_atomic_flags(path, data, len, mode, CTK_WRITE_FORCE_MODE, err);
}

/* What the appender refuses at path (st: its lstat or fstat). */
static int refuse_append(const char *path, const struct stat *st, struct ctk_error **err)
{
        if (S_ISLNK(st->st_mode))
                return ctk_error_set(err, ELOOP, "%s is a symbolic link: not written", path);
        return ctk_error_set(err, S_ISDIR(st->st_mode) ? EISDIR : EINVAL, "%s is %s, not a regular file: not written",
                             path, file_type(st->st_mode));
}

int ctk_file_open_append(const char *path, mode_t mode, struct ctk_error **err)
{
        struct stat st;
        if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
                return refuse_append(path, &st, err);
        int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK, mode);
        if (fd < 0) {
                int e = errno; /* (replaced since by what is not a file: said so) */
                if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
                        return refuse_append(path, &st, err);
                return ctk_error_errno(err, e, "cannot open %s", path);
        }
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
                int e = errno;
                close(fd);
                return S_ISREG(st.st_mode) ? ctk_error_errno(err, e, "cannot open %s", path)
                                           : refuse_append(path, &st, err);
        }
        return fd;
}

int ctk_stdout_close(struct ctk_error **err)
{
        int e = fflush(stdout) != 0 ? errno : 0;
        bool failed_before = e == 0 && ferror(stdout); /* its errno is gone */
        if (fclose(stdout) != 0 && e == 0 && !failed_before)
                e = errno;
        if (failed_before)
                return ctk_error_set(err, EIO, "cannot write the standard output");
        return e != 0 ? ctk_error_errno(err, e, "cannot write the standard output") : 0;
}
