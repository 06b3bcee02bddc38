#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"

int ctk_file_read_all(const char *path, char **out, size_t *len, struct ctk_error **err)
{
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return ctk_error_errno(err, errno, "cannot open %s", path);
        /* Sized for a regular file at once (sysfs and proc sizes are not
         * the content's: the loop grows the buffer then). */
        size_t cap = 16384, n = 0;
        struct stat st;
        if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= (off_t)cap && st.st_size < (off_t)1 << 30)
                cap = (size_t)st.st_size + 2; /* + NUL, + 1 to see the end in one read */
        _cleanup_free_ char *buf = malloc(cap);
        if (buf == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        for (;;) {
                if (n + 1 >= cap) {
                        char *bigger = realloc(buf, cap * 2);
                        if (bigger == NULL)
                                return ctk_error_set(err, ENOMEM, "out of memory");
                        buf = bigger;
                        cap *= 2;
                }
                ssize_t r = read(fd, buf + n, cap - n - 1);
                if (r < 0 && errno == EINTR)
                        continue;
                if (r < 0)
                        return ctk_error_errno(err, errno, "cannot read %s", path);
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

int ctk_file_view_open(const char *path, struct ctk_file_view *v, struct ctk_error **err)
{
        memset(v, 0, sizeof(*v));
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return ctk_error_errno(err, errno, "cannot open %s", path);
        struct stat st;
        if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && st.st_size < (off_t)1 << 30) {
                void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
                if (m != MAP_FAILED) {
                        v->map = m;
                        v->data = m;
                        v->len = (size_t)st.st_size;
                        return 0;
                }
        }
        if (ctk_file_read_all(path, &v->buf, &v->len, err) < 0)
                return -1;
        v->data = v->buf;
        return 0;
}

void ctk_file_view_close(struct ctk_file_view *v)
{
        if (v->map != NULL)
                munmap(v->map, v->len);
        free(v->buf);
        memset(v, 0, sizeof(*v));
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

/* Gives the temporary file the mode and owner the final file should have:
 * those of the existing file (its mode only unless force_mode), new_mode for
 * a new one. */
static int copy_attributes(int fd, const char *path, mode_t new_mode, bool force_mode)
{
        struct stat st;
        if (stat(path, &st) < 0) {
                if (errno != ENOENT)
                        return -1;
                return fchmod(fd, new_mode);
        }
        if ((st.st_uid != geteuid() || st.st_gid != getegid()) && fchown(fd, st.st_uid, st.st_gid) < 0 &&
            errno != EPERM)
                return -1;
        return fchmod(fd, force_mode ? new_mode : st.st_mode & 07777);
}

static void sync_dir(const char *dir)
{
        /* Best effort: the new file is in place already; some filesystems
         * cannot fsync a directory. */
        int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd >= 0) {
                (void)fsync(fd);
                close(fd);
        }
}

static int write_atomic(const char *path, const void *data, size_t len, mode_t new_mode, bool force_mode,
                        struct ctk_error **err)
{
        const char *slash = strrchr(path, '/');
        _cleanup_free_ char *dir =
            slash == NULL ? strdup(".") : strndup(path, slash == path ? 1 : (size_t)(slash - path));
        const char *base = slash == NULL ? path : slash + 1;
        _cleanup_free_ char *tmp = NULL;
        if (dir == NULL || asprintf(&tmp, "%s/.%s.XXXXXX", dir, base) < 0)
                return ctk_error_set(err, ENOMEM, "out of memory");
        _cleanup_close_ int fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0)
                return ctk_error_errno(err, errno, "cannot create a temporary file in %s", dir);
        if (copy_attributes(fd, path, new_mode, force_mode) < 0 || write_all(fd, data, len) < 0 || fsync(fd) < 0) {
                int e = errno;
                unlink(tmp);
                return ctk_error_errno(err, e, "cannot write %s", tmp);
        }
        int fd2 = ctk_steal_fd(&fd);
        if (close(fd2) < 0) {
                int e = errno;
                unlink(tmp);
                return ctk_error_errno(err, e, "cannot write %s", tmp);
        }
        if (rename(tmp, path) < 0) {
                int e = errno;
                unlink(tmp);
                return ctk_error_errno(err, e, "cannot replace %s", path);
        }
        sync_dir(dir);
        return 0;
}

int ctk_file_write_atomic(const char *path, const void *data, size_t len, mode_t new_mode, struct ctk_error **err)
{
        return write_atomic(path, data, len, new_mode, false, err);
}

int ctk_file_write_atomic_mode(const char *path, const void *data, size_t len, mode_t mode, struct ctk_error **err)
{
        return write_atomic(path, data, len, mode, true, err);
}
