/* Unit tests of core/base/flock.c: a lock no other user can hold, a bounded
 * wait that names the holder, and locks that exist only while held. */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/base/base.h"
#include "scratch_dir.h"

static char dir[] = "/tmp/ctk-flock-XXXXXX";

static int setup(void **state)
{
        (void)state;
        return scratch_dir_make(dir) == NULL ? -1 : 0;
}

static int teardown(void **state)
{
        (void)state;
        return scratch_dir_remove(dir);
}

static void test_created_ours_alone(void **state)
{
        (void)state;
        _cleanup_free_ char *p = scratch_path(dir, "a.lock");
        _cleanup_error_ struct ctk_error *err = NULL;
        mode_t old = umask(0); /* whatever the umask, 0600 */
        int fd = ctk_flock_acquire(p, 100, &err);
        umask(old);
        assert_true(fd >= 0);
        struct stat st;
        assert_int_equal(stat(p, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0600);
        assert_int_equal(st.st_uid, geteuid());
        ctk_flock_release(fd);
        assert_int_equal(stat(p, &st), 0); /* a lasting lock stays */
}

/* Another open file of the same lock holds it: the wait ends, naming the
 * lock and its holder (this process, as /proc/locks lists it). */
static void test_bounded_wait_names_holder(void **state)
{
        (void)state;
        _cleanup_free_ char *p = scratch_path(dir, "held.lock");
        int holder = ctk_flock_acquire(p, 100, NULL);
        assert_true(holder >= 0);
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(ctk_flock_acquire(p, 50, &err), -1);
        assert_int_equal(err->code, ETIMEDOUT);
        _cleanup_free_ char *want = NULL;
        assert_true(asprintf(&want,
                             "timed out after 0.050 s waiting for the lock %s (held by pid %ld) (another amd-ctk or "
                             "amd-container-runtime holds it)",
                             p, (long)getpid()) > 0);
        assert_string_equal(err->msg, want);
        ctk_flock_release(holder);
}

/* A file at the lock's path that another user could open (and so lock) is
 * refused at once, not waited for. */
static void test_refuses_what_others_can_hold(void **state)
{
        (void)state;
        _cleanup_free_ char *p = scratch_path(dir, "wide.lock");
        scratch_write(dir, "wide.lock", "");
        assert_int_equal(chmod(p, 0644), 0);
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(ctk_flock_acquire(p, 60000, &err), -1);
        assert_int_equal(err->code, EPERM);
        _cleanup_free_ char *want = NULL;
        assert_true(asprintf(&want,
                             "lock file %s has owner uid %u and mode 0644, where another user could hold it: refused "
                             "(remove it: it is created again, mode 0600)",
                             p, (unsigned)geteuid()) > 0);
        assert_string_equal(err->msg, want);
        /* another owner, even 0600 */
        struct stat st = {.st_mode = S_IFREG | 0600, .st_uid = geteuid() + 1};
        ctk_error_free(ctk_steal(&err));
        assert_int_equal(ctk_flock_check(p, &st, geteuid(), &err), -1);
        assert_int_equal(err->code, EPERM);
        /* not a file: a FIFO would never be a lock (and opening one must not block) */
        _cleanup_free_ char *fifo = scratch_path(dir, "fifo.lock");
        assert_int_equal(mkfifo(fifo, 0600), 0);
        ctk_error_free(ctk_steal(&err));
        assert_int_equal(ctk_flock_acquire(fifo, 60000, &err), -1);
        assert_int_equal(err->code, EINVAL);
        assert_non_null(strstr(err->msg, "is not a regular file: refused"));
        /* a link is not followed */
        _cleanup_free_ char *link = scratch_path(dir, "link.lock");
        assert_int_equal(symlink("a.lock", link), 0);
        ctk_error_free(ctk_steal(&err));
        assert_int_equal(ctk_flock_acquire(link, 100, &err), -1);
        assert_int_equal(err->code, ELOOP);
}

/* Whether process pid has the file st (dev, ino) open: polled until it has. */
static bool has_open(pid_t pid, const struct stat *st)
{
        char fds[64];
        (void)snprintf(fds, sizeof(fds), "/proc/%d/fd", (int)pid);
        DIR *d = opendir(fds);
        bool found = false;
        struct dirent *e;
        while (d != NULL && !found && (e = readdir(d)) != NULL) {
                struct stat s;
                found = e->d_name[0] != '.' && fstatat(dirfd(d), e->d_name, &s, 0) == 0 && s.st_dev == st->st_dev &&
                        s.st_ino == st->st_ino;
        }
        if (d != NULL)
                closedir(d);
        return found;
}

/* A lock that exists only while held: a waiter that opened it before it
 * was removed takes the one at its path afterwards, never a removed one. */
static void test_transient(void **state)
{
        (void)state;
        _cleanup_free_ char *p = scratch_path(dir, ".daemon.json.lock");
        int fd = ctk_flock_acquire(p, 100, NULL);
        assert_true(fd >= 0);
        pid_t child = fork();
        assert_true(child >= 0);
        if (child == 0) {
                close(fd); /* the parent's: its lock goes with the parent's close */
                int w = ctk_flock_acquire(p, 10000, NULL);
                struct stat a, b;
                _exit(w >= 0 && fstat(w, &a) == 0 && stat(p, &b) == 0 && a.st_ino == b.st_ino ? 0 : 1);
        }
        struct stat held;
        assert_int_equal(fstat(fd, &held), 0);
        while (!has_open(child, &held)) { /* until the child has opened the lock and waits */
                assert_int_equal(waitpid(child, NULL, WNOHANG), 0);
                sched_yield();
        }
        ctk_flock_release_remove(fd, p);
        int status;
        assert_int_equal(waitpid(child, &status, 0), child);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_holder_from_proc_locks(void **state)
{
        (void)state;
        struct stat st = {.st_dev = makedev(0x103, 0x2e), .st_ino = 5678};
        const char *locks = "1: POSIX  ADVISORY  WRITE 99 01:03:5678 0 EOF\n"
                            "2: FLOCK  ADVISORY  WRITE 1234 103:2e:5678 0 EOF\n"
                            "3: FLOCK  ADVISORY  WRITE 77 103:2e:5679 0 EOF\n";
        assert_int_equal(ctk_flock_holder(locks, &st), 1234);
        st.st_ino = 1;
        assert_int_equal(ctk_flock_holder(locks, &st), 0);
        assert_int_equal(ctk_flock_holder("", &st), 0);
        assert_int_equal(ctk_flock_holder("garbage\n\n", &st), 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_created_ours_alone),           cmocka_unit_test(test_bounded_wait_names_holder),
            cmocka_unit_test(test_refuses_what_others_can_hold), cmocka_unit_test(test_transient),
            cmocka_unit_test(test_holder_from_proc_locks),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
