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

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_predicate),
            cmocka_unit_test(test_read_trusted),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
