#include "flock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "format.h"
#include "fileio.h"
#include "number.h"

static long long now_ms(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int ctk_flock_check(const char *path, const struct stat *st, uid_t euid, struct ctk_error **err)
{
        if (!S_ISREG(st->st_mode))
                return ctk_error_set(err, EINVAL, "lock file %s is not a regular file: refused (remove it)",
                                     CTK_CUT(path));
        if (st->st_uid != euid || (st->st_mode & 077) != 0)
                return ctk_error_set(err, EPERM,
                                     "lock file %s has owner uid %u and mode %04o, where another user could hold it: "
                                     "refused (remove it: it is created again, mode 0600)",
                                     CTK_CUT(path), (unsigned)st->st_uid, (unsigned)(st->st_mode & 07777));
        return 0;
}

/* The next blank-separated field of [*p, end), or false when there is none. */
static bool field(const char **p, const char *end, const char **f, size_t *len)
{
        while (*p < end && (**p == ' ' || **p == '\t'))
                (*p)++;
        *f = *p;
        while (*p < end && **p != ' ' && **p != '\t')
                (*p)++;
        *len = (size_t)(*p - *f);
        return *len > 0;
}

/* Whether "MAJ:MIN:INO" (hexadecimal, hexadecimal, decimal) names st's file. */
static bool same_file(const char *f, size_t len, const struct stat *st)
{
        const char *c1 = memchr(f, ':', len);
        const char *c2 = c1 != NULL ? memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - f)) : NULL;
        uint64_t maj, min, ino;
        return c2 != NULL && ctk_parse_u64_hex(f, (size_t)(c1 - f), 0, UINT32_MAX, &maj) == 0 &&
               ctk_parse_u64_hex(c1 + 1, (size_t)(c2 - c1 - 1), 0, UINT32_MAX, &min) == 0 &&
               ctk_parse_u64_dec(c2 + 1, len - (size_t)(c2 + 1 - f), UINT64_MAX, &ino) == 0 &&
               maj == major(st->st_dev) && min == minor(st->st_dev) && ino == (uint64_t)st->st_ino;
}

pid_t ctk_flock_holder(const char *locks, const struct stat *st)
{
        /* "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF" */
        for (const char *line = locks; line != NULL && *line != '\0';) {
                const char *nl = strchr(line, '\n');
                const char *end = nl != NULL ? nl : line + strlen(line);
                const char *p = line, *f[6];
                size_t len[6], n = 0;
                while (n < 6 && field(&p, end, &f[n], &len[n]))
                        n++;
                uint64_t pid;
                if (n == 6 && len[1] == 5 && memcmp(f[1], "FLOCK", 5) == 0 &&
                    ctk_parse_u64_dec(f[4], len[4], INT32_MAX, &pid) == 0 && pid > 0 && same_file(f[5], len[5], st))
                        return (pid_t)pid;
                line = nl != NULL ? nl + 1 : NULL;
        }
        return 0;
}

/* " (held by pid N)" for the lock on fd's file, or "". */
static void holder_note(int fd, char *buf, size_t size)
{
        buf[0] = '\0';
        struct stat st;
        _cleanup_free_ char *locks = NULL;
        _cleanup_error_ struct ctk_error *ignored = NULL;
        if (fstat(fd, &st) < 0 || ctk_file_read_all("/proc/locks", &locks, NULL, &ignored) < 0)
                return;
        pid_t pid = ctk_flock_holder(locks, &st);
        if (pid > 0)
                (void)snprintf(buf, size, " (held by pid %ld)", (long)pid);
}

/* Opens path (created 0600) and checks it is a lock only we can take. */
static int open_lock(const char *path, struct ctk_error **err)
{
        int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK, 0600);
        if (fd < 0)
                return ctk_error_errno(err, errno, "cannot open lock file %s", CTK_CUT(path));
        struct stat st;
        if (fstat(fd, &st) < 0) {
                int e = errno;
                close(fd);
                return ctk_error_errno(err, e, "cannot open lock file %s", CTK_CUT(path));
        }
        if (ctk_flock_check(path, &st, geteuid(), err) < 0) {
                close(fd);
                return -1;
        }
        return fd;
}

/* Whether fd is still the file at path (a transient lock may have been
 * removed, and made again, since it was opened). */
static bool still_there(int fd, const char *path)
{
        struct stat a, b;
        return fstat(fd, &a) == 0 && lstat(path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int ctk_flock_acquire(const char *path, unsigned int timeout_ms, struct ctk_error **err)
{
        long long deadline = now_ms() + timeout_ms;
        int fd = open_lock(path, err);
        if (fd < 0)
                return -1;
        /* Poll with a growing pause: critical sections are short (one read
         * and one write of a small file), so waiters get the lock quickly
         * without a timer signal interrupting a blocking flock. */
        long pause_us = 200;
        for (;;) {
                if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
                        if (still_there(fd, path))
                                return fd;
                        /* its holder removed it: take the one at path now */
                        close(fd);
                        if ((fd = open_lock(path, err)) < 0)
                                return -1;
                        continue;
                }
                if (errno == EINTR)
                        continue;
                if (errno != EWOULDBLOCK) {
                        int e = errno;
                        close(fd);
                        return ctk_error_errno(err, e, "cannot lock %s", CTK_CUT(path));
                }
                long long left = deadline - now_ms();
                if (left <= 0)
                        break;
                long us = pause_us;
                if ((long long)us > left * 1000)
                        us = (long)(left * 1000);
                struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
                nanosleep(&ts, NULL);
                if (pause_us < 20000)
                        pause_us *= 2;
        }
        char holder[48];
        holder_note(fd, holder, sizeof(holder));
        close(fd);
        return ctk_error_set(err, ETIMEDOUT,
                             "timed out after %u.%03u s waiting for the lock %s%s (another amd-ctk or "
                             "amd-container-runtime holds it)",
                             timeout_ms / 1000, timeout_ms % 1000, CTK_CUT(path), holder);
}

void ctk_flock_release(int fd)
{
        if (fd >= 0)
                close(fd);
}

void ctk_flock_release_remove(int fd, const char *path)
{
        if (fd < 0)
                return;
        (void)unlink(path); /* while held: a waiter that opened it sees it gone, and retries */
        close(fd);
}
