#include "flock.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

static long long now_ms(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int ctk_flock_acquire(const char *path, unsigned int timeout_ms, struct ctk_error **err)
{
        int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0600);
        if (fd < 0)
                return ctk_error_errno(err, errno, "cannot open lock file %s", path);
        long long deadline = now_ms() + timeout_ms;
        /* Poll with a growing pause: critical sections are short (one read
         * and one write of a small file), so waiters get the lock quickly
         * without a timer signal interrupting a blocking flock. */
        long pause_us = 200;
        for (;;) {
                if (flock(fd, LOCK_EX | LOCK_NB) == 0)
                        return fd;
                if (errno == EINTR)
                        continue;
                if (errno != EWOULDBLOCK) {
                        int e = errno;
                        close(fd);
                        return ctk_error_errno(err, e, "cannot lock %s", path);
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
        close(fd);
        return ctk_error_set(err, ETIMEDOUT,
                             "timed out after %u.%03u s waiting for the lock %s (another amd-ctk or "
                             "amd-container-runtime holds it)",
                             timeout_ms / 1000, timeout_ms % 1000, path);
}

void ctk_flock_release(int fd)
{
        if (fd >= 0)
                close(fd);
}
