/* Whole-file reads and atomic replacement. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/base/cleanup.h"
#include "core/base/fileio.h"
#include "core/base/fsdir.h"
#include "scratch_dir.h"

static char dir[] = "/tmp/ctk-fileio-XXXXXX";

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

static void put(const char *path, const char *text, mode_t mode)
{
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
        assert_int_equal(chmod(path, mode), 0);
}

static size_t entries(void)
{
        DIR *d = opendir(dir);
        size_t n = 0;
        for (struct dirent *e; (e = readdir(d)) != NULL;)
                n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0; /* temporary files too */
        closedir(d);
        return n;
}

static void test_read_all(void **state)
{
        (void)state;
        _cleanup_free_ char *p = scratch_path(dir, "r.txt");
        put(p, "hello\n", 0644);
        _cleanup_free_ char *data = NULL;
        size_t len = 0;
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(ctk_file_read_all(p, &data, &len, &err), 0);
        assert_string_equal(data, "hello\n");
        assert_int_equal(len, 6);

        /* Bigger than the first buffer. */
        size_t big = 100000;
        char *text = malloc(big + 1);
        memset(text, 'x', big);
        text[big] = '\0';
        put(p, text, 0644);
        free(text);
        _cleanup_free_ char *data2 = NULL;
        assert_int_equal(ctk_file_read_all(p, &data2, &len, &err), 0);
        assert_int_equal(len, big);
        assert_int_equal(strlen(data2), big);
}

static void test_read_missing(void **state)
{
        (void)state;
        _cleanup_free_ char *p = scratch_path(dir, "missing.json");
        _cleanup_free_ char *data = NULL;
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(ctk_file_read_all(p, &data, NULL, &err), -1);
        assert_int_equal(err->code, ENOENT);
        assert_non_null(strstr(err->msg, "missing.json: No such file or directory"));
}

/* Reads path with ctk_file_read (limit max, flags); returns the error
 * code (0 on success), and the message in *msg (when not NULL). */
static int read_code(const char *path, size_t max, unsigned flags, char **msg)
{
        _cleanup_free_ char *data = NULL;
        _cleanup_error_ struct ctk_error *err = NULL;
        size_t len = 0;
        int r = ctk_file_read(path, max, flags, &data, &len, &err);
        if (r == 0) {
                assert_null(err);
                assert_int_equal(data[len], '\0');
                return 0;
        }
        assert_non_null(err);
        if (msg != NULL)
                *msg = strdup(err->msg);
        return err->code;
}

/* What is not a regular file is one error, never a wait or an endless read. */
static void test_read_refuses_special_files(void **state)
{
        (void)state;
        _cleanup_free_ char *fifo = scratch_path(dir, "fifo.toml");
        assert_int_equal(mkfifo(fifo, 0600), 0);
        char *msg = NULL;
        /* a FIFO without a writer: opening it would wait forever */
        assert_int_equal(read_code(fifo, CTK_FILE_MAX, 0, &msg), EINVAL);
        char want[512];
        (void)snprintf(want, sizeof(want), "%s is a FIFO, not a regular file: not read", fifo);
        assert_string_equal(msg, want);
        free(msg);
        unlink(fifo);
        /* /dev/zero: endless */
        assert_int_equal(read_code("/dev/zero", CTK_FILE_MAX, 0, &msg), EINVAL);
        assert_string_equal(msg, "/dev/zero is a character device, not a regular file: not read");
        free(msg);
        /* a directory */
        assert_int_equal(read_code(dir, CTK_FILE_MAX, 0, NULL), EISDIR);
        /* a link to the FIFO: followed, then refused; with CTK_READ_NOFOLLOW not followed */
        _cleanup_free_ char *link = scratch_path(dir, "link.toml");
        assert_int_equal(mkfifo(fifo, 0600), 0);
        assert_int_equal(symlink(fifo, link), 0);
        assert_int_equal(read_code(link, CTK_FILE_MAX, 0, NULL), EINVAL);
        assert_int_equal(read_code(link, CTK_FILE_MAX, CTK_READ_NOFOLLOW, &msg), ELOOP);
        (void)snprintf(want, sizeof(want), "%s is a symbolic link: not read", link);
        assert_string_equal(msg, want);
        free(msg);
        unlink(link);
        unlink(fifo);
        /* an open descriptor of a FIFO */
        assert_int_equal(mkfifo(fifo, 0600), 0);
        int fd = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        assert_true(fd >= 0);
        _cleanup_free_ char *data = NULL;
        _cleanup_error_ struct ctk_error *err2 = NULL;
        assert_int_equal(ctk_file_read_fd(fd, fifo, CTK_FILE_MAX, &data, NULL, &err2), -1);
        assert_int_equal(err2->code, EINVAL);
        close(fd);
        unlink(fifo);
}

/* A file over the limit: one error naming the limit; at the limit: read. */
static void test_read_limit(void **state)
{
        (void)state;
        _cleanup_free_ char *p = scratch_path(dir, "big.json");
        put(p, "0123456789", 0644);
        char *msg = NULL;
        assert_int_equal(read_code(p, 10, 0, NULL), 0);
        assert_int_equal(read_code(p, 9, 0, &msg), EFBIG);
        char want[512];
        (void)snprintf(want, sizeof(want), "%s is larger than 9 bytes: not read", p);
        assert_string_equal(msg, want);
        free(msg);
        /* the size the file says is checked first: a sparse 17 MiB file is not read */
        assert_int_equal(truncate(p, (off_t)CTK_FILE_MAX + 1), 0);
        assert_int_equal(read_code(p, CTK_FILE_MAX, 0, &msg), EFBIG);
        (void)snprintf(want, sizeof(want), "%s is larger than 16 MiB: not read", p);
        assert_string_equal(msg, want);
        free(msg);
        assert_int_equal(truncate(p, (off_t)CTK_FILE_MAX), 0);
        assert_int_equal(read_code(p, CTK_FILE_MAX, 0, NULL), 0);
        unlink(p);
        /* a file whose size says nothing (proc): the read stops at the limit */
        assert_int_equal(read_code("/proc/self/status", 16, 0, &msg), EFBIG);
        assert_string_equal(msg, "/proc/self/status is larger than 16 bytes: not read");
        free(msg);
        assert_int_equal(read_code("/proc/self/status", CTK_FILE_MAX, 0, NULL), 0);
        char size[CTK_SIZE_TEXT_MAX];
        ctk_size_text((size_t)64 << 10, size);
        assert_string_equal(size, "64 KiB");
        ctk_size_text(1000, size);
        assert_string_equal(size, "1000 bytes");
}

static void test_write_atomic_keeps_mode(void **state)
{
        (void)state;
        _cleanup_free_ char *p = scratch_path(dir, "config.json");
        put(p, "old", 0604);
        struct stat before;
        assert_int_equal(stat(p, &before), 0);
        size_t n = entries();
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(ctk_file_write_atomic(p, "new content\n", 12, 0600, &err), 0);
        _cleanup_free_ char *data = NULL;
        assert_int_equal(ctk_file_read_all(p, &data, NULL, &err), 0);
        assert_string_equal(data, "new content\n");
        struct stat after;
        assert_int_equal(stat(p, &after), 0);
        assert_int_equal(after.st_mode & 07777, 0604);
        assert_int_not_equal(after.st_ino, before.st_ino); /* replaced, not rewritten in place */
        assert_int_equal(entries(), n);                    /* no temporary file left */
}

static void test_write_atomic_new_file(void **state)
{
        (void)state;
        _cleanup_free_ char *p = scratch_path(dir, "new.json");
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(ctk_file_write_atomic(p, "{}", 2, 0640, &err), 0);
        struct stat st;
        assert_int_equal(stat(p, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0640);
        assert_int_equal(st.st_size, 2);
}

static void test_write_atomic_mode_is_forced(void **state)
{
        (void)state;
        _cleanup_free_ char *p = scratch_path(dir, "forced.json");
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(ctk_file_write_atomic_mode(p, "a", 1, 0644, &err), 0);
        assert_int_equal(chmod(p, 0600), 0);
        assert_int_equal(ctk_file_write_atomic_mode(p, "bb", 2, 0644, &err), 0);
        struct stat st;
        assert_int_equal(stat(p, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0644);
        assert_int_equal(st.st_size, 2);
}

/* A backup takes its source's owner and mode, never those of the file it
 * replaces (an earlier backup someone else owns, wider than its source). */
static void test_write_atomic_as(void **state)
{
        (void)state;
        _cleanup_free_ char *p = scratch_path(dir, "daemon.json.bak");
        put(p, "stale", 0644);
        bool root = geteuid() == 0;
        if (root)
                assert_int_equal(chown(p, 65534, 65534), 0);
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(ctk_file_write_atomic_as(p, "secret", 6, 0600, geteuid(), getegid(), 0, &err), 0);
        struct stat st;
        assert_int_equal(stat(p, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0600);
        assert_int_equal(st.st_uid, geteuid());
        assert_int_equal(st.st_gid, getegid());
        assert_int_equal(st.st_size, 6);
        if (!root)
                return;
        /* and to another owner, whose file it is */
        assert_int_equal(ctk_file_write_atomic_as(p, "theirs", 6, 0640, 65534, 65534, 0, &err), 0);
        assert_int_equal(stat(p, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0640);
        assert_int_equal(st.st_uid, 65534);
        assert_int_equal(st.st_gid, 65534);
}

static void test_write_atomic_failure_leaves_file(void **state)
{
        (void)state;
        _cleanup_free_ char *p = scratch_path(dir, "nodir/config.json");
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(ctk_file_write_atomic(p, "x", 1, 0644, &err), -1);
        assert_non_null(strstr(err->msg, "cannot create a temporary file in"));

        /* A directory is not replaced: it stays, no temporary file remains. */
        _cleanup_free_ char *d = scratch_path(dir, "adir");
        assert_int_equal(mkdir(d, 0755), 0);
        size_t n = entries();
        _cleanup_error_ struct ctk_error *err2 = NULL;
        assert_int_equal(ctk_file_write_atomic(d, "x", 1, 0644, &err2), -1);
        assert_non_null(strstr(err2->msg, "is not a regular file: not written"));
        assert_int_equal(entries(), n);
        struct stat st;
        assert_int_equal(stat(d, &st), 0);
        assert_true(S_ISDIR(st.st_mode));
}

/* A symbolic link at the path is neither followed nor replaced: its
 * target keeps its bytes, the link stays, nothing is left behind. */
static void test_write_atomic_refuses_symlink(void **state)
{
        (void)state;
        _cleanup_free_ char *victim = scratch_path(dir, "victim");
        _cleanup_free_ char *link = scratch_path(dir, "link.json");
        FILE *f = fopen(victim, "w");
        assert_non_null(f);
        fputs("secret\n", f);
        fclose(f);
        assert_int_equal(symlink(victim, link), 0);
        size_t n = entries();
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(ctk_file_write_atomic(link, "x", 1, 0644, &err), -1);
        assert_int_equal(err->code, ELOOP);
        assert_non_null(strstr(err->msg, "is a symbolic link: not written"));
        struct stat st;
        assert_int_equal(lstat(link, &st), 0);
        assert_true(S_ISLNK(st.st_mode));
        assert_int_equal(stat(victim, &st), 0);
        assert_int_equal(st.st_size, 7);
        assert_int_equal(entries(), n);
        /* a dangling link: nothing is created at its target either */
        _cleanup_free_ char *dangling = scratch_path(dir, "dangling.json");
        _cleanup_free_ char *target = scratch_path(dir, "created-through-link");
        assert_int_equal(symlink(target, dangling), 0);
        _cleanup_error_ struct ctk_error *err2 = NULL;
        assert_int_equal(ctk_file_write_atomic_mode(dangling, "x", 1, 0644, &err2), -1);
        assert_int_equal(access(target, F_OK), -1);
}

/* A hard link of the path elsewhere keeps the old content: the path gets a
 * new file, the other name is never written. */
static void test_write_atomic_hard_link_untouched(void **state)
{
        (void)state;
        _cleanup_free_ char *victim = scratch_path(dir, "shadow");
        _cleanup_free_ char *p = scratch_path(dir, "hard.json");
        FILE *f = fopen(victim, "w");
        assert_non_null(f);
        fputs("root:x:0:\n", f);
        fclose(f);
        assert_int_equal(chmod(victim, 0640), 0);
        assert_int_equal(link(victim, p), 0);
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(ctk_file_write_atomic(p, "{}\n", 3, 0644, &err), 0);
        _cleanup_free_ char *text = NULL;
        assert_int_equal(ctk_file_read_all(victim, &text, NULL, NULL), 0);
        assert_string_equal(text, "root:x:0:\n");
        struct stat a, b;
        assert_int_equal(stat(victim, &a), 0);
        assert_int_equal(stat(p, &b), 0);
        assert_true(a.st_ino != b.st_ino);
        assert_int_equal(a.st_nlink, 1);
}

static void test_write_relative_path(void **state)
{
        (void)state;
        char cwd[4096];
        assert_non_null(getcwd(cwd, sizeof(cwd)));
        assert_int_equal(chdir(dir), 0);
        _cleanup_error_ struct ctk_error *err = NULL;
        int r = ctk_file_write_atomic("rel.json", "{}\n", 3, 0644, &err);
        assert_int_equal(chdir(cwd), 0);
        assert_int_equal(r, 0);
        _cleanup_free_ char *p = scratch_path(dir, "rel.json");
        struct stat st;
        assert_int_equal(stat(p, &st), 0);
}

static void test_mkdir_parent(void **state)
{
        (void)state;
        _cleanup_free_ char *file = scratch_path(dir, "a/b/c/out.json");
        _cleanup_free_ char *parent = scratch_path(dir, "a/b/c");
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(ctk_mkdir_parent(file, 0755, &err), 0);
        struct stat st;
        assert_int_equal(stat(parent, &st), 0);
        assert_true(S_ISDIR(st.st_mode));
        assert_int_not_equal(stat(file, &st), 0);                /* only the directories */
        assert_int_equal(ctk_mkdir_parent(file, 0755, &err), 0); /* again: nothing to do */
        /* a file where a directory should be */
        _cleanup_free_ char *blocker = scratch_path(dir, "a/f");
        put(blocker, "x", 0644);
        _cleanup_free_ char *below = scratch_path(dir, "a/f/g/out.json");
        assert_int_equal(ctk_mkdir_parent(below, 0755, &err), -1);
        assert_non_null(err);
}

/* CTK_WRITE_NO_LINKS: a directory on the way that is a symbolic link is
 * not written into (a file of ours would land where the link points);
 * without the flag the link is followed, as before. */
static void test_write_atomic_real_dir(void **state)
{
        (void)state;
        _cleanup_free_ char *target = scratch_path(dir, "real-dir");
        _cleanup_free_ char *link = scratch_path(dir, "linked-dir");
        assert_int_equal(mkdir(target, 0755), 0);
        assert_int_equal(symlink(target, link), 0);
        _cleanup_free_ char *target_sub = scratch_path(dir, "real-dir/sub");
        assert_int_equal(mkdir(target_sub, 0755), 0);
        static const char *const names[] = {"linked-dir/ours.conf", "linked-dir//ours.conf",
                                            "linked-dir/sub/ours.conf"};
        for (size_t i = 0; i < 3; i++) {
                _cleanup_free_ char *path = scratch_path(dir, names[i]);
                _cleanup_error_ struct ctk_error *err = NULL;
                assert_int_equal(ctk_file_write_atomic_flags(path, "x", 1, 0644, CTK_WRITE_NO_LINKS, &err), -1);
                assert_int_equal(err->code, ELOOP);
                char want[512];
                (void)snprintf(want, sizeof(want), "%s is not trusted: its %s %s is a symbolic link: not written", path,
                               i < 2 ? "directory" : "ancestor", link);
                assert_string_equal(err->msg, want);
                _cleanup_error_ struct ctk_error *err2 = NULL;
                assert_int_equal(ctk_file_write_check(path, CTK_WRITE_NO_LINKS, &err2), -1);
                assert_string_equal(err2->msg, err->msg);
        }
        _cleanup_free_ char *inside = scratch_path(dir, "real-dir/ours.conf");
        assert_int_equal(access(inside, F_OK), -1);
        DIR *d = opendir(target);
        assert_non_null(d);
        size_t n = 0;
        for (struct dirent *e; (e = readdir(d)) != NULL;)
                n += (e->d_name[0] != '.' || strlen(e->d_name) > 2) && strcmp(e->d_name, "sub") != 0;
        closedir(d);
        assert_int_equal(n, 0); /* no temporary either */
        /* a real directory, or a missing one, passes the check */
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(ctk_file_write_check(inside, CTK_WRITE_NO_LINKS, &err), 0);
        _cleanup_free_ char *missing = scratch_path(dir, "no-such-dir/ours.conf");
        assert_int_equal(ctk_file_write_check(missing, CTK_WRITE_NO_LINKS, &err), 0);
        assert_int_equal(ctk_file_write_atomic_flags(inside, "x", 1, 0600, CTK_WRITE_NO_LINKS, &err), 0);
        _cleanup_free_ char *through = scratch_path(dir, "linked-dir/theirs.conf");
        assert_int_equal(ctk_file_write_atomic(through, "y", 1, 0644, &err), 0);
        assert_null(err);
}

/* CTK_WRITE_TRUSTED: no file is written through a directory another user
 * may change; a root's link on the way leads to a path walked in turn. */
static void test_write_atomic_trusted(void **state)
{
        (void)state;
        _cleanup_free_ char *open_dir = scratch_path(dir, "t-open"), *conf = scratch_path(dir, "t-open/etc"),
                            *file = scratch_path(dir, "t-open/etc/daemon.json"), *link = scratch_path(dir, "t-link"),
                            *via = scratch_path(dir, "t-link/daemon.json");
        assert_int_equal(mkdir(open_dir, 0755), 0);
        assert_int_equal(mkdir(conf, 0755), 0);
        assert_int_equal(symlink(conf, link), 0);
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(ctk_file_write_atomic_flags(file, "1", 1, 0644, CTK_WRITE_TRUSTED, &err), 0);
        assert_int_equal(ctk_file_write_atomic_flags(via, "2", 1, 0644, CTK_WRITE_TRUSTED, &err), 0);
        assert_int_equal(chmod(open_dir, 0777), 0);
        assert_int_equal(ctk_file_write_check(via, CTK_WRITE_TRUSTED, &err), -1);
        assert_int_equal(err->code, EPERM);
        _cleanup_error_ struct ctk_error *written = NULL;
        assert_int_equal(ctk_file_write_atomic_flags(file, "3", 1, 0644, CTK_WRITE_TRUSTED, &written), -1);
        char want[512];
        (void)snprintf(want, sizeof(want),
                       "%s is not trusted: its ancestor %s is writable by every user (mode 0777): not written", file,
                       open_dir);
        assert_string_equal(written->msg, want);
        assert_int_equal(ctk_file_write_atomic(file, "4", 1, 0644, NULL), 0); /* (without the flag: as before) */
        assert_int_equal(chmod(open_dir, 0755), 0);
}

/* ctk_file_write_check refuses what the writer refuses, before anything is written. */
static void test_write_check(void **state)
{
        (void)state;
        _cleanup_free_ char *file = scratch_path(dir, "check-file");
        _cleanup_free_ char *link = scratch_path(dir, "check-link");
        _cleanup_free_ char *sub = scratch_path(dir, "check-dir");
        _cleanup_free_ char *missing = scratch_path(dir, "check-missing");
        put(file, "x", 0644);
        assert_int_equal(symlink(file, link), 0);
        assert_int_equal(mkdir(sub, 0755), 0);
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(ctk_file_write_check(file, 0, &err), 0);
        assert_int_equal(ctk_file_write_check(missing, 0, &err), 0);
        assert_null(err);
        assert_int_equal(ctk_file_write_check(link, 0, &err), -1);
        assert_int_equal(err->code, ELOOP);
        _cleanup_error_ struct ctk_error *written = NULL;
        assert_int_equal(ctk_file_write_atomic(link, "y", 1, 0644, &written), -1);
        assert_string_equal(err->msg, written->msg);
        _cleanup_error_ struct ctk_error *err2 = NULL;
        assert_int_equal(ctk_file_write_check(sub, 0, &err2), -1);
        assert_int_equal(err2->code, EINVAL);
}

/* ctk_stdout_close in a child whose standard output is path: 0 when the
 * output was written, else 1 and the error's message in msg. */
static int stdout_close_in_child(const char *path, bool line_buffered, char *msg, size_t size)
{
        int p[2];
        assert_int_equal(pipe(p), 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                close(p[0]);
                if (freopen(path, "w", stdout) == NULL)
                        _exit(3);
                if (line_buffered)
                        (void)setvbuf(stdout, NULL, _IOLBF, 0);
                fputs("some output\n", stdout);
                struct ctk_error *err = NULL;
                int rc = ctk_stdout_close(&err);
                if (rc < 0 && write(p[1], err->msg, strlen(err->msg)) < 0)
                        _exit(4);
                _exit(rc < 0 ? 1 : 0);
        }
        close(p[1]);
        ssize_t n = read(p[0], msg, size - 1);
        msg[n > 0 ? n : 0] = '\0';
        close(p[0]);
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status));
        return WEXITSTATUS(status);
}

static void test_stdout_close(void **state)
{
        (void)state;
        char msg[256];
        _cleanup_free_ char *file = scratch_path(dir, "stdout.txt");
        assert_int_equal(stdout_close_in_child(file, false, msg, sizeof(msg)), 0);
        assert_string_equal(msg, "");
        /* a full disk: the last flush fails, naming the cause */
        assert_int_equal(stdout_close_in_child("/dev/full", false, msg, sizeof(msg)), 1);
        assert_string_equal(msg, "cannot write the standard output: No space left on device");
        /* a write that failed before (line by line): the failure is still seen */
        assert_int_equal(stdout_close_in_child("/dev/full", true, msg, sizeof(msg)), 1);
        assert_string_equal(msg, "cannot write the standard output");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_read_all),
            cmocka_unit_test(test_read_missing),
            cmocka_unit_test(test_read_refuses_special_files),
            cmocka_unit_test(test_read_limit),
            cmocka_unit_test(test_write_atomic_keeps_mode),
            cmocka_unit_test(test_write_atomic_new_file),
            cmocka_unit_test(test_write_atomic_mode_is_forced),
            cmocka_unit_test(test_write_atomic_as),
            cmocka_unit_test(test_write_atomic_failure_leaves_file),
            cmocka_unit_test(test_write_atomic_refuses_symlink),
            cmocka_unit_test(test_write_atomic_hard_link_untouched),
            cmocka_unit_test(test_write_relative_path),
            cmocka_unit_test(test_write_atomic_real_dir),
            cmocka_unit_test(test_write_check),
            cmocka_unit_test(test_write_atomic_trusted),
            cmocka_unit_test(test_mkdir_parent),
            cmocka_unit_test(test_stdout_close),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
