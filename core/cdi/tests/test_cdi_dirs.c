/* Resolving what the CDI spec directories offer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "core/cdi/dirs.h"
#include "core/base/base.h"
#include "core/base/tests/scratch_dir.h"

static char root[] = "/tmp/ctk-cdi-dirs-XXXXXX";

static void put(const char *rel, const char *text)
{
        _cleanup_free_ char *p = scratch_path(root, rel);
        FILE *f = fopen(p, "we");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}

static void dir(const char *rel)
{
        _cleanup_free_ char *p = scratch_path(root, rel);
        assert_int_equal(mkdir(p, 0755), 0);
}

#define DEV(n)           "{\"name\": \"" n "\", \"containerEdits\": {\"deviceNodes\": [{\"path\": \"/dev/kfd\"}]}}"
#define SPEC(kind, devs) "{\"cdiVersion\": \"0.5.0\", \"kind\": \"" kind "\", \"devices\": [" devs "]}"

static int setup(void **state)
{
        (void)state;
        strcpy(root, "/tmp/ctk-cdi-dirs-XXXXXX");
        if (scratch_dir_make(root) == NULL)
                return -1;
        dir("etc");
        dir("run");
        dir("etc/sub");
        put("etc/a.json", SPEC("amd.com/gpu", DEV("0") "," DEV("1") "," DEV("all")));
        put("etc/b.json", SPEC("amd.com/gpu", DEV("1") "," DEV("10") "," DEV("2")));
        put("etc/c.yaml", "cdiVersion: 0.5.0\n");
        put("etc/bad.json", "{\"cdiVersion\": \"0.5.0\", \"kind\": \"amd.com/gpu\", \"devices\": [], \"x\": 1}");
        put("etc/notes.txt", "not a spec");
        put("etc/sub/hidden.json", SPEC("amd.com/gpu", DEV("7")));
        put("run/a.json", SPEC("amd.com/gpu", DEV("0") "," DEV("1")));
        put("run/other.json", SPEC("example.com/net", DEV("eth0")));
        return 0;
}

static int teardown(void **state)
{
        (void)state;
        return scratch_dir_remove(root);
}

static void test_priorities_and_conflicts(void **state)
{
        (void)state;
        _cleanup_free_ char *etc = scratch_path(root, "etc"), *run = scratch_path(root, "run"),
                            *missing = scratch_path(root, "missing");
        const char *dirs[] = {etc, run, missing};
        struct ctk_cdi_catalog c;
        assert_int_equal(ctk_cdi_catalog_scan(dirs, 3, &c, NULL), 0);

        /* usable devices, in name order (numbers by value) */
        assert_int_equal(c.n, 5);
        assert_string_equal(c.offers[0].name, "amd.com/gpu=0");
        assert_string_equal(c.offers[1].name, "amd.com/gpu=2");
        assert_string_equal(c.offers[2].name, "amd.com/gpu=10");
        assert_string_equal(c.offers[3].name, "amd.com/gpu=all");
        assert_string_equal(c.offers[4].name, "example.com/net=eth0");
        /* the later directory wins */
        _cleanup_free_ char *run_a = scratch_path(root, "run/a.json"), *etc_a = scratch_path(root, "etc/a.json"),
                            *etc_b = scratch_path(root, "etc/b.json");
        assert_string_equal(c.offers[0].spec, run_a);
        assert_int_equal(c.offers[0].priority, 1);
        assert_int_equal(c.offers[0].overrides.n, 1);
        assert_string_equal(c.offers[0].overrides.v[0], etc_a);
        assert_string_equal(c.offers[3].spec, etc_a);
        assert_int_equal(c.offers[3].overrides.n, 0);

        /* =1 is defined twice in etc: unusable, even though run defines it too */
        assert_int_equal(c.nconflicts, 1);
        assert_string_equal(c.conflicts[0].name, "amd.com/gpu=1");
        assert_int_equal(c.conflicts[0].specs.n, 2);
        assert_string_equal(c.conflicts[0].specs.v[0], etc_a);
        assert_string_equal(c.conflicts[0].specs.v[1], etc_b);

        /* skipped files are reported; subdirectories and other names ignored */
        assert_int_equal(c.problems.n, 2);
        assert_non_null(strstr(c.problems.v[0], "bad.json:1:"));
        assert_non_null(strstr(c.problems.v[0], "unknown key \"x\""));
        assert_non_null(strstr(c.problems.v[1], "c.yaml: YAML specs are not read by amd-ctk"));
        assert_int_equal(c.specs.n, 4);
        ctk_cdi_catalog_clear(&c);
}

static void test_nothing_there(void **state)
{
        (void)state;
        const char *dirs[] = {"/nonexistent/cdi"};
        struct ctk_cdi_catalog c;
        assert_int_equal(ctk_cdi_catalog_scan(dirs, 1, &c, NULL), 0);
        assert_int_equal(c.n, 0);
        assert_int_equal(c.nconflicts, 0);
        assert_int_equal(c.problems.n, 0);
        ctk_cdi_catalog_clear(&c);
}

static void test_name_order(void **state)
{
        (void)state;
        assert_true(ctk_cdi_name_cmp("amd.com/gpu=2", "amd.com/gpu=10") < 0);
        assert_true(ctk_cdi_name_cmp("amd.com/gpu=10", "amd.com/gpu=all") < 0);
        assert_true(ctk_cdi_name_cmp("amd.com/gpu=all", "amd.com/gpu=0xAB") > 0);
        assert_true(ctk_cdi_name_cmp("amd.com/gpu=9", "amd.com/gpua=0") < 0);
        assert_int_equal(ctk_cdi_name_cmp("amd.com/gpu=3", "amd.com/gpu=3"), 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_setup_teardown(test_priorities_and_conflicts, setup, teardown),
            cmocka_unit_test(test_nothing_there),
            cmocka_unit_test(test_name_order),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
