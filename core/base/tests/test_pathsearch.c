/* ctk_path_search: PATH's directories in order, relative entries skipped,
 * the caller's test deciding, ENOENT when nothing fits. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/base/base.h"
#include "scratch_dir.h"

static char *make(const char *dir, const char *rel, mode_t mode)
{
        scratch_write(dir, rel, "");
        char *p = scratch_path(dir, rel);
        assert_int_equal(chmod(p, mode), 0);
        return p;
}

static enum ctk_path_verdict not_b(const char *path, void *ctx)
{
        (*(int *)ctx)++;
        return strstr(path, "/b/") == NULL && ctk_path_executable(path) ? CTK_PATH_TAKE : CTK_PATH_SKIP;
}

static void test_search(void **state)
{
        (void)state;
        char templ[] = "/tmp/ctk-pathsearch.XXXXXX";
        const char *dir = scratch_dir_make(templ);
        assert_non_null(dir);
        const char *subs[] = {"a", "b", "c", "d"};
        for (size_t i = 0; i < 4; i++) {
                _cleanup_free_ char *p = scratch_path(dir, subs[i]);
                assert_int_equal(mkdir(p, 0755), 0);
        }
        _cleanup_free_ char *a = make(dir, "a/prog", 0644); /* not executable */
        _cleanup_free_ char *b = make(dir, "b/prog", 0755);
        _cleanup_free_ char *c = make(dir, "c/prog", 0755);
        _cleanup_free_ char *d = scratch_path(dir, "d/prog");
        assert_int_equal(mkdir(d, 0755), 0); /* a directory */
        _cleanup_free_ char *da = scratch_path(dir, "a"), *db = scratch_path(dir, "b"), *dc = scratch_path(dir, "c"),
                            *dd = scratch_path(dir, "d"), *dirs = NULL;
        assert_true(asprintf(&dirs, "::.:%s:%s:rel/dir:%s:%s", dd, da, db, dc) > 0);
        _cleanup_free_ char *found = ctk_path_search("prog", dirs, NULL, NULL);
        assert_string_equal(found, b);
        int calls = 0;
        _cleanup_free_ char *other = ctk_path_search("prog", dirs, not_b, &calls);
        assert_string_equal(other, c);
        assert_int_equal(calls, 4); /* d, a, b, c: never the relative entries */
        errno = 0;
        assert_null(ctk_path_search("none", dirs, NULL, NULL));
        assert_int_equal(errno, ENOENT);
        assert_null(ctk_path_search("prog", "", NULL, NULL));
        assert_null(ctk_path_search("prog", NULL, NULL, NULL));
        assert_int_equal(errno, ENOENT);
        assert_int_equal(scratch_dir_remove(dir), 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {cmocka_unit_test(test_search)};
        return cmocka_run_group_tests(tests, NULL, NULL);
}
