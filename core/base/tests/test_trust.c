/* Trusted files: the predicate on owner and mode, and the reader that
 * checks a file, its directory and a link's target on what it opened. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <grp.h>
#include <sched.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/base/cleanup.h"
#include "core/base/fileio.h"
#include "core/base/trust.h"
#include "scratch_dir.h"

static char dir[] = "/tmp/ctk-trust-XXXXXX";

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

static struct stat st_of(mode_t mode, uid_t uid)
{
        struct stat st;
        memset(&st, 0, sizeof(st));
        st.st_mode = mode;
        st.st_uid = uid;
        return st;
}

static void test_predicate(void **state)
{
        (void)state;
        struct stat st = st_of(S_IFREG | 0644, 0);
        assert_int_equal(ctk_trust_check(&st, 0), CTK_TRUSTED);
        st = st_of(S_IFREG | 0600, 1000);
        assert_int_equal(ctk_trust_check(&st, 0), CTK_UNTRUSTED_OWNER);
        assert_int_equal(ctk_trust_check(&st, 1000), CTK_TRUSTED); /* the program's own user */
        st = st_of(S_IFREG | 0644, 0);
        assert_int_equal(ctk_trust_check(&st, 1000), CTK_TRUSTED); /* root's, for anyone */
        st = st_of(S_IFREG | 0664, 0);
        assert_int_equal(ctk_trust_check(&st, 0), CTK_UNTRUSTED_GROUP);
        st = st_of(S_IFREG | 0646, 0);
        assert_int_equal(ctk_trust_check(&st, 0), CTK_UNTRUSTED_OTHERS);
        st = st_of(S_IFDIR | 01777, 0); /* /tmp: the sticky bit does not make it ours */
        assert_int_equal(ctk_trust_check(&st, 0), CTK_UNTRUSTED_OTHERS);
        st = st_of(S_IFDIR | 0755, 0);
        assert_int_equal(ctk_trust_check(&st, 0), CTK_TRUSTED);
        st = st_of(S_IFDIR | 0775, 0);
        assert_int_equal(ctk_trust_check(&st, 0), CTK_UNTRUSTED_GROUP);
        /* a link's mode means nothing (0777 always); its owner counts */
        st = st_of(S_IFLNK | 0777, 0);
        assert_int_equal(ctk_trust_check(&st, 0), CTK_TRUSTED);
        st = st_of(S_IFLNK | 0777, 65534);
        assert_int_equal(ctk_trust_check(&st, 0), CTK_UNTRUSTED_OWNER);
        /* the owner is looked at first */
        st = st_of(S_IFREG | 0666, 65534);
        assert_int_equal(ctk_trust_check(&st, 0), CTK_UNTRUSTED_OWNER);
        /* an ordinary user's own directory in its own group (a user private
         * group, umask 002: ~/.config 0775); never for root of the host */
        st = st_of(S_IFDIR | 0775, 1000);
        st.st_gid = getegid();
        assert_int_equal(ctk_trust_check(&st, 1000), CTK_TRUSTED);
        st.st_gid = getegid() + 1;
        assert_int_equal(ctk_trust_check(&st, 1000), CTK_UNTRUSTED_GROUP);
        st = st_of(S_IFDIR | 0775, 0);
        st.st_gid = getegid();
        assert_int_equal(ctk_trust_check(&st, 0), CTK_UNTRUSTED_GROUP);
        st = st_of(S_IFDIR | 0777, 1000);
        st.st_gid = getegid();
        assert_int_equal(ctk_trust_check(&st, 1000), CTK_UNTRUSTED_OTHERS);
        /* root's own file in root's group, for a user: root's group is not its own */
        st = st_of(S_IFREG | 0664, 0);
        st.st_gid = getegid();
        assert_int_equal(ctk_trust_check(&st, 1000), CTK_UNTRUSTED_GROUP);
        if (geteuid() != 0)
                assert_false(ctk_trust_host_root());
}

/* The reader's error code for path (0: read), its message in *msg. */
static int read_code(const char *path, char **msg)
{
        _cleanup_free_ char *data = NULL;
        _cleanup_error_ struct ctk_error *err = NULL;
        if (ctk_file_read_trusted(path, CTK_FILE_MAX, &data, NULL, &err) == 0) {
                assert_string_equal(data, "{}\n");
                return 0;
        }
        assert_non_null(err);
        if (msg != NULL)
                *msg = strdup(err->msg);
        return err->code;
}

static void mkdir_mode(const char *path, mode_t mode)
{
        assert_int_equal(mkdir(path, 0700), 0);
        assert_int_equal(chmod(path, mode), 0);
}

static void put(const char *path, mode_t mode)
{
        FILE *f = fopen(path, "we");
        assert_non_null(f);
        fputs("{}\n", f);
        fclose(f);
        assert_int_equal(chmod(path, mode), 0);
}

/* Expects the code, and (want not NULL) the message want (taken). */
static void expect(const char *path, int code, char *want)
{
        char *msg = NULL;
        assert_int_equal(read_code(path, &msg), code);
        if (want != NULL && (msg == NULL || strcmp(msg, want) != 0))
                fail_msg("got \"%s\", want \"%s\"", msg != NULL ? msg : "(none)", want);
        free(msg);
        free(want);
}

static char *msgf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *msgf(const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        char *s = NULL;
        if (vasprintf(&s, fmt, ap) < 0)
                fail();
        va_end(ap);
        return s;
}

static void test_read_trusted(void **state)
{
        (void)state;
        _cleanup_free_ char *good = scratch_path(dir, "good"), *open_dir = scratch_path(dir, "open"),
                            *group_dir = scratch_path(dir, "group");
        mkdir_mode(good, 0755);
        mkdir_mode(open_dir, 0777);
        mkdir_mode(group_dir, 0775);
        _cleanup_free_ char *ok = scratch_path(good, "ok.json"), *gw = scratch_path(good, "gw.json"),
                            *ow = scratch_path(good, "ow.json"), *in_open = scratch_path(open_dir, "a.json"),
                            *in_group = scratch_path(group_dir, "a.json");
        put(ok, 0644);
        put(gw, 0664);
        put(ow, 0606);
        put(in_open, 0644);
        put(in_group, 0644);
        expect(ok, 0, NULL);
        expect(gw, EPERM, msgf("%s is not trusted: it is writable by its group (mode 0664)", gw));
        expect(ow, EPERM, msgf("%s is not trusted: it is writable by every user (mode 0606)", ow));
        expect(in_open, EPERM,
               msgf("%s is not trusted: its directory %s is writable by every user (mode 0777)", in_open, open_dir));
        expect(in_group, EPERM,
               msgf("%s is not trusted: its directory %s is writable by its group (mode 0775)", in_group, group_dir));

        /* links: the target and its directory count, not only the link's */
        _cleanup_free_ char *to_ok = scratch_path(good, "to-ok.json"), *to_open = scratch_path(good, "to-open.json"),
                            *to_gw = scratch_path(good, "to-gw.json"), *to_dir = scratch_path(good, "to-dir.json"),
                            *dangling = scratch_path(good, "dangling.json");
        assert_int_equal(symlink(ok, to_ok), 0);
        assert_int_equal(symlink(in_open, to_open), 0);
        assert_int_equal(symlink(gw, to_gw), 0);
        assert_int_equal(symlink(good, to_dir), 0);
        assert_int_equal(symlink("nowhere.json", dangling), 0);
        expect(to_ok, 0, NULL);
        expect(to_open, EPERM,
               msgf("%s is not trusted: its target's directory %s is writable by every user (mode 0777)", to_open,
                    open_dir));
        expect(to_gw, EPERM, msgf("%s is not trusted: its target %s is writable by its group (mode 0664)", to_gw, gw));
        expect(to_dir, EISDIR, NULL);
        expect(dangling, ENOENT, NULL);

        /* what is not a regular file is not opened */
        _cleanup_free_ char *fifo = scratch_path(good, "fifo.json");
        assert_int_equal(mkfifo(fifo, 0644), 0);
        expect(fifo, EINVAL, msgf("%s is a FIFO, not a regular file: not read", fifo));
        expect(good, EISDIR, NULL);
        expect("/nonexistent-dir/x.json", ENOENT, NULL);

        /* owners: someone else's file, directory or link (needs root to make) */
        if (geteuid() != 0)
                return;
        _cleanup_free_ char *theirs = scratch_path(good, "theirs.json"), *their_dir = scratch_path(dir, "their-dir"),
                            *in_theirs = NULL, *their_link = scratch_path(good, "their-link.json");
        put(theirs, 0644);
        assert_int_equal(chown(theirs, 65534, 65534), 0);
        expect(theirs, EPERM, msgf("%s is not trusted: it is owned by uid 65534, not root", theirs));
        mkdir_mode(their_dir, 0755);
        in_theirs = scratch_path(their_dir, "a.json");
        put(in_theirs, 0644);
        assert_int_equal(chown(their_dir, 65534, 65534), 0);
        expect(in_theirs, EPERM,
               msgf("%s is not trusted: its directory %s is owned by uid 65534, not root", in_theirs, their_dir));
        assert_int_equal(symlink(ok, their_link), 0);
        assert_int_equal(lchown(their_link, 65534, 65534), 0);
        expect(their_link, EPERM,
               msgf("%s is not trusted: the symbolic link is owned by uid 65534, not root", their_link));
}

/* The walk's error code for path with flags (0: walked), its message in
 * *msg (NULL: not wanted). */
static int walk_code(const char *path, unsigned flags, char **msg)
{
        struct ctk_trust_walk w;
        _cleanup_error_ struct ctk_error *err = NULL;
        int r = ctk_trust_walk(path, flags, &w, &err);
        if (r == 0) {
                ctk_trust_walk_clear(&w);
                return 0;
        }
        assert_non_null(err);
        if (msg != NULL)
                *msg = strdup(err->msg);
        return err->code;
}

static void expect_walk(const char *path, unsigned flags, int code, char *want)
{
        char *msg = NULL;
        assert_int_equal(walk_code(path, flags, &msg), code);
        if (want != NULL && (msg == NULL || strcmp(msg, want) != 0))
                fail_msg("got \"%s\", want \"%s\"", msg != NULL ? msg : "(none)", want);
        free(msg);
        free(want);
}

/* Every directory from "/" counts, and every link on the way with its
 * target's whole path; the sticky bit makes a directory every user may
 * write to safe for root's entries in it. */
static void test_walk_ancestors(void **state)
{
        (void)state;
        _cleanup_free_ char *open_dir = scratch_path(dir, "w-open"), *deep = scratch_path(dir, "w-open/a/b"),
                            *file = scratch_path(dir, "w-open/a/b/spec.json"), *a = scratch_path(dir, "w-open/a");
        mkdir_mode(open_dir, 0755);
        mkdir_mode(a, 0755);
        mkdir_mode(deep, 0755);
        put(file, 0644);
        expect(file, 0, NULL);
        assert_int_equal(chmod(open_dir, 0777), 0); /* two levels up */
        expect(file, EPERM,
               msgf("%s is not trusted: its ancestor %s is writable by every user (mode 0777)", file, open_dir));
        expect_walk(deep, CTK_TRUST_FOLLOW, EPERM,
                    msgf("%s is not trusted: its ancestor %s is writable by every user (mode 0777)", deep, open_dir));
        assert_int_equal(chmod(open_dir, 0775), 0);
        expect(file, EPERM,
               msgf("%s is not trusted: its ancestor %s is writable by its group (mode 0775)", file, open_dir));
        /* /tmp's way: the sticky bit, and root's entries below */
        assert_int_equal(chmod(open_dir, 01777), 0);
        expect(file, 0, NULL);
        assert_int_equal(ctk_trust_dir(deep, NULL), 0);
        assert_int_equal(ctk_trust_dir(open_dir, NULL), 0);
        /* a missing directory on the way, a missing last entry */
        _cleanup_free_ char *gone = scratch_path(dir, "w-open/nope/x.json"), *last = scratch_path(deep, "none.json");
        expect(gone, ENOENT, NULL);
        expect(last, ENOENT, NULL);
        expect_walk(last, 0, 0, NULL);
        expect_walk(file, 0, 0, NULL);
        /* "." and ".." as the kernel takes them */
        _cleanup_free_ char *dotted = scratch_path(dir, "w-open/./a/../a/b/./spec.json");
        expect(dotted, 0, NULL);
        /* a relative path: from the working directory */
        _cleanup_free_ char *cwd = getcwd(NULL, 0);
        assert_int_equal(chdir(a), 0);
        expect("b/spec.json", 0, NULL);
        assert_int_equal(chmod(a, 0777), 0);
        expect("b/spec.json", EPERM,
               msgf("b/spec.json is not trusted: its ancestor %s is writable by every user (mode 0777)", a));
        assert_int_equal(chmod(a, 0755), 0);
        assert_int_equal(chdir(cwd), 0);
        if (geteuid() != 0)
                return;
        /* someone else's directory on the way, and in a sticky one */
        assert_int_equal(chown(a, 65534, 65534), 0);
        expect(file, EPERM, msgf("%s is not trusted: its ancestor %s is owned by uid 65534, not root", file, a));
        assert_int_equal(chown(a, 0, 0), 0);
        assert_int_equal(chown(deep, 65534, 0), 0);
        expect(file, EPERM, msgf("%s is not trusted: its directory %s is owned by uid 65534, not root", file, deep));
        assert_int_equal(chown(deep, 0, 0), 0);
        expect(file, 0, NULL);
}

static void test_walk_links(void **state)
{
        (void)state;
        _cleanup_free_ char *good = scratch_path(dir, "l-good"), *open_dir = scratch_path(dir, "l-open"),
                            *sub = scratch_path(dir, "l-good/sub"), *file = scratch_path(dir, "l-good/sub/s.json"),
                            *in_open = scratch_path(dir, "l-open/sub");
        mkdir_mode(good, 0755);
        mkdir_mode(sub, 0755);
        mkdir_mode(open_dir, 0777);
        mkdir_mode(in_open, 0755);
        put(file, 0644);
        _cleanup_free_ char *in_open_file = scratch_path(in_open, "s.json");
        put(in_open_file, 0644);
        /* a link on the way, absolute or relative, to a trusted directory */
        _cleanup_free_ char *abs_link = scratch_path(dir, "l-abs"), *rel_link = scratch_path(dir, "l-rel"),
                            *via_abs = scratch_path(dir, "l-abs/s.json"), *via_rel = scratch_path(dir, "l-rel/s.json");
        assert_int_equal(symlink(sub, abs_link), 0);
        assert_int_equal(symlink("l-good/../l-good/sub", rel_link), 0);
        expect(via_abs, 0, NULL);
        expect(via_rel, 0, NULL);
        assert_int_equal(ctk_trust_dir(abs_link, NULL), 0);
        /* ... not with NO_LINKS (a file of ours in a directory someone prepared) */
        expect_walk(via_abs, CTK_TRUST_NO_LINKS, ELOOP,
                    msgf("%s is not trusted: its directory %s is a symbolic link", via_abs, abs_link));
        expect_walk(abs_link, CTK_TRUST_NO_LINKS, 0, NULL); /* (the last entry is the caller's) */
        /* a link on the way into an open directory: that directory counts */
        _cleanup_free_ char *to_open = scratch_path(dir, "l-to-open"),
                            *via_open = scratch_path(dir, "l-to-open/s.json");
        assert_int_equal(symlink(in_open, to_open), 0);
        expect(via_open, EPERM,
               msgf("%s is not trusted: its ancestor %s is writable by every user (mode 0777)", via_open, open_dir));
        expect_walk(to_open, CTK_TRUST_FOLLOW, EPERM,
                    msgf("%s is not trusted: its target's directory %s is writable by every user (mode 0777)", to_open,
                         open_dir));
        /* a loop */
        _cleanup_free_ char *loop1 = scratch_path(dir, "l-loop1"), *loop2 = scratch_path(dir, "l-loop2"),
                            *via_loop = scratch_path(dir, "l-loop1/x");
        assert_int_equal(symlink(loop2, loop1), 0);
        assert_int_equal(symlink(loop1, loop2), 0);
        expect(via_loop, ELOOP, NULL);
        if (geteuid() != 0)
                return;
        /* someone else's link on the way */
        _cleanup_free_ char *theirs = scratch_path(dir, "l-theirs"), *via_theirs = scratch_path(dir, "l-theirs/s.json");
        assert_int_equal(symlink(sub, theirs), 0);
        assert_int_equal(lchown(theirs, 65534, 65534), 0);
        expect(via_theirs, EPERM,
               msgf("%s is not trusted: the symbolic link %s is owned by uid 65534, not root", via_theirs, theirs));
}

/* Missing directories are made in trusted ones only. */
static void test_walk_mkdir(void **state)
{
        (void)state;
        _cleanup_free_ char *base = scratch_path(dir, "m"), *target = scratch_path(dir, "m/x/y/file"),
                            *made = scratch_path(dir, "m/x/y");
        mkdir_mode(base, 0755);
        assert_int_equal(ctk_trust_mkdir_parent(target, 0, NULL), 0);
        struct stat st;
        assert_int_equal(stat(made, &st), 0);
        assert_true(S_ISDIR(st.st_mode));
        assert_int_equal(st.st_mode & 07777, 0755);
        _cleanup_free_ char *open_dir = scratch_path(dir, "m-open"), *below = scratch_path(dir, "m-open/x/file"),
                            *not_made = scratch_path(dir, "m-open/x");
        mkdir_mode(open_dir, 0777);
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(ctk_trust_mkdir_parent(below, 0, &err), -1);
        assert_int_equal(err->code, EPERM);
        assert_int_equal(stat(not_made, &st), -1);
}

/* An ACL that lets one more user write shows in the group bits (its mask):
 * counted as the group's write. */
static void test_walk_acl(void **state)
{
        (void)state;
        _cleanup_free_ char *acl_dir = scratch_path(dir, "acl"), *file = scratch_path(dir, "acl/s.json");
        mkdir_mode(acl_dir, 0755);
        put(file, 0644);
        /* system.posix_acl_access: version 2; user::rwx, user:65534:rwx, group::r-x, mask::rwx, other::r-x */
        const uint32_t acl[] = {2,          0x00070001, 0xffffffff, 0x00070002, 65534,     0x00050004,
                                0xffffffff, 0x00070010, 0xffffffff, 0x00050020, 0xffffffff};
        if (setxattr(acl_dir, "system.posix_acl_access", acl, sizeof(acl), 0) < 0) {
                assert_int_equal(errno, EOPNOTSUPP); /* a filesystem without ACLs: nothing to count */
                return;
        }
        expect(file, EPERM,
               msgf("%s is not trusted: its directory %s is writable by its group (mode 0775)", file, acl_dir));
}

/* In a user namespace of its own (a rootless runtime), root's files show
 * as owned by the overflow uid: trusted as root's there. */
static void test_walk_user_namespace(void **state)
{
        (void)state;
        if (geteuid() != 0)
                skip();
        int ready[2], mapped[2];
        assert_int_equal(pipe(ready), 0);
        assert_int_equal(pipe(mapped), 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) { /* a user of its own, then root of a namespace that does not map root */
                char c;
                if (setresgid(100000, 100000, 100000) < 0 || setgroups(0, NULL) < 0 ||
                    setresuid(100000, 100000, 100000) < 0 || unshare(CLONE_NEWUSER) < 0)
                        _exit(3);
                if (write(ready[1], "x", 1) != 1 || read(mapped[0], &c, 1) != 1)
                        _exit(4);
                struct stat st;
                if (stat("/etc", &st) < 0 || st.st_uid == 0)
                        _exit(5); /* (root is not mapped: not what this tests) */
                _cleanup_free_ char *data = NULL;
                _exit(ctk_file_read_trusted("/etc/passwd", CTK_FILE_MAX, &data, NULL, NULL) == 0 ? 0 : 1);
        }
        char c;
        assert_int_equal(read(ready[0], &c, 1), 1);
        char path[64];
        (void)snprintf(path, sizeof(path), "/proc/%d/uid_map", (int)pid);
        FILE *f = fopen(path, "we");
        assert_non_null(f);
        fputs("0 100000 1\n", f);
        assert_int_equal(fclose(f), 0);
        assert_int_equal(write(mapped[1], "x", 1), 1);
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
        close(ready[0]);
        close(ready[1]);
        close(mapped[0]);
        close(mapped[1]);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_predicate),           cmocka_unit_test(test_read_trusted),
            cmocka_unit_test(test_walk_ancestors),      cmocka_unit_test(test_walk_links),
            cmocka_unit_test(test_walk_mkdir),          cmocka_unit_test(test_walk_acl),
            cmocka_unit_test(test_walk_user_namespace),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
