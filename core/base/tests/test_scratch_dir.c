/* The unit tests' scratch directories: removal takes everything below,
 * leaves what links point to alone, and accepts a missing directory. */
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scratch_dir.h"

static void touch(const char *path)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        close(fd);
}

static void test_remove_all_below(void **state)
{
        (void)state;
        char outside[] = "/tmp/ctk-scratch-outside-XXXXXX", dir[] = "/tmp/ctk-scratch-XXXXXX";
        assert_non_null(scratch_dir_make(outside));
        assert_non_null(scratch_dir_make(dir));
        assert_memory_equal(dir, "/tmp/ctk-scratch-", 17);
        assert_null(strstr(dir, "XXXXXX"));

        char *kept = scratch_path(outside, "kept"), *a = scratch_path(dir, "a"), *ab = scratch_path(dir, "a/b");
        char *file = scratch_path(dir, "a/b/file"), *link = scratch_path(dir, "a/link");
        char *dlink = scratch_path(dir, "dlink");
        assert_string_equal(file + strlen(dir), "/a/b/file");
        touch(kept);
        assert_int_equal(mkdir(a, 0755), 0);
        assert_int_equal(mkdir(ab, 0755), 0);
        touch(file);
        assert_int_equal(symlink(kept, link), 0);
        assert_int_equal(symlink(outside, dlink), 0);

        assert_int_equal(scratch_dir_remove(dir), 0);
        struct stat st;
        assert_int_equal(lstat(dir, &st), -1);
        assert_int_equal(lstat(kept, &st), 0);        /* links were not followed */
        assert_int_equal(scratch_dir_remove(dir), 0); /* gone already */

        assert_int_equal(scratch_dir_remove(outside), 0);
        assert_int_equal(lstat(outside, &st), -1);
        free(kept);
        free(a);
        free(ab);
        free(file);
        free(link);
        free(dlink);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_remove_all_below),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
