#include "resolve.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/base/base.h"

#define MAX_SYMLINKS 40

static int try_openat2(int rootfd, const char *rel, int flags)
{
#ifdef SYS_openat2
        struct open_how how = {
            .flags = (unsigned long long)flags,
            .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
        };
        for (int attempt = 0; attempt < 8; attempt++) {
                long fd = syscall(SYS_openat2, rootfd, rel, &how, sizeof(how));
                if (fd >= 0)
                        return (int)fd;
                if (errno != EAGAIN) /* EAGAIN: a concurrent rename; retry */
                        return -errno;
        }
        return -EAGAIN;
#else
        (void)rootfd;
        (void)rel;
        (void)flags;
        return -ENOSYS;
#endif
}

/* Reads the target of the symbolic link open as an O_PATH fd. */
static char *read_link_fd(int fd)
{
        size_t size = 256;
        for (;;) {
                char *buf = malloc(size);
                if (buf == NULL)
                        return NULL;
                ssize_t n = readlinkat(fd, "", buf, size);
                if (n < 0) {
                        free(buf);
                        return NULL;
                }
                if ((size_t)n < size) {
                        buf[n] = '\0';
                        return buf;
                }
                free(buf);
                size *= 2;
        }
}

struct walk {
        int *fds; /* fds[0] is the root (not owned); fds[1..depth] are owned O_PATH dirs */
        size_t depth, cap;
};

static void walk_pop_to(struct walk *w, size_t depth)
{
        while (w->depth > depth)
                close(w->fds[w->depth--]);
}

static int walk_push(struct walk *w, int fd)
{
        if (w->depth + 1 >= w->cap) {
                size_t cap = w->cap * 2;
                int *v = realloc(w->fds, cap * sizeof(*v));
                if (v == NULL) {
                        close(fd);
                        return -ENOMEM;
                }
                w->fds = v;
                w->cap = cap;
        }
        w->fds[++w->depth] = fd;
        return 0;
}

static bool only_slashes(const char *s)
{
        while (*s == '/')
                s++;
        return *s == '\0';
}

/* Component-by-component resolution, each step with O_NOFOLLOW. */
static int walk_open(int rootfd, const char *path, int flags)
{
        _cleanup_free_ char *rest = strdup(path);
        struct walk w = {.fds = malloc(16 * sizeof(int)), .depth = 0, .cap = 16};
        if (rest == NULL || w.fds == NULL) {
                free(w.fds);
                return -ENOMEM;
        }
        w.fds[0] = rootfd;
        bool follow_last = !(flags & O_NOFOLLOW);
        int links = 0, ret;
        char *p = rest;
        for (;;) {
                while (*p == '/')
                        p++;
                if (*p == '\0') { /* the path named a directory (or the root) */
                        ret = openat(w.fds[w.depth], ".", flags);
                        ret = ret < 0 ? -errno : ret;
                        break;
                }
                char *comp = p;
                p += strcspn(p, "/");
                bool last = only_slashes(p);
                if (*p != '\0')
                        *p++ = '\0';
                if (strcmp(comp, ".") == 0)
                        continue;
                if (strcmp(comp, "..") == 0) {
                        if (w.depth > 0)
                                walk_pop_to(&w, w.depth - 1);
                        continue;
                }
                int fd = openat(w.fds[w.depth], comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
                if (fd < 0) {
                        ret = -errno;
                        break;
                }
                struct stat st;
                if (fstat(fd, &st) < 0) {
                        ret = -errno;
                        close(fd);
                        break;
                }
                if (S_ISLNK(st.st_mode) && (!last || follow_last)) {
                        char *target = read_link_fd(fd);
                        close(fd);
                        if (target == NULL) {
                                ret = -errno;
                                break;
                        }
                        if (++links > MAX_SYMLINKS) {
                                free(target);
                                ret = -ELOOP;
                                break;
                        }
                        if (target[0] == '/')
                                walk_pop_to(&w, 0);
                        char *joined = NULL;
                        if (asprintf(&joined, "%s/%s", target, p) < 0)
                                joined = NULL;
                        free(target);
                        if (joined == NULL) {
                                ret = -ENOMEM;
                                break;
                        }
                        free(rest);
                        rest = p = joined;
                        continue;
                }
                if (last) {
                        if ((flags & O_PATH) && (flags & O_NOFOLLOW)) {
                                ret = fd; /* already what was asked for */
                                break;
                        }
                        close(fd);
                        ret = openat(w.fds[w.depth], comp, flags | O_NOFOLLOW);
                        ret = ret < 0 ? -errno : ret;
                        break;
                }
                if (!S_ISDIR(st.st_mode)) {
                        close(fd);
                        ret = -ENOTDIR;
                        break;
                }
                if ((ret = walk_push(&w, fd)) < 0)
                        break;
        }
        walk_pop_to(&w, 0);
        free(w.fds);
        return ret;
}

int ctk_resolve_open(int rootfd, const char *path, int flags, enum ctk_resolve_mode *mode)
{
        if (path == NULL || path[0] != '/')
                return -EINVAL;
        flags |= O_CLOEXEC;
        if (*mode == CTK_RESOLVE_AUTO) {
                const char *rel = path;
                while (*rel == '/')
                        rel++;
                int fd = try_openat2(rootfd, *rel != '\0' ? rel : ".", flags);
                /* EAGAIN: renames kept racing with the lookup (a FUSE mount
                 * whose dentries are invalidated all the time): walk instead */
                if (fd != -ENOSYS && fd != -EPERM && fd != -EAGAIN)
                        return fd;
                if (fd == -ENOSYS) /* no openat2 here (old kernel or seccomp filter) */
                        *mode = CTK_RESOLVE_MANUAL;
        }
        return walk_open(rootfd, path, flags);
}
