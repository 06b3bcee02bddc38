/* The CDI cache: what the spec directories offer, resolved as CDI runtimes
 * do, and why a name resolves to nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "core/base/base.h"
#include "core/base/tests/scratch_dir.h"
#include "core/cdi/cdi.h"

static char root[] = "/tmp/ctk-cdi-cache-XXXXXX";

static void put(const char *rel, const char *text)
{
        scratch_write(root, rel, text);
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
        strcpy(root, "/tmp/ctk-cdi-cache-XXXXXX");
        if (scratch_dir_make(root) == NULL)
                return -1;
        dir("etc");
        dir("run");
        dir("etc/sub");
        put("etc/a.json", SPEC("amd.com/gpu", DEV("0") "," DEV("1") "," DEV("all")));
        put("etc/b.json", SPEC("amd.com/gpu", DEV("1") "," DEV("10") "," DEV("2")));
        /* YAML is read too (a NIC vendor's spec) */
        put("etc/c.yaml", "---\ncdiVersion: 0.5.0\nkind: example.com/nic\ndevices:\n- name: eth0\n"
                          "  containerEdits:\n    env: [NIC=eth0]\n");
        /* .yml is not a CDI spec name */
        put("etc/d.yml", "cdiVersion: 0.5.0\nkind: example.com/nic\ndevices: [{name: eth9, containerEdits: "
                         "{env: [A=1]}}]\n");
        put("etc/bad.json",
            "{\"cdiVersion\": \"0.5.0\", \"kind\": \"amd.com/gpu\", \"devices\": [" DEV("7") "], "
                                                                                             "\"x\": 1}");
        put("etc/notes.txt", "not a spec");
        put("etc/sub/hidden.json", SPEC("amd.com/gpu", DEV("8")));
        put("run/a.json", SPEC("amd.com/gpu", DEV("0") "," DEV("1")));
        put("run/other.json", SPEC("example.com/net", DEV("eth0")));
        put("run/broken.yaml", "kind: [unclosed\n");
        return 0;
}

static int teardown(void **state)
{
        (void)state;
        return scratch_dir_remove(root);
}

static void load(struct ctk_cdi_cache *c)
{
        _cleanup_free_ char *etc = scratch_path(root, "etc"), *run = scratch_path(root, "run"),
                            *missing = scratch_path(root, "missing");
        const char *dirs[] = {etc, run, missing};
        assert_int_equal(ctk_cdi_cache_load(dirs, 3, c, NULL), 0);
}

static void test_priorities_and_conflicts(void **state)
{
        (void)state;
        _cleanup_cdi_cache_ struct ctk_cdi_cache c;
        load(&c);

        /* usable devices, in name order (numbers by value) */
        assert_int_equal(c.n, 6);
        const char *want[] = {"amd.com/gpu=0",   "amd.com/gpu=2",        "amd.com/gpu=10",
                              "amd.com/gpu=all", "example.com/net=eth0", "example.com/nic=eth0"};
        for (size_t i = 0; i < 4; i++)
                assert_string_equal(c.devices[i].name, want[i]);
        assert_string_equal(c.devices[4].name, want[4]);
        assert_string_equal(c.devices[5].name, want[5]);
        /* the later directory wins */
        _cleanup_free_ char *run_a = scratch_path(root, "run/a.json"), *etc_a = scratch_path(root, "etc/a.json"),
                            *etc_b = scratch_path(root, "etc/b.json"), *etc_c = scratch_path(root, "etc/c.yaml");
        const struct ctk_cdi_entry *e = ctk_cdi_cache_find(&c, "amd.com/gpu=0");
        assert_non_null(e);
        assert_string_equal(c.specs[e->spec].path, run_a);
        assert_int_equal(c.specs[e->spec].priority, 1);
        assert_int_equal(e->overrides.n, 1);
        assert_string_equal(e->overrides.v[0], etc_a);
        e = ctk_cdi_cache_find(&c, "amd.com/gpu=all");
        assert_string_equal(c.specs[e->spec].path, etc_a);
        assert_int_equal(e->overrides.n, 0);
        /* the device object is the spec's */
        assert_string_equal(json_string_value(json_object_get(e->device, "name")), "all");
        e = ctk_cdi_cache_find(&c, "example.com/nic=eth0");
        assert_non_null(e);
        assert_string_equal(c.specs[e->spec].path, etc_c);
        assert_null(ctk_cdi_cache_find(&c, "example.com/nic=eth9"));

        /* =1 is defined twice in etc: unusable, even though run defines it too */
        assert_null(ctk_cdi_cache_find(&c, "amd.com/gpu=1"));
        assert_int_equal(c.nconflicts, 1);
        assert_string_equal(c.conflicts[0].name, "amd.com/gpu=1");
        assert_int_equal(c.conflicts[0].specs.n, 2);
        assert_string_equal(c.conflicts[0].specs.v[0], etc_a);
        assert_string_equal(c.conflicts[0].specs.v[1], etc_b);

        /* skipped files are kept with their error; subdirectories and other names ignored */
        assert_int_equal(c.nproblems, 2);
        assert_non_null(strstr(c.problems[0].msg, "bad.json:1:"));
        assert_non_null(strstr(c.problems[0].msg, "unknown key \"x\""));
        assert_string_equal(c.problems[0].kind, "amd.com/gpu");
        assert_true(ctk_strv_contains(&c.problems[0].names, "7"));
        assert_non_null(strstr(c.problems[1].msg, "broken.yaml:"));
        assert_null(c.problems[1].kind);
        assert_int_equal(c.nspecs, 5);

        size_t first, n;
        ctk_cdi_cache_kind_range(&c, "amd.com/gpu", &first, &n);
        assert_int_equal(first, 0);
        assert_int_equal(n, 4);
        ctk_cdi_cache_kind_range(&c, "example.com/nic", &first, &n);
        assert_int_equal(first, 5);
        assert_int_equal(n, 1);
        ctk_cdi_cache_kind_range(&c, "vendor.com/none", &first, &n);
        assert_int_equal(n, 0);
}

static void assert_why(const struct ctk_cdi_cache *c, const char *name, const char *want)
{
        _cleanup_free_ char *why = ctk_cdi_cache_why_missing(c, name);
        assert_non_null(why);
        if (strcmp(why, want) != 0)
                fail_msg("%s:\n got  %s\n want %s", name, why, want);
}

static void test_why_missing(void **state)
{
        (void)state;
        _cleanup_cdi_cache_ struct ctk_cdi_cache c;
        load(&c);
        _cleanup_free_ char *etc = scratch_path(root, "etc"), *run = scratch_path(root, "run"),
                            *missing = scratch_path(root, "missing");
        _cleanup_free_ char *files = NULL, *want = NULL, *bad = NULL, *broken = NULL;
        assert_true(asprintf(&files, "%s/a.json, %s/b.json, %s/a.json", etc, etc, run) > 0);
        bad = strdup(c.problems[0].msg);
        broken = strdup(c.problems[1].msg);

        /* a file that would have given it was skipped */
        assert_true(asprintf(&want, "%s/bad.json would give it, but was skipped: %s", etc, bad) > 0);
        assert_why(&c, "amd.com/gpu=7", want);
        free(want);
        want = NULL;
        /* no such device: the names the spec offers (index runs compressed), and what was skipped */
        assert_true(asprintf(&want, "no such device in %s (0, 2, 10, all); skipped: %s; %s", files, bad, broken) > 0);
        assert_why(&c, "amd.com/gpu=9", want);
        free(want);
        want = NULL;
        /* a conflict */
        assert_true(asprintf(&want,
                             "defined twice in one directory (%s/a.json, %s/b.json): CDI runtimes use neither; remove "
                             "one of them",
                             etc, etc) > 0);
        assert_why(&c, "amd.com/gpu=1", want);
        free(want);
        want = NULL;
        /* no spec of the kind */
        assert_true(asprintf(&want, "no CDI spec in %s, %s, %s has kind vendor.com/fpga; skipped: %s", etc, run,
                             missing, broken) > 0);
        assert_why(&c, "vendor.com/fpga=0", want);
        free(want);
        want = NULL;
}

static void test_index_runs(void **state)
{
        (void)state;
        _cleanup_free_ char *d = scratch_path(root, "runs");
        assert_int_equal(mkdir(d, 0755), 0);
        put("runs/amd.json", SPEC("amd.com/gpu", DEV("0") "," DEV("1") "," DEV("2") "," DEV("3") "," DEV("5") "," DEV(
                                                     "7") "," DEV("8") "," DEV("0x12AB") "," DEV("all")));
        const char *dirs[] = {d};
        _cleanup_cdi_cache_ struct ctk_cdi_cache c;
        assert_int_equal(ctk_cdi_cache_load(dirs, 1, &c, NULL), 0);
        _cleanup_free_ char *want = NULL;
        assert_true(asprintf(&want, "no such device in %s/amd.json (0-3, 5, 7-8, 0x12AB, all)", d) > 0);
        assert_why(&c, "amd.com/gpu=9", want);
        free(want);
        want = NULL;
        assert_true(asprintf(&want, "no CDI spec in %s has kind amd.com/gpux", d) > 0); /* not ours: no hint */
        assert_why(&c, "amd.com/gpux=0", want);
}

static void test_nothing_there(void **state)
{
        (void)state;
        const char *dirs[] = {"/nonexistent/cdi"};
        _cleanup_cdi_cache_ struct ctk_cdi_cache c;
        assert_int_equal(ctk_cdi_cache_load(dirs, 1, &c, NULL), 0);
        assert_int_equal(c.n, 0);
        assert_int_equal(c.nconflicts, 0);
        assert_int_equal(c.nproblems, 0);
        assert_null(ctk_cdi_cache_find(&c, "amd.com/gpu=0"));
        assert_why(&c, "amd.com/gpu=0",
                   "no CDI spec in /nonexistent/cdi has kind amd.com/gpu (run 'amd-ctk cdi "
                   "generate')");
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
            cmocka_unit_test_setup_teardown(test_why_missing, setup, teardown),
            cmocka_unit_test_setup_teardown(test_index_runs, setup, teardown),
            cmocka_unit_test(test_nothing_there),
            cmocka_unit_test(test_name_order),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
