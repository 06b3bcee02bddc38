/* Finding runc/crun on PATH, never this program. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/base/base.h"
#include "core/base/tests/scratch_dir.h"
#include "runtime/lowlevel.h"

static char dir[] = "/tmp/rt-lowlevel-XXXXXX";

static void make_dir(const char *sub)
{
        char *d = scratch_path(dir, sub);
        mkdir(d, 0755);
        free(d);
}

/* Creates DIR/sub/name with the given mode. */
static void make_exe(const char *sub, const char *name, mode_t mode)
{
        make_dir(sub);
        _cleanup_free_ char *d = scratch_path(dir, sub);
        char *p = scratch_path(d, name);
        int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, "#!/bin/sh\n", 10), 10);
        close(fd);
        assert_int_equal(chmod(p, mode), 0);
        free(p);
}

static int setup(void **state)
{
        (void)state;
        if (scratch_dir_make(dir) == NULL)
                return -1;
        make_exe("a", "runc", 0755);
        make_exe("b", "runc", 0755);
        make_exe("b", "crun", 0755);
        make_exe("c", "crun", 0755);
        make_exe("b", "rt-test-runtime", 0755);
        make_exe("d", "runc", 0644); /* not executable */
        make_exe("self", "amd-container-runtime", 0755);
        _cleanup_free_ char *self = scratch_path(dir, "self/amd-container-runtime");
        _cleanup_free_ char *alias = scratch_path(dir, "e/runc");
        make_dir("e");
        return link(self, alias); /* the shim installed as "runc" */
}

static int teardown(void **state)
{
        (void)state;
        return scratch_dir_remove(dir);
}

static char *find_ok(const char *configured, const char *path_env)
{
        _cleanup_free_ char *self = scratch_path(dir, "self/amd-container-runtime");
        char *out = NULL;
        _cleanup_error_ struct ctk_error *err = NULL;
        if (rt_lowlevel_find(configured, path_env, self, &out, &err) < 0)
                fail_msg("unexpected error: %s", err->msg);
        return out;
}

static char *find_err(const char *configured, const char *path_env)
{
        _cleanup_free_ char *self = scratch_path(dir, "self/amd-container-runtime");
        char *out = NULL;
        struct ctk_error *err = NULL;
        assert_int_equal(rt_lowlevel_find(configured, path_env, self, &out, &err), -1);
        assert_null(out);
        char *msg = strdup(err->msg);
        ctk_error_free(err);
        return msg;
}

/* "DIR/a:DIR/b" (b may be NULL). */
static char *pathenv(const char *a, const char *b)
{
        char *p = NULL;
        int r = b != NULL ? asprintf(&p, "%s/%s:%s/%s", dir, a, dir, b) : asprintf(&p, "%s/%s", dir, a);
        if (r < 0)
                fail();
        return p;
}

static void assert_found(char *got, const char *rel)
{
        _cleanup_free_ char *want = scratch_path(dir, rel);
        assert_non_null(got);
        assert_string_equal(got, want);
        free(got);
}

static void test_path_order(void **state)
{
        (void)state;
        _cleanup_free_ char *p1 = pathenv("a", "b");
        assert_found(find_ok(NULL, p1), "a/runc");
        _cleanup_free_ char *p2 = pathenv("b", "a");
        assert_found(find_ok(NULL, p2), "b/runc");
        /* runc anywhere on PATH beats crun earlier on PATH. */
        _cleanup_free_ char *p3 = pathenv("c", "a");
        assert_found(find_ok(NULL, p3), "a/runc");
}

static void test_skips_self_and_non_executables(void **state)
{
        (void)state;
        _cleanup_free_ char *p1 = pathenv("e", "b"); /* e/runc is this program */
        assert_found(find_ok(NULL, p1), "b/runc");
        _cleanup_free_ char *p2 = pathenv("d", "b"); /* d/runc is not executable */
        assert_found(find_ok(NULL, p2), "b/runc");
}

static void test_crun_fallback(void **state)
{
        (void)state;
        /* With only crun in our directories the system runc (if any) on the
         * default path would come first, so name crun explicitly here. */
        _cleanup_free_ char *p = pathenv("c", NULL);
        assert_found(find_ok("crun", p), "c/crun");
}

static void test_configured(void **state)
{
        (void)state;
        _cleanup_free_ char *abs = scratch_path(dir, "c/crun");
        assert_found(find_ok(abs, NULL), "c/crun");
        _cleanup_free_ char *p = pathenv("e", "b");
        assert_found(find_ok("runc", p), "b/runc");

        _cleanup_free_ char *self = scratch_path(dir, "e/runc");
        _cleanup_free_ char *m1 = find_err(self, NULL);
        assert_non_null(strstr(m1, "is amd-container-runtime itself"));
        _cleanup_free_ char *nx = scratch_path(dir, "nope/runc");
        _cleanup_free_ char *m2 = find_err(nx, NULL);
        assert_non_null(strstr(m2, "is not an executable file"));
        _cleanup_free_ char *notx = scratch_path(dir, "d/runc");
        _cleanup_free_ char *m3 = find_err(notx, NULL);
        assert_non_null(strstr(m3, "is not an executable file"));
        _cleanup_free_ char *m4 = find_err("no-such-runtime-xyz", p);
        assert_string_equal(m4, "runtime-path no-such-runtime-xyz: not found on PATH nor in "
                                "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
}

static void test_relative_path_entries_ignored(void **state)
{
        (void)state;
        char cwd[4096];
        assert_non_null(getcwd(cwd, sizeof(cwd)));
        _cleanup_free_ char *b = scratch_path(dir, "b");
        assert_int_equal(chdir(b), 0);
        /* b/rt-test-runtime exists but "" (= "."), "." and "rel" are not searched. */
        _cleanup_free_ char *msg = find_err("rt-test-runtime", ":.:rel");
        assert_int_equal(chdir(cwd), 0);
        assert_string_equal(msg, "runtime-path rt-test-runtime: not found on PATH nor in "
                                 "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
        _cleanup_free_ char *p = pathenv("b", NULL);
        assert_found(find_ok("rt-test-runtime", p), "b/rt-test-runtime");
}

static void test_default_root(void **state)
{
        (void)state;
        assert_string_equal(rt_lowlevel_root(NULL, "/usr/sbin/runc"), "/run/runc");
        assert_string_equal(rt_lowlevel_root("/run/docker/runtime-runc/moby", "/usr/sbin/runc"),
                            "/run/docker/runtime-runc/moby");
        assert_string_equal(rt_lowlevel_root(NULL, "runc"), "/run/runc");
        assert_string_equal(rt_lowlevel_root(NULL, "/usr/bin/crun"), "/run/crun");
        assert_string_equal(rt_lowlevel_root(NULL, "crun"), "/run/crun");
}

/* amd-ctk beside the program (a link to it is resolved), or the configured
 * one; only an absolute path to an executable file. */
static void test_ctk_find(void **state)
{
        (void)state;
        make_exe("ctk", "amd-ctk", 0755);
        make_exe("ctk", "amd-container-runtime", 0755);
        make_exe("ctk", "other", 0755);
        _cleanup_free_ char *ctk = scratch_path(dir, "ctk/amd-ctk");
        _cleanup_free_ char *other = scratch_path(dir, "ctk/other");
        _cleanup_free_ char *link = scratch_path(dir, "ctk-link");
        assert_int_equal(symlink("ctk/amd-container-runtime", link), 0);
        _cleanup_free_ char *want = realpath(ctk, NULL);
        _cleanup_free_ char *p = rt_ctk_find(NULL, link);
        assert_non_null(p);
        assert_string_equal(p, want);
        _cleanup_free_ char *q = rt_ctk_find(other, link);
        assert_string_equal(q, other);
        assert_null(rt_ctk_find("/nonexistent/amd-ctk", link));
        assert_null(rt_ctk_find("amd-ctk", link)); /* not absolute */
        assert_int_equal(chmod(other, 0644), 0);
        assert_null(rt_ctk_find(other, link));
        assert_null(rt_ctk_find(NULL, "/nonexistent/amd-container-runtime"));
        assert_int_equal(unlink(ctk), 0);
        assert_null(rt_ctk_find(NULL, link)); /* nothing beside it */
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_path_order),
            cmocka_unit_test(test_skips_self_and_non_executables),
            cmocka_unit_test(test_crun_fallback),
            cmocka_unit_test(test_configured),
            cmocka_unit_test(test_relative_path_entries_ignored),
            cmocka_unit_test(test_default_root),
            cmocka_unit_test(test_ctk_find),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
