/* The low-level runtime as a child: its argument vector, its exit status
 * as ours (128 + N for signal N), and a runtime that cannot be executed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/base.h"
#include "runtime/lowlevel.h"
#include "runtime/lowlevel_child.h"

static void test_argv(void **state)
{
        (void)state;
        char *args[] = {"--root", "/r", "create", "id"};
        _cleanup_free_ char **v = rt_lowlevel_argv("/usr/sbin/runc", args, 4);
        assert_non_null(v);
        assert_string_equal(v[0], "runc");
        assert_string_equal(v[1], "--root");
        assert_string_equal(v[4], "id");
        assert_null(v[5]);
        _cleanup_free_ char **w = rt_lowlevel_argv("crun", args, 0);
        assert_string_equal(w[0], "crun");
        assert_null(w[1]);
}

static int run_sh_quiet(const char *script, bool quiet)
{
        char *args[] = {"-c", (char *)script};
        pid_t child;
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(rt_lowlevel_spawn("/bin/sh", args, 2, quiet, &child, &err), 0);
        return rt_lowlevel_wait(child);
}

static int run_sh(const char *script)
{
        return run_sh_quiet(script, false);
}

static void test_status(void **state)
{
        (void)state;
        assert_int_equal(run_sh("exit 0"), 0);
        assert_int_equal(run_sh("exit 3"), 3);
        assert_int_equal(run_sh("kill -TERM $$"), 128 + 15);
        assert_int_equal(run_sh("kill -KILL $$"), 128 + 9);
        /* argv[0] is the base name, as for exec */
        assert_int_equal(run_sh("[ \"$0\" = sh ]"), 0);
}

static void test_quiet(void **state)
{
        (void)state;
        static const char dev_null[] = "[ \"$(readlink /proc/$$/fd/1)\" = /dev/null ] && "
                                       "[ \"$(readlink /proc/$$/fd/2)\" = /dev/null ]";
        assert_int_equal(run_sh_quiet(dev_null, true), 0);
        assert_int_equal(run_sh_quiet("echo dropped; echo dropped >&2; exit 4", true), 4);
}

static void test_cannot_execute(void **state)
{
        (void)state;
        char *args[] = {"state", "id"};
        pid_t child = 0;
        struct ctk_error *err = NULL;
        assert_int_equal(rt_lowlevel_spawn("/nonexistent/runc", args, 2, false, &child, &err), -1);
        assert_int_equal(err->code, ENOENT);
        assert_non_null(strstr(err->msg, "cannot execute /nonexistent/runc"));
        ctk_error_free(err);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_argv),
            cmocka_unit_test(test_status),
            cmocka_unit_test(test_quiet),
            cmocka_unit_test(test_cannot_execute),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
