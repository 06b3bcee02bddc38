/* A container's CDI request: annotations, qualified names, and their
 * resolution through the spec directories into what to apply. */
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
#include "core/json/json.h"

static char root[] = "/tmp/ctk-cdi-resolve-XXXXXX";

static void put(const char *rel, const char *text)
{
        scratch_write(root, rel, text);
}

static int setup(void **state)
{
        (void)state;
        strcpy(root, "/tmp/ctk-cdi-resolve-XXXXXX");
        if (scratch_dir_make(root) == NULL)
                return -1;
        put("nic.json", "{\"cdiVersion\": \"0.5.0\", \"kind\": \"example.com/nic\","
                        " \"containerEdits\": {\"env\": [\"NIC_DRIVER=1\"]},"
                        " \"devices\": [{\"name\": \"eth0\", \"containerEdits\": {\"env\": [\"NIC=eth0\"]}},"
                        "               {\"name\": \"eth1\", \"containerEdits\": {\"env\": [\"NIC=eth1\"]}}]}");
        put("gpu.json", "{\"cdiVersion\": \"0.5.0\", \"kind\": \"amd.com/gpu\","
                        " \"devices\": [{\"name\": \"0\", \"containerEdits\": {\"env\": [\"G=0\"]}},"
                        "               {\"name\": \"all\", \"containerEdits\": {\"env\": [\"G=all\"]}}]}");
        return 0;
}

static int teardown(void **state)
{
        (void)state;
        return scratch_dir_remove(root);
}

static void load(struct ctk_cdi_cache *c)
{
        const char *dirs[] = {root};
        assert_int_equal(ctk_cdi_cache_load(dirs, 1, c, NULL), 0);
}

static void push(struct ctk_strv *v, const char *s)
{
        assert_int_equal(ctk_strv_push(v, s), 0);
}

static void test_resolve_order(void **state)
{
        (void)state;
        _cleanup_cdi_cache_ struct ctk_cdi_cache c;
        load(&c);
        struct ctk_strv names _cleanup_strv_ = {0};
        push(&names, "example.com/nic=eth1");
        push(&names, "amd.com/gpu=0");
        push(&names, "example.com/nic=eth0");
        push(&names, "example.com/nic=eth1"); /* twice: once */
        struct ctk_cdi_resolved r;
        assert_int_equal(ctk_cdi_resolve(&c, &names, NULL, &r, NULL), 0);
        /* the spec's own edits before its first device, once */
        assert_int_equal(r.n, 4);
        assert_string_equal(r.origins[0].name, "example.com/nic");
        assert_null(r.entries[0]);
        assert_string_equal(r.edits[0].env[0], "NIC_DRIVER=1");
        assert_string_equal(r.origins[1].name, "example.com/nic=eth1");
        assert_string_equal(r.origins[2].name, "amd.com/gpu=0");
        assert_string_equal(r.origins[3].name, "example.com/nic=eth0");
        _cleanup_free_ char *nic = scratch_path(root, "nic.json");
        assert_string_equal(r.origins[1].file, nic);
        assert_ptr_equal(r.origins[1].edits, &r.edits[1]);
        /* applied: the later edit wins */
        _cleanup_json_ json_t *oci = json_pack("{s:{s:[s]}}", "process", "env", "PATH=/bin");
        assert_int_equal(ctk_cdi_apply(oci, r.origins, r.n, NULL, NULL, NULL), 0);
        _cleanup_free_ char *env = json_dumps(json_object_get(json_object_get(oci, "process"), "env"), JSON_COMPACT);
        assert_string_equal(env, "[\"PATH=/bin\",\"NIC_DRIVER=1\",\"NIC=eth0\",\"G=0\"]");
        ctk_cdi_resolved_clear(&r);
}

static void test_unresolvable(void **state)
{
        (void)state;
        _cleanup_cdi_cache_ struct ctk_cdi_cache c;
        load(&c);
        struct ctk_strv names _cleanup_strv_ = {0}, sources _cleanup_strv_ = {0};
        push(&names, "example.com/nic=eth0");
        push(&sources, "AMD_VISIBLE_DEVICES");
        push(&names, "amd.com/gpu=9");
        push(&sources, "AMD_VISIBLE_DEVICES");
        push(&names, "vendor.com/fpga=0");
        push(&sources, "annotation cdi.k8s.io/fpga");
        push(&names, "bad name");
        push(&sources, "annotation cdi.k8s.io/x");
        struct ctk_cdi_resolved r;
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(ctk_cdi_resolve(&c, &names, &sources, &r, &err), -1);
        _cleanup_free_ char *want = NULL;
        assert_true(asprintf(&want,
                             "AMD_VISIBLE_DEVICES: amd.com/gpu=9: no such device in %s/gpu.json (0, all); "
                             "unresolvable too: vendor.com/fpga=0, bad name",
                             root) > 0);
        assert_string_equal(err->msg, want);
        assert_int_equal(r.n, 0);
}

/* CDI's prefix, as the configuration has it by default. */
static struct ctk_strv cdi_prefix(void)
{
        struct ctk_strv p = {0};
        assert_int_equal(ctk_strv_push(&p, "cdi.k8s.io/"), 0);
        return p;
}

static void test_annotations(void **state)
{
        (void)state;
        struct ctk_strv pre _cleanup_strv_ = cdi_prefix();
        _cleanup_json_ json_t *oci = json_pack(
            "{s:{s:s, s:s, s:s}}", "annotations", "cdi.k8s.io/vendor.nic_eth1", "example.com/nic=eth1",
            "cdi.k8s.io/amd.gpu_0", "amd.com/gpu=0,amd.com/gpu=all", "io.kubernetes.cri.container-type", "container");
        struct ctk_strv names _cleanup_strv_ = {0}, sources _cleanup_strv_ = {0};
        assert_int_equal(ctk_cdi_annotation_names(oci, &pre, &names, &sources, NULL), 0);
        /* keys in sorted order, values in theirs */
        assert_int_equal(names.n, 3);
        assert_string_equal(names.v[0], "amd.com/gpu=0");
        assert_string_equal(names.v[1], "amd.com/gpu=all");
        assert_string_equal(names.v[2], "example.com/nic=eth1");
        assert_string_equal(sources.v[0], "annotation cdi.k8s.io/amd.gpu_0");
        assert_string_equal(sources.v[2], "annotation cdi.k8s.io/vendor.nic_eth1");
        assert_true(ctk_cdi_spec_requests_annotations(oci, &pre));

        const char *bad[][3] = {
            {"cdi.k8s.io/", "amd.com/gpu=0",
             "annotation \"cdi.k8s.io/\": after cdi.k8s.io/ comes a name of 1-63 letters, digits, '_', '.' and '-', "
             "beginning and ending with a letter or digit"},
            {"cdi.k8s.io/-x", "amd.com/gpu=0", NULL},
            {"cdi.k8s.io/a/b", "amd.com/gpu=0", NULL},
            {"cdi.k8s.io/x", "amd.com/gpu=0, amd.com/gpu=1",
             "annotation cdi.k8s.io/x: \" amd.com/gpu=1\" is not a fully qualified CDI device name (vendor/class=name, "
             "e.g. amd.com/gpu=0)"},
            {"cdi.k8s.io/x", "0",
             "annotation cdi.k8s.io/x: \"0\" is not a fully qualified CDI device name "
             "(vendor/class=name, e.g. amd.com/gpu=0)"},
            {"cdi.k8s.io/x", "", NULL},
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                _cleanup_json_ json_t *o = json_pack("{s:{s:s}}", "annotations", bad[i][0], bad[i][1]);
                struct ctk_strv n _cleanup_strv_ = {0}, s _cleanup_strv_ = {0};
                _cleanup_error_ struct ctk_error *err = NULL;
                assert_int_equal(ctk_cdi_annotation_names(o, &pre, &n, &s, &err), -1);
                if (bad[i][2] != NULL)
                        assert_string_equal(err->msg, bad[i][2]);
        }
        /* a key of 63 characters is fine, 64 is not */
        char key[80];
        snprintf(key, sizeof(key), "cdi.k8s.io/%063d", 7);
        _cleanup_json_ json_t *ok = json_pack("{s:{s:s}}", "annotations", key, "amd.com/gpu=0");
        struct ctk_strv n2 _cleanup_strv_ = {0}, s2 _cleanup_strv_ = {0};
        assert_int_equal(ctk_cdi_annotation_names(ok, &pre, &n2, &s2, NULL), 0);
        snprintf(key, sizeof(key), "cdi.k8s.io/%064d", 7);
        _cleanup_json_ json_t *long_key = json_pack("{s:{s:s}}", "annotations", key, "amd.com/gpu=0");
        assert_int_equal(ctk_cdi_annotation_names(long_key, &pre, &n2, &s2, NULL), -1);
        /* no annotations: nothing */
        _cleanup_json_ json_t *none = json_pack("{s:{}}", "process");
        assert_int_equal(ctk_cdi_annotation_names(none, &pre, &n2, &s2, NULL), 0);
        assert_false(ctk_cdi_spec_requests_annotations(none, &pre));
}

/* Other prefixes (config key cdi-annotation-prefixes): only theirs count;
 * none at all turns annotations off. */
static void test_annotation_prefixes(void **state)
{
        (void)state;
        _cleanup_json_ json_t *oci =
            json_pack("{s:{s:s, s:s, s:s}}", "annotations", "cdi.k8s.io/a", "amd.com/gpu=0", "gpus.example.com/b",
                      "amd.com/gpu=1", "gpus.example.com-c", "amd.com/gpu=2");
        struct ctk_strv pre _cleanup_strv_ = {0};
        assert_int_equal(ctk_strv_push(&pre, "gpus.example.com/"), 0);
        struct ctk_strv names _cleanup_strv_ = {0}, sources _cleanup_strv_ = {0};
        assert_int_equal(ctk_cdi_annotation_names(oci, &pre, &names, &sources, NULL), 0);
        assert_int_equal(names.n, 1);
        assert_string_equal(names.v[0], "amd.com/gpu=1");
        assert_string_equal(sources.v[0], "annotation gpus.example.com/b");
        assert_true(ctk_cdi_spec_requests_annotations(oci, &pre));
        /* two prefixes: keys of both, sorted */
        assert_int_equal(ctk_strv_push(&pre, "cdi.k8s.io/"), 0);
        ctk_strv_clear(&names);
        ctk_strv_clear(&sources);
        assert_int_equal(ctk_cdi_annotation_names(oci, &pre, &names, &sources, NULL), 0);
        assert_int_equal(names.n, 2);
        assert_string_equal(names.v[0], "amd.com/gpu=0");
        assert_string_equal(names.v[1], "amd.com/gpu=1");
        /* the name after another prefix follows CDI's rule too, and the error says which prefix */
        _cleanup_json_ json_t *bad = json_pack("{s:{s:s}}", "annotations", "gpus.example.com/-x", "amd.com/gpu=0");
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(ctk_cdi_annotation_names(bad, &pre, &names, &sources, &err), -1);
        assert_string_equal(err->msg, "annotation \"gpus.example.com/-x\": after gpus.example.com/ comes a name of "
                                      "1-63 letters, digits, '_', '.' and '-', beginning and ending with a letter or "
                                      "digit");
        /* no prefixes: nothing is a request */
        const struct ctk_strv none = {0};
        ctk_strv_clear(&names);
        ctk_strv_clear(&sources);
        assert_int_equal(ctk_cdi_annotation_names(oci, &none, &names, &sources, NULL), 0);
        assert_int_equal(names.n, 0);
        assert_false(ctk_cdi_spec_requests_annotations(oci, &none));
}

static void test_qualified_names(void **state)
{
        (void)state;
        assert_true(ctk_cdi_qualified_valid("amd.com/gpu=0"));
        assert_true(ctk_cdi_qualified_valid("vendor.com/foo-bar123.B_az=0:1"));
        assert_false(ctk_cdi_qualified_valid("amd.com/gpu"));
        assert_false(ctk_cdi_qualified_valid("amd.com/gpu/x=0"));
        assert_false(ctk_cdi_qualified_valid("/dev/kfd=0"));
        assert_false(ctk_cdi_qualified_valid("amd.com/gpu="));
        assert_false(ctk_cdi_qualified_valid("amd.com/gpu=a/b"));
        assert_false(ctk_cdi_qualified_valid("1amd.com/gpu=0"));
}

/* The GPUs a device name of our spec stands for (the tracker's view). */
static void test_gpu_name_mark(void **state)
{
        (void)state;
        struct ctk_gpu v[] = {
            {.index = 0, .has_uuid = true, .uuid = 0xAA},
            {.index = 1, .has_uuid = true, .uuid = 0xBB},
            {.index = 2, .has_uuid = true, .uuid = 0xBB},
        };
        const struct ctk_gpu_list gpus = {v, 3};
        bool m[3] = {false};
        assert_int_equal(ctk_cdi_gpu_name_mark(&gpus, "0xbb", m), 0);
        assert_true(!m[0] && m[1] && m[2]);
        assert_int_equal(ctk_cdi_gpu_name_mark(&gpus, "0", m), 0);
        assert_true(m[0]);
        bool a[3] = {false};
        assert_int_equal(ctk_cdi_gpu_name_mark(&gpus, "all", a), 0);
        assert_true(a[0] && a[1] && a[2]);
        assert_int_equal(ctk_cdi_gpu_name_mark(&gpus, "3", a), -1);
        assert_int_equal(ctk_cdi_gpu_name_mark(&gpus, "0xCC", a), -1);
        assert_int_equal(ctk_cdi_gpu_name_mark(&gpus, "ALL", a), -1);
        assert_int_equal(ctk_cdi_gpu_name_mark(&gpus, "", a), -1);
        assert_int_equal(ctk_cdi_gpu_name_mark(&gpus, "1-2", a), -1);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_setup_teardown(test_resolve_order, setup, teardown),
            cmocka_unit_test_setup_teardown(test_unresolvable, setup, teardown),
            cmocka_unit_test(test_annotations),
            cmocka_unit_test(test_annotation_prefixes),
            cmocka_unit_test(test_qualified_names),
            cmocka_unit_test(test_gpu_name_mark),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
