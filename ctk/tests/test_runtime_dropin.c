/* runtime configure --runtime=podman|crio: the runtime's path in the
 * drop-in is absolute (Podman takes [engine.runtimes] entries as file
 * paths: `default OCI runtime "amd" not found` for a bare name). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli_stubs.h"
#include "core/base/tests/scratch_dir.h"
#include "core/engines/dropins.h"
#include "ctk/runtime_configure.h"

static char *dir;

static int setup(void **state)
{
        (void)state;
        static char templ[] = "/tmp/ctk-rtpath.XXXXXX";
        dir = scratch_dir_make(templ);
        return dir != NULL ? 0 : -1;
}

static int teardown(void **state)
{
        (void)state;
        scratch_dir_remove(dir);
        return 0;
}

static void make_file(const char *rel, mode_t mode)
{
        scratch_write(dir, rel, "#!/bin/sh\n");
        _cleanup_free_ char *p = scratch_path(dir, rel);
        assert_int_equal(chmod(p, mode), 0);
}

static char *resolve(const char *runtime, const char *path)
{
        _cleanup_error_ struct ctk_error *err = NULL;
        char *out = NULL;
        if (ctk_runtime_absolute_path(runtime, path, &out, &err) < 0)
                fail_msg("%s", err->msg);
        return out;
}

static void test_name_found_on_path(void **state)
{
        (void)state;
        _cleanup_free_ char *a = scratch_path(dir, "a"), *b = scratch_path(dir, "b");
        assert_int_equal(mkdir(a, 0755), 0);
        assert_int_equal(mkdir(b, 0755), 0);
        make_file("a/amd-container-runtime", 0644); /* not executable: skipped */
        make_file("b/amd-container-runtime", 0755);
        _cleanup_free_ char *path = NULL;
        assert_true(asprintf(&path, "relative:%s:%s", a, b) > 0);
        assert_int_equal(setenv("PATH", path, 1), 0);
        _cleanup_free_ char *got = resolve("podman", "amd-container-runtime");
        _cleanup_free_ char *want = scratch_path(dir, "b/amd-container-runtime");
        assert_string_equal(got, want);
        /* the drop-in Podman reads names that file */
        struct ctk_dropin d = {.engine = CTK_DROPIN_PODMAN, .name = "amd", .runtime_path = got};
        _cleanup_free_ char *text = NULL;
        assert_int_equal(ctk_dropin_text(&d, &text, NULL), 0);
        _cleanup_free_ char *entry = NULL;
        assert_true(asprintf(&entry, "\n[engine.runtimes]\n\"amd\" = [\"%s\"]\n", want) > 0);
        assert_non_null(strstr(text, entry));
}

static void test_absolute_and_relative_paths(void **state)
{
        (void)state;
        _cleanup_free_ char *abs = resolve("crio", "/opt/x/amd-container-runtime");
        assert_string_equal(abs, "/opt/x/amd-container-runtime"); /* as given */
        make_file("rel-runtime", 0755);
        _cleanup_free_ char *cwd = getcwd(NULL, 0);
        assert_int_equal(chdir(dir), 0);
        _cleanup_free_ char *rel = resolve("podman", "./rel-runtime");
        assert_int_equal(chdir(cwd), 0);
        _cleanup_free_ char *real = realpath(dir, NULL), *want = NULL;
        assert_non_null(real);
        assert_true(asprintf(&want, "%s/rel-runtime", real) > 0);
        assert_string_equal(rel, want);
}

static void test_not_found_names_runtime_path(void **state)
{
        (void)state;
        assert_int_equal(setenv("PATH", dir, 1), 0);
        _cleanup_error_ struct ctk_error *err = NULL;
        char *out = (char *)"untouched";
        assert_int_equal(ctk_runtime_absolute_path("podman", "no-such-runtime-here", &out, &err), -1);
        assert_null(out);
        assert_non_null(strstr(err->msg, "no-such-runtime-here is not on PATH ("));
        assert_non_null(strstr(err->msg, "Podman needs the runtime's absolute path; give it with --runtime-path"));
        assert_null(strchr(err->msg, '\n'));
        ctk_error_free(err);
        err = NULL;
        assert_int_equal(ctk_runtime_absolute_path("crio", "./missing/runtime", &out, &err), -1);
        assert_non_null(strstr(err->msg, "--runtime-path ./missing/runtime: cannot make it absolute (CRI-O needs"));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_name_found_on_path),
            cmocka_unit_test(test_absolute_and_relative_paths),
            cmocka_unit_test(test_not_found_names_runtime_path),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
