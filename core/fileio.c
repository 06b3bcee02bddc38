#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"

int ctk_file_read_all(const char *path, char **out, size_t *len, struct ctk_error **err)
{
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return ctk_error_errno(err, errno, "cannot open %s", path);
        struct stat st;
        if (fstat(fd, &st) < 0)
                return ctk_error_errno(err, errno, "cannot stat %s", path);
        if (!S_ISREG(st.st_mode))
                return ctk_error_set(err, EINVAL, "%s is not a regular file", path);
        size_t cap = st.st_size > 0 ? (size_t)st.st_size + 1 : 4096, n = 0;
        _cleanup_free_ char *buf = malloc(cap + 1);
        if (buf == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory reading %s", path);
        for (;;) {
                if (n == cap) {
                        char *b = realloc(buf, cap * 2 + 1);
                        if (b == NULL)
                                return ctk_error_set(err, ENOMEM, "out of memory reading %s", path);
                        buf = b;
                        cap *= 2;
                }
                ssize_t r = read(fd, buf + n, cap - n);
                if (r < 0) {
                        if (errno == EINTR)
                                continue;
                        return ctk_error_errno(err, errno, "cannot read %s", path);
                }
                if (r == 0)
                        break;
                n += (size_t)r;
        }
        buf[n] = '\0';
        *out = ctk_steal(&buf);
        if (len != NULL)
                *len = n;
        return 0;
}

static int write_all(int fd, const char *data, size_t len)
{
        while (len > 0) {
                ssize_t w = write(fd, data, len);
                if (w < 0) {
                        if (errno == EINTR)
                                continue;
                        return -1;
                }
                data += w;
                len -= (size_t)w;
        }
        return 0;
}

int ctk_fsync_parent_dir(const char *path, struct ctk_error **err)
{
        _cleanup_free_ char *copy = strdup(path);
        if (copy == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        const char *dir = dirname(copy);
        _cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return ctk_error_errno(err, errno, "cannot open directory %s", dir);
        if (fsync(dfd) < 0)
                return ctk_error_errno(err, errno, "cannot sync directory %s", dir);
        return 0;
}

static int open_tmp(const char *path, const char *tmp_path, mode_t mode, char **used, struct ctk_error **err)
{
        int fd;
        if (tmp_path != NULL) {
                *used = strdup(tmp_path);
                if (*used == NULL)
                        return ctk_error_set(err, ENOMEM, "out of memory");
                fd = open(tmp_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
        } else {
                if (asprintf(used, "%s.tmp.XXXXXX", path) < 0) {
                        *used = NULL;
                        return ctk_error_set(err, ENOMEM, "out of memory");
                }
                fd = mkostemp(*used, O_CLOEXEC);
        }
        if (fd < 0)
                return ctk_error_errno(err, errno, "cannot create %s", *used);
        if (fchmod(fd, mode) < 0) {
                int e = errno;
                close(fd);
                unlink(*used);
                return ctk_error_errno(err, e, "cannot set the mode of %s", *used);
        }
        return fd;
}

int ctk_file_replace(const char *path, const char *tmp_path, const void *data, size_t len, mode_t mode,
                     struct ctk_error **err)
{
        _cleanup_free_ char *tmp = NULL;
        _cleanup_close_ int fd = open_tmp(path, tmp_path, mode, &tmp, err);
        if (fd < 0)
                return -1;
        const char *what = NULL;
        if (write_all(fd, data, len) < 0)
                what = "write";
        else if (fsync(fd) < 0)
                what = "sync";
        if (what == NULL) {
                int cfd = ctk_steal_fd(&fd);
                if (close(cfd) < 0)
                        what = "close";
        }
        if (what == NULL && rename(tmp, path) < 0) {
                int e = errno;
                unlink(tmp);
                return ctk_error_errno(err, e, "cannot rename %s to %s", tmp, path);
        }
        if (what != NULL) {
                int e = errno;
                unlink(tmp);
                return ctk_error_errno(err, e, "cannot %s %s", what, tmp);
        }
        return ctk_fsync_parent_dir(path, err);
}

int ctk_mkdir_p(const char *dir, mode_t mode, struct ctk_error **err)
{
        _cleanup_free_ char *p = strdup(dir);
        if (p == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        size_t n = strlen(p);
        while (n > 1 && p[n - 1] == '/')
                p[--n] = '\0';
        for (char *s = p + 1;; s++) {
                bool end = *s == '\0';
                if (*s == '/' || end) {
                        char c = *s;
                        *s = '\0';
                        if (mkdir(p, mode) < 0 && errno != EEXIST)
                                return ctk_error_errno(err, errno, "cannot create directory %s", p);
                        *s = c;
                }
                if (end)
                        break;
        }
        struct stat st;
        if (stat(p, &st) < 0)
                return ctk_error_errno(err, errno, "cannot create directory %s", p);
        if (!S_ISDIR(st.st_mode))
                return ctk_error_set(err, ENOTDIR, "%s exists and is not a directory", p);
        return 0;
}
