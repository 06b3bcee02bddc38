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

/* Specs someone else could have written are skipped, with the reason. */
static void test_untrusted_skipped(void **state)
{
        (void)state;
        _cleanup_free_ char *open_dir = scratch_path(root, "open"), *good = scratch_path(root, "good"),
                            *target = scratch_path(root, "open/target.json"),
                            *link = scratch_path(root, "good/link.json"), *gw = scratch_path(root, "good/gw.json");
        assert_int_equal(mkdir(open_dir, 0755), 0);
        assert_int_equal(mkdir(good, 0755), 0);
        put("open/x.json", SPEC("example.com/x", DEV("a")));
        put("open/target.json", SPEC("example.com/z", DEV("c")));
        put("good/gw.json", SPEC("example.com/y", DEV("b")));
        put("good/ok.json", SPEC("example.com/ok", DEV("d")));
        assert_int_equal(chmod(open_dir, 0777), 0);
        assert_int_equal(chmod(gw, 0664), 0);
        assert_int_equal(symlink(target, link), 0);
        const char *dirs[] = {open_dir, good};
        _cleanup_cdi_cache_ struct ctk_cdi_cache c;
        assert_int_equal(ctk_cdi_cache_load(dirs, 2, &c, NULL), 0);
        /* only the trusted spec gives devices */
        assert_int_equal(c.n, 1);
        assert_string_equal(c.devices[0].name, "example.com/ok=d");
        assert_int_equal(c.nproblems, 3);
        _cleanup_free_ char *want1 = NULL, *want2 = NULL, *want3 = NULL, *why = NULL;
        /* a directory another user may change: skipped whole */
        assert_true(asprintf(&want1, "%s is not trusted: it is writable by every user (mode 0777) (directory skipped)",
                             open_dir) > 0);
        assert_string_equal(c.problems[0].msg, want1);
        assert_null(c.problems[0].kind); /* (not even read) */
        assert_true(asprintf(&want2, "%s is not trusted: it is writable by its group (mode 0664) (spec skipped)", gw) >
                    0);
        assert_string_equal(c.problems[1].msg, want2);
        assert_true(asprintf(&want3,
                             "%s is not trusted: its target's directory %s is writable by every user (mode 0777) "
                             "(spec skipped)",
                             link, open_dir) > 0);
        assert_string_equal(c.problems[2].msg, want3);
        /* a request of a device only such a spec has: the file and the reason */
        assert_true(
            asprintf(&why, "no CDI spec in %s, %s has kind example.com/y; skipped: %s; ", open_dir, good, want1) > 0);
        _cleanup_free_ char *got = ctk_cdi_cache_why_missing(&c, "example.com/y=b");
        assert_non_null(got);
        assert_non_null(strstr(got, why));
        assert_non_null(strstr(got, want2));
}

/* "vendor.com/big" with n devices "d0".."d<n-1>". */
static char *big_spec(size_t n)
{
        char *s = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&s, &len);
        assert_non_null(f);
        fputs("{\"cdiVersion\": \"0.5.0\", \"kind\": \"vendor.com/big\", \"devices\": [", f);
        for (size_t i = 0; i < n; i++)
                fprintf(f, "%s{\"name\": \"d%zu\", \"containerEdits\": {\"env\": [\"X=%zu\"]}}", i > 0 ? "," : "", i,
                        i);
        fputs("]}", f);
        assert_int_equal(fclose(f), 0);
        return s;
}

/* A spec over the device cap is skipped (not checked, its names not
 * kept); at the cap it is used, and loading it is not quadratic. */
static void test_device_cap(void **state)
{
        (void)state;
        _cleanup_free_ char *d = scratch_path(root, "big"), *over = big_spec(CTK_CDI_MAX_DEVICES + 1),
                            *at = big_spec(CTK_CDI_MAX_DEVICES), *over_path = scratch_path(root, "big/a.json");
        assert_int_equal(mkdir(d, 0755), 0);
        put("big/a.json", over);
        put("big/b.json", SPEC("amd.com/gpu", DEV("0")));
        const char *dirs[] = {d};
        _cleanup_cdi_cache_ struct ctk_cdi_cache c;
        assert_int_equal(ctk_cdi_cache_load(dirs, 1, &c, NULL), 0);
        assert_int_equal(c.n, 1);
        assert_non_null(ctk_cdi_cache_find(&c, "amd.com/gpu=0"));
        assert_int_equal(c.nproblems, 1);
        _cleanup_free_ char *want = NULL;
        assert_true(
            asprintf(&want, "%s has 65537 devices, more than the 65536 a spec may have (spec skipped)", over_path) > 0);
        assert_string_equal(c.problems[0].msg, want);
        assert_string_equal(c.problems[0].kind, "vendor.com/big");
        assert_int_equal(c.problems[0].names.n, 0);
        ctk_cdi_cache_clear(&c);
        put("big/a.json", at);
        assert_int_equal(ctk_cdi_cache_load(dirs, 1, &c, NULL), 0);
        assert_int_equal(c.nproblems, 0);
        assert_int_equal(c.n, CTK_CDI_MAX_DEVICES + 1);
        assert_non_null(ctk_cdi_cache_find(&c, "vendor.com/big=d65535"));
        size_t first, n;
        ctk_cdi_cache_kind_range(&c, "vendor.com/big", &first, &n);
        assert_int_equal(n, CTK_CDI_MAX_DEVICES);
}

/* Definitions settled by name: the same outcome as one by one, whatever
 * the order of the files' devices. */
static void test_many_duplicates(void **state)
{
        (void)state;
        _cleanup_free_ char *d1 = scratch_path(root, "p1"), *d2 = scratch_path(root, "p2"),
                            *x = scratch_path(root, "p1/x.json"), *y = scratch_path(root, "p1/y.json"),
                            *z = scratch_path(root, "p2/z.json");
        assert_int_equal(mkdir(d1, 0755), 0);
        assert_int_equal(mkdir(d2, 0755), 0);
        put("p1/x.json", SPEC("v.com/c", DEV("b") "," DEV("a") "," DEV("c")));
        put("p1/y.json", SPEC("v.com/c", DEV("c") "," DEV("d")));
        put("p2/z.json", SPEC("v.com/c", DEV("a") "," DEV("c") "," DEV("e")));
        const char *dirs[] = {d1, d2};
        _cleanup_cdi_cache_ struct ctk_cdi_cache c;
        assert_int_equal(ctk_cdi_cache_load(dirs, 2, &c, NULL), 0);
        const char *want[] = {"v.com/c=a", "v.com/c=b", "v.com/c=d", "v.com/c=e"};
        assert_int_equal(c.n, 4);
        for (size_t i = 0; i < 4; i++)
                assert_string_equal(c.devices[i].name, want[i]);
        const struct ctk_cdi_entry *a = ctk_cdi_cache_find(&c, "v.com/c=a");
        assert_string_equal(c.specs[a->spec].path, z);
        assert_int_equal(a->overrides.n, 1);
        assert_string_equal(a->overrides.v[0], x);
        /* c: twice in p1 (a conflict), then in p2: still a conflict */
        assert_int_equal(c.nconflicts, 1);
        assert_string_equal(c.conflicts[0].name, "v.com/c=c");
        assert_int_equal(c.conflicts[0].specs.n, 2);
        assert_string_equal(c.conflicts[0].specs.v[0], x);
        assert_string_equal(c.conflicts[0].specs.v[1], y);
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
            cmocka_unit_test_setup_teardown(test_untrusted_skipped, setup, teardown),
            cmocka_unit_test_setup_teardown(test_device_cap, setup, teardown),
            cmocka_unit_test_setup_teardown(test_many_duplicates, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
