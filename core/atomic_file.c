/* Atomic file replacement (temp file + fsync + rename + fsync of the dir). */
#include "atomic_file.h"

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

int ctk_mkdir_parents(const char *dir, mode_t mode, struct ctk_error **err)
{
        _cleanup_free_ char *p = strdup(dir);
        if (p == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        size_t n = strlen(p);
        while (n > 1 && p[n - 1] == '/')
                p[--n] = '\0';
        for (char *s = p + 1;; s++) {
                bool last = *s == '\0';
                if (!last && *s != '/')
                        continue;
                *s = '\0';
                if (mkdir(p, mode) < 0 && errno != EEXIST)
                        return ctk_error_errno(err, errno, "cannot create directory %s", p);
                struct stat st;
                if (stat(p, &st) < 0)
                        return ctk_error_errno(err, errno, "cannot create directory %s", p);
                if (!S_ISDIR(st.st_mode))
                        return ctk_error_set(err, ENOTDIR, "cannot create directory %s: a file is in the way", p);
                if (last)
                        return 0;
                *s = '/';
        }
}

static int write_all(int fd, const char *data, size_t len)
{
        while (len > 0) {
                ssize_t w = write(fd, data, len);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w < 0)
                        return -1;
                data += w;
                len -= (size_t)w;
        }
        return 0;
}

int ctk_atomic_write_file(const char *path, const void *data, size_t len, mode_t mode, struct ctk_error **err)
{
        _cleanup_free_ char *copy = strdup(path);
        if (copy == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        const char *dir = dirname(copy);
        if (ctk_mkdir_parents(dir, 0755, err) < 0)
                return -1;
        _cleanup_free_ char *tmp = NULL;
        if (asprintf(&tmp, "%s/.%s.XXXXXX", dir, strrchr(path, '/') ? strrchr(path, '/') + 1 : path) < 0)
                return ctk_error_set(err, ENOMEM, "out of memory");
        _cleanup_close_ int fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0)
                return ctk_error_errno(err, errno, "cannot create a temporary file in %s", dir);
        int saved = 0;
        if (write_all(fd, data, len) < 0 || fchmod(fd, mode) < 0 || fsync(fd) < 0)
                saved = errno;
        if (saved == 0 && close(ctk_steal_fd(&fd)) < 0)
                saved = errno;
        if (saved == 0 && rename(tmp, path) < 0)
                saved = errno;
        if (saved != 0) {
                unlink(tmp);
                return ctk_error_errno(err, saved, "cannot write %s", path);
        }
        _cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0)
                (void)fsync(dfd);
        return 0;
}
