/* The GPU tracker glue of the runtime: where the release hook's amd-ctk is,
 * what the hook looks like in the spec, the runtimes' default roots. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/base.h"
#include "core/json/json.h"
#include "core/base/tests/scratch_dir.h"
#include "runtime/tracker_glue.h"

struct fx {
        char dir[64];
        char *ctk;  /* dir/bin/amd-ctk (executable) */
        char *self; /* dir/bin/amd-container-runtime */
        char *link; /* dir/link -> bin/amd-container-runtime */
};

static void touch(const char *path, mode_t mode)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
        assert_true(fd >= 0);
        close(fd);
        chmod(path, mode);
}

static int setup(void **state)
{
        struct fx *f = calloc(1, sizeof(*f));
        if (f == NULL)
                return -1;
        *state = f; /* (a setup that fails ends the test program) */
        strcpy(f->dir, "/tmp/ctk-glue-test.XXXXXX");
        if (scratch_dir_make(f->dir) == NULL)
                return -1;
        _cleanup_free_ char *bin = scratch_path(f->dir, "bin");
        if (mkdir(bin, 0755) < 0)
                return -1;
        f->ctk = scratch_path(bin, "amd-ctk");
        f->self = scratch_path(bin, "amd-container-runtime");
        f->link = scratch_path(f->dir, "link");
        touch(f->ctk, 0755);
        touch(f->self, 0755);
        if (symlink("bin/amd-container-runtime", f->link) < 0)
                return -1;
        unsetenv("AMD_CTK_CONFIG");
        return 0;
}

static int teardown(void **state)
{
        struct fx *f = *state;
        if (scratch_dir_remove(f->dir) != 0)
                fprintf(stderr, "cannot remove %s\n", f->dir);
        free(f->ctk);
        free(f->self);
        free(f->link);
        free(f);
        return 0;
}

static json_t *hook_of(json_t *spec, size_t i)
{
        return json_array_get(json_object_get(json_object_get(spec, "hooks"), "poststop"), i);
}

static void test_release_hook(void **state)
{
        struct fx *f = *state;
        struct ctk_config cfg = {.ctk_path = f->ctk};
        struct rt_args a = {.id = "abc123", .command_name = "create"};
        _cleanup_json_ json_t *spec = json_pack("{s:{s:[{s:s}]}}", "hooks", "poststop", "path", "/bin/other");
        assert_int_equal(rt_tracker_add_release_hook(spec, &cfg, &a, NULL), 0);
        _cleanup_free_ char *args = json_dumps(json_object_get(hook_of(spec, 1), "args"), JSON_COMPACT);
        assert_string_equal(json_string_value(json_object_get(hook_of(spec, 0), "path")), "/bin/other");
        assert_string_equal(json_string_value(json_object_get(hook_of(spec, 1), "path")), f->ctk);
        assert_string_equal(args, "[\"amd-ctk\",\"gpu-tracker\",\"release\",\"abc123\"]");

        /* The config file the runtime read is passed on, absolute. */
        _cleanup_free_ char *cfg_file = scratch_path(f->dir, "config.json");
        touch(cfg_file, 0644);
        char cwd[4096];
        assert_non_null(getcwd(cwd, sizeof(cwd)));
        assert_int_equal(chdir(f->dir), 0);
        a.amd_config = "config.json";
        _cleanup_json_ json_t *empty = json_object();
        assert_int_equal(rt_tracker_add_release_hook(empty, &cfg, &a, NULL), 0);
        assert_int_equal(chdir(cwd), 0);
        _cleanup_free_ char *args2 = json_dumps(json_object_get(hook_of(empty, 0), "args"), JSON_COMPACT);
        _cleanup_free_ char *want = NULL;
        _cleanup_free_ char *real = realpath(cfg_file, NULL);
        assert_true(asprintf(&want, "[\"amd-ctk\",\"--config\",\"%s\",\"gpu-tracker\",\"release\",\"abc123\"]", real) >
                    0);
        assert_string_equal(args2, want);

        /* No amd-ctk: no hook (delete still releases), not an error. */
        cfg.ctk_path = (char *)"/nonexistent/amd-ctk";
        _cleanup_json_ json_t *none = json_object();
        assert_int_equal(rt_tracker_add_release_hook(none, &cfg, &a, NULL), 0);
        assert_null(json_object_get(none, "hooks"));

        /* A malformed hooks member is reported. */
        cfg.ctk_path = f->ctk;
        _cleanup_json_ json_t *bad = json_pack("{s:[]}", "hooks");
        struct ctk_error *err = NULL;
        assert_int_equal(rt_tracker_add_release_hook(bad, &cfg, &a, &err), -1);
        assert_string_equal(err->msg, "hooks is not an object");
        ctk_error_free(err);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_setup_teardown(test_release_hook, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
