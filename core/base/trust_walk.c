/* The trusted-path walk (trust.h): a path resolved one component at a
 * time from "/", each directory opened O_PATH | O_NOFOLLOW in the one
 * before and judged on what was opened, each symbolic link judged and
 * replaced by its target's components, as the kernel would resolve it. */
#include "trust.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "format.h"
#include "strv.h"

#define MAX_LINKS 40 /* the kernel's */

/* The directories walked so far: fds[i] was reached from fds[i - 1]
 * (so fds[i - 1] is where ".." leads), ends[i] the length of its path in
 * cur. */
struct walk {
        const char *path; /* asked for, for messages */
        unsigned flags;
        uid_t euid;
        int *fds;
        size_t *ends;
        size_t depth, cap;
        char *cur;    /* the path of fds[depth - 1] ("" for "/") */
        char *rest;   /* the components still to walk */
        size_t links; /* followed so far */
        bool in_last; /* walking the target of the link the path ends in */
        struct ctk_error **err;
};

static void walk_clear(struct walk *w)
{
        for (size_t i = 0; i < w->depth; i++)
                close(w->fds[i]);
        free(w->fds);
        free(w->ends);
        free(w->cur);
        free(w->rest);
}

static int oom(struct walk *w)
{
        return ctk_error_set(w->err, ENOMEM, "out of memory");
}

/* Makes fd (a directory named name in the current one) the current one. */
static int push(struct walk *w, int fd, const char *name)
{
        if (w->depth == w->cap) {
                size_t cap = w->cap ? w->cap * 2 : 16;
                int *fds = realloc(w->fds, cap * sizeof(*fds));
                if (fds != NULL)
                        w->fds = fds;
                size_t *ends = fds != NULL ? realloc(w->ends, cap * sizeof(*ends)) : NULL;
                if (ends == NULL) {
                        close(fd);
                        return oom(w);
                }
                w->ends = ends;
                w->cap = cap;
        }
        size_t n = w->cur != NULL ? strlen(w->cur) : 0;
        char *cur = realloc(w->cur, n + strlen(name) + 2);
        if (cur == NULL) {
                close(fd);
                return oom(w);
        }
        if (*name != '\0') { /* "" is "/" */
                cur[n] = '/';
                memcpy(cur + n + 1, name, strlen(name) + 1);
        } else {
                cur[n] = '\0';
        }
        w->cur = cur;
        w->fds[w->depth] = fd;
        w->ends[w->depth] = strlen(cur);
        w->depth++;
        return 0;
}

static void pop_to(struct walk *w, size_t depth)
{
        while (w->depth > depth) {
                close(w->fds[--w->depth]);
        }
        w->cur[w->ends[w->depth - 1]] = '\0';
}

static const char *cur_path(const struct walk *w)
{
        return w->cur[0] != '\0' ? w->cur : "/";
}

/* The next component of w->rest (skipping "" and "."), cut out in place;
 * NULL when there is none.  *last: no component follows it. */
static char *next_component(char **p, bool *last)
{
        char *s = *p;
        for (;;) {
                while (*s == '/')
                        s++;
                if (*s == '\0')
                        return NULL;
                char *end = strchr(s, '/');
                char *after = end != NULL ? end + 1 : s + strlen(s);
                if (end != NULL)
                        *end = '\0';
                if (strcmp(s, ".") != 0) {
                        *p = after;
                        const char *t = after;
                        while (*t == '/' || (t[0] == '.' && (t[1] == '/' || t[1] == '\0')))
                                t++;
                        *last = *t == '\0';
                        return s;
                }
                s = after;
        }
}

/* How many components s has ("." not counted). */
static size_t components(const char *s)
{
        size_t n = 0;
        while (*s != '\0') {
                while (*s == '/')
                        s++;
                size_t len = strcspn(s, "/");
                n += len > 0 && !(len == 1 && *s == '.');
                s += len;
        }
        return n;
}

/* "its directory D", "its ancestor D", ... for the messages. */
static char *describe_dir(const struct walk *w, bool parent_of_last)
{
        char *s = NULL;
        const char *role = !parent_of_last ? "its ancestor" : w->in_last ? "its target's directory" : "its directory";
        return asprintf(&s, "%s %s", role, cur_path(w)) < 0 ? NULL : s;
}

int ctk_trust_refuse(const char *path, const char *what, const struct stat *st, enum ctk_trust why, uid_t euid,
                     struct ctk_error **err)
{
        switch (why) {
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

enum ctk_trust ctk_trust_check_dir(const struct stat *st, uid_t euid)
{
        enum ctk_trust t = ctk_trust_check(st, euid);
        /* /tmp: others may add entries, but neither replace nor remove ours */
        if (t != CTK_UNTRUSTED_OWNER && (st->st_mode & S_ISVTX) != 0)
                return CTK_TRUSTED;
        return t;
}

/* Checks the directory just made current. */
static int check_dir(struct walk *w, const struct stat *st, bool parent_of_last)
{
        enum ctk_trust t = ctk_trust_check_dir(st, w->euid);
        if (t == CTK_TRUSTED)
                return 0;
        _cleanup_free_ char *what = describe_dir(w, parent_of_last);
        return what != NULL ? ctk_trust_refuse(w->path, what, st, t, w->euid, w->err) : oom(w);
}

/* A symbolic link named name in the current directory (fd, st): judged,
 * then its target's components put before the rest. */
static int follow(struct walk *w, int fd, const struct stat *st, const char *name, bool last)
{
        _cleanup_free_ char *link = NULL, *what = NULL;
        if (asprintf(&link, "%s/%s", w->cur, name) < 0)
                return oom(w);
        if ((w->flags & CTK_TRUST_NO_LINKS) != 0 && !last)
                return ctk_error_set(w->err, ELOOP, "%s is not trusted: its %s %s is a symbolic link", CTK_CUT(w->path),
                                     components(w->rest) == 1 ? "directory" : "ancestor", CTK_CUT(link));
        enum ctk_trust t = ctk_trust_check(st, w->euid);
        if (t != CTK_TRUSTED) {
                if ((last && !w->in_last ? asprintf(&what, "the symbolic link")
                                         : asprintf(&what, "the symbolic link %s", link)) < 0)
                        return oom(w);
                return ctk_trust_refuse(w->path, what, st, t, w->euid, w->err);
        }
        if (++w->links > MAX_LINKS)
                return ctk_error_set(w->err, ELOOP, "cannot open %s: %s", CTK_CUT(w->path), strerror(ELOOP));
        size_t cap = (size_t)st->st_size > 0 ? (size_t)st->st_size + 1 : 4096;
        _cleanup_free_ char *target = malloc(cap);
        ssize_t n = target != NULL ? readlinkat(fd, "", target, cap) : -1;
        if (target == NULL)
                return oom(w);
        if (n < 0 || (size_t)n >= cap)
                return ctk_error_errno(w->err, n < 0 ? errno : ENAMETOOLONG, "cannot follow the symbolic link %s",
                                       CTK_CUT(link));
        target[n] = '\0';
        char *rest = NULL;
        if (asprintf(&rest, "%s/%s", target, w->rest) < 0)
                return oom(w);
        free(w->rest);
        w->rest = rest;
        if (last)
                w->in_last = true;
        if (target[0] == '/')
                pop_to(w, 1);
        return 0;
}

/* Opens name in the current directory (without following a link),
 * creating it as a directory when it is missing and mkdir says so. */
static int open_entry(struct walk *w, const char *name, bool mkdir)
{
        int dir = w->fds[w->depth - 1];
        int fd = openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0 && errno == ENOENT && mkdir) {
                if (mkdirat(dir, name, 0755) < 0 && errno != EEXIST)
                        return ctk_error_errno(w->err, errno, "cannot create directory %s/%s", CTK_CUT(w->cur),
                                               CTK_CUT(name));
                fd = openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        }
        return fd;
}

/* The last entry reached: what the walk gives back. */
static int finish(struct walk *w, const char *name, int fd, const struct stat *st, struct ctk_trust_walk *out)
{
        int dir = w->fds[w->depth - 1];
        /* readable, to sync, list or read it; else as walked (O_PATH) */
        int rd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (rd < 0)
                rd = fcntl(dir, F_DUPFD_CLOEXEC, 0);
        if (rd < 0) {
                if (fd >= 0)
                        close(fd);
                return ctk_error_errno(w->err, errno, "cannot open %s", CTK_CUT(cur_path(w)));
        }
        *out = (struct ctk_trust_walk){.dirfd = rd, .exists = fd >= 0, .via_link = w->in_last};
        if (fd >= 0) {
                out->st = *st;
                close(fd);
        }
        out->dir = strdup(cur_path(w));
        out->name = strdup(name);
        if (out->dir == NULL || out->name == NULL) {
                ctk_trust_walk_clear(out);
                return oom(w);
        }
        return 0;
}

/* One component: a directory to enter, a link to follow, or the last. */
static int step(struct walk *w, const char *name, bool last, bool *done, struct ctk_trust_walk *out)
{
        if (strcmp(name, "..") == 0) {
                if (w->depth > 1)
                        pop_to(w, w->depth - 1);
                if (last)
                        return ctk_error_set(w->err, EINVAL, "cannot open %s: it ends in \"..\"", CTK_CUT(w->path));
                return 0;
        }
        bool mkdir = !last && (w->flags & CTK_TRUST_MKDIR) != 0;
        int fd = open_entry(w, name, mkdir);
        if (fd < 0 && errno == ENOENT && last) {
                *done = true;
                return finish(w, name, -1, NULL, out);
        }
        if (fd < 0)
                return ctk_error_errno(w->err, errno, "cannot open %s", CTK_CUT(w->path));
        struct stat st;
        if (fstat(fd, &st) < 0) {
                int e = errno;
                close(fd);
                return ctk_error_errno(w->err, e, "cannot open %s", CTK_CUT(w->path));
        }
        if (S_ISLNK(st.st_mode) && (!last || (w->flags & CTK_TRUST_FOLLOW) != 0)) {
                int r = follow(w, fd, &st, name, last);
                close(fd);
                return r;
        }
        if (last) {
                *done = true;
                return finish(w, name, fd, &st, out);
        }
        if (!S_ISDIR(st.st_mode)) {
                close(fd);
                return ctk_error_errno(w->err, ENOTDIR, "cannot open %s", CTK_CUT(w->path));
        }
        if (push(w, fd, name) < 0)
                return -1;
        return check_dir(w, &st, components(w->rest) == 1);
}

int ctk_trust_walk(const char *path, unsigned flags, struct ctk_trust_walk *out, struct ctk_error **err)
{
        *out = (struct ctk_trust_walk){.dirfd = -1};
        struct walk w = {.path = path, .flags = flags, .euid = geteuid(), .err = err};
        int rc = -1;
        if (path[0] == '/') {
                w.rest = strdup(path);
        } else {
                _cleanup_free_ char *cwd = getcwd(NULL, 0);
                if (cwd == NULL) {
                        walk_clear(&w);
                        return ctk_error_errno(err, errno, "cannot open %s", CTK_CUT(path));
                }
                w.rest = ctk_str_concat(cwd, "/", path);
        }
        int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        struct stat st;
        if (w.rest == NULL || root < 0) {
                if (root >= 0)
                        close(root);
                rc = w.rest == NULL ? oom(&w) : ctk_error_errno(err, errno, "cannot open /");
        } else if (push(&w, root, "") == 0 && fstat(root, &st) == 0 && check_dir(&w, &st, false) == 0) {
                bool done = false;
                for (;;) {
                        bool last = false;
                        char *p = w.rest;
                        char *name = next_component(&p, &last);
                        if (name == NULL) { /* "/", or a path ending in ".." */
                                rc = ctk_error_set(err, EINVAL, "cannot open %s: it names no entry", CTK_CUT(path));
                                break;
                        }
                        /* (step may replace w.rest: the name is copied first) */
                        _cleanup_free_ char *copy = strdup(name);
                        memmove(w.rest, p, strlen(p) + 1);
                        if (copy == NULL) {
                                rc = oom(&w);
                                break;
                        }
                        if (step(&w, copy, last, &done, out) < 0)
                                break;
                        if (done) {
                                rc = 0;
                                break;
                        }
                }
        }
        walk_clear(&w);
        return rc;
}

void ctk_trust_walk_clear(struct ctk_trust_walk *w)
{
        if (w->dirfd >= 0)
                close(w->dirfd);
        free(w->dir);
        free(w->name);
        *w = (struct ctk_trust_walk){.dirfd = -1};
}
