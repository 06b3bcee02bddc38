/* Atomic file replacement. */
#include <dirent.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/atomic_file.h"
#include "core/cleanup.h"

static char dir[] = "/tmp/ctk-atomic-XXXXXX";

static int setup(void **state)
{
        (void)state;
        strcpy(dir, "/tmp/ctk-atomic-XXXXXX");
        return mkdtemp(dir) != NULL ? 0 : -1;
}

static int teardown(void **state)
{
        (void)state;
        char *cmd = NULL;
        if (asprintf(&cmd, "rm -rf '%s'", dir) < 0)
                return -1;
        int rc = system(cmd);
        free(cmd);
        return rc == 0 ? 0 : -1;
}

static char *path_in(const char *name)
{
        char *p = NULL;
        assert_true(asprintf(&p, "%s/%s", dir, name) > 0);
        return p;
}

static char *slurp(const char *path)
{
        FILE *f = fopen(path, "re");
        assert_non_null(f);
        char *buf = calloc(1, 4096);
        size_t n = fread(buf, 1, 4095, f);
        buf[n] = '\0';
        fclose(f);
        return buf;
}

static size_t entries(const char *d)
{
        DIR *dp = opendir(d);
        assert_non_null(dp);
        size_t n = 0;
        for (struct dirent *e; (e = readdir(dp)) != NULL;)
                n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
        closedir(dp);
        return n;
}

static void test_creates_parents_and_mode(void **state)
{
        (void)state;
        _cleanup_free_ char *p = path_in("a/b/c/spec.json");
        mode_t old = umask(077);
        assert_int_equal(ctk_atomic_write_file(p, "hello\n", 6, 0644, NULL), 0);
        umask(old);
        _cleanup_free_ char *text = slurp(p);
        assert_string_equal(text, "hello\n");
        struct stat st;
        assert_int_equal(stat(p, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0644); /* not subject to the umask */
        _cleanup_free_ char *c = path_in("a/b/c");
        assert_int_equal(entries(c), 1); /* no temporary file left behind */
}

static void test_replaces(void **state)
{
        (void)state;
        _cleanup_free_ char *p = path_in("f.json");
        assert_int_equal(ctk_atomic_write_file(p, "old", 3, 0600, NULL), 0);
        assert_int_equal(ctk_atomic_write_file(p, "new", 3, 0644, NULL), 0);
        _cleanup_free_ char *text = slurp(p);
        assert_string_equal(text, "new");
        assert_int_equal(entries(dir), 1);
}

static void test_failure_leaves_no_trace(void **state)
{
        (void)state;
        /* the target is a directory: rename fails, nothing else changes */
        _cleanup_free_ char *d = path_in("isdir");
        assert_int_equal(mkdir(d, 0755), 0);
        struct ctk_error *err = NULL;
        assert_int_equal(ctk_atomic_write_file(d, "x", 1, 0644, &err), -1);
        assert_non_null(strstr(err->msg, "cannot write"));
        ctk_error_free(err);
        assert_int_equal(entries(dir), 1);

        /* a parent is a regular file */
        _cleanup_free_ char *f = path_in("file");
        assert_int_equal(ctk_atomic_write_file(f, "x", 1, 0644, NULL), 0);
        _cleanup_free_ char *below = path_in("file/sub/spec.json");
        err = NULL;
        assert_int_equal(ctk_atomic_write_file(below, "x", 1, 0644, &err), -1);
        assert_non_null(strstr(err->msg, "a file is in the way"));
        ctk_error_free(err);
        _cleanup_free_ char *text = slurp(f);
        assert_string_equal(text, "x");
}

static void test_relative_path(void **state)
{
        (void)state;
        char cwd[4096];
        assert_non_null(getcwd(cwd, sizeof(cwd)));
        assert_int_equal(chdir(dir), 0);
        assert_int_equal(ctk_atomic_write_file("rel.json", "r", 1, 0644, NULL), 0);
        assert_int_equal(chdir(cwd), 0);
        _cleanup_free_ char *p = path_in("rel.json");
        _cleanup_free_ char *text = slurp(p);
        assert_string_equal(text, "r");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_setup_teardown(test_creates_parents_and_mode, setup, teardown),
            cmocka_unit_test_setup_teardown(test_replaces, setup, teardown),
            cmocka_unit_test_setup_teardown(test_failure_leaves_no_trace, setup, teardown),
            cmocka_unit_test_setup_teardown(test_relative_path, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
