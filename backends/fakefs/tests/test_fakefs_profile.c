/* Host profiles: defaults, and one clear error per kind of bad input. */
#include <errno.h>
#include <unistd.h>

#include "backends/fakefs/profile.h"
#include "fakefs_test.h"

#define GPU0 "{\"pci\": \"0000:03:00.0\", \"device_id\": \"0x740f\", \"card_minor\": 0, \"render_minor\": 128"

static void expect_error(const char *json, const char *want)
{
        char *msg = test_profile_error(json);
        if (msg == NULL)
                fail_msg("profile loaded, expected an error containing \"%s\"", want);
        if (strstr(msg, want) == NULL)
                fail_msg("error \"%s\" does not contain \"%s\"", msg, want);
        free(msg);
}

static void syntax_errors_have_line_and_column(void **state)
{
        (void)state;
        expect_error("{\n  \"gpus\": [\n    {\"pci\": \"0000:03:00.0\",,}\n  ]\n}\n", "test.json:3:");
        expect_error("{\"name\": \"a\",\n \"name\": \"b\"}", "test.json:2:");
        expect_error("{\"name\": \"x\"", "test.json:1:");
        expect_error("", "test.json:");
        char *msg = test_profile_error("{\n\n   \"amdgpu\": tru }");
        assert_non_null(msg);
        assert_true(strncmp(msg, "test.json:3:", 12) == 0);
        free(msg);
}

static void load_from_file_names_the_file(void **state)
{
        (void)state;
        char path[] = "/tmp/fakefs-profile-XXXXXX";
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, "{\n  \"gpus\": 3,\n}", 17), 17);
        close(fd);
        struct ctk_error *err = NULL;
        struct ctk_fakefs_profile *p = NULL;
        assert_int_equal(ctk_fakefs_profile_load(path, &p, &err), -1);
        char *want = NULL;
        assert_true(asprintf(&want, "%s:3:1: ", path) > 0);
        assert_true(strncmp(err->msg, want, strlen(want)) == 0);
        free(want);
        ctk_error_free(err);
        err = NULL;
        unlink(path);
        assert_int_equal(ctk_fakefs_profile_load(path, &p, &err), -1);
        assert_int_equal(err->code, ENOENT);
        assert_non_null(strstr(err->msg, path));
        ctk_error_free(err);
}

static void unknown_keys_are_rejected(void **state)
{
        (void)state;
        expect_error("{\"gpu\": []}", "unknown key \"gpu\"");
        expect_error("{\"gpus\": [" GPU0 ", \"xcd\": 8}]}", "gpus[0]: unknown key \"xcd\"");
        expect_error("{\"gpus\": [" GPU0 ", \"partition\": {\"xcds\": 8, \"mode\": \"SPX\"}}]}",
                     "gpus[0].partition: unknown key \"mode\"");
        expect_error("{\"dri\": {\"card\": {\"group\": 44}}}", "dri.card: unknown key \"group\"");
        expect_error("{\"kfd\": {\"device\": {\"major\": 235, \"size\": 1}}}", "kfd.device: unknown key \"size\"");
}

static void bad_values(void **state)
{
        (void)state;
        expect_error("{\"gpus\": [{\"pci\": \"03:00\", \"device_id\": \"0x740f\"}]}", "not a PCI address");
        expect_error("{\"gpus\": [{\"pci\": \"0000:03:00.0\"}]}", "missing required key \"device_id\"");
        expect_error("{\"gpus\": [{\"device_id\": \"0x740f\"}]}", "missing required key \"pci\"");
        expect_error("{\"gpus\": [" GPU0 ", \"vendor_id\": \"1002\"}]}", "hexadecimal");
        expect_error("{\"gpus\": [" GPU0 ", \"vendor_id\": \"0x10002\"}]}", "larger than 0xffff");
        expect_error("{\"gpus\": [" GPU0 ", \"unique_id\": \"0xEA35F57CC80DEB35F\"}]}", "64-bit id");
        expect_error("{\"gpus\": [" GPU0 ", \"kfd_node\": -1}]}", "integer from 0");
        expect_error("{\"gpus\": [" GPU0 ", \"card\": {\"mode\": \"660x\"}}]}", "octal");
        expect_error("{\"gpus\": [" GPU0 ", \"card\": {\"mode\": 432}}]}", "octal");
        expect_error("{\"amdgpu\": \"yes\"}", "true or false");
        expect_error("{\"xcp_name\": \"xcp\"}", "amdgpu_xcp_");
        expect_error("{\"gpus\": {}}", "gpus: expected an array");
        expect_error("{\"gpus\": [{\"pci\": \"0000:03:00.0\", \"device_id\": \"0x740f\"}]}",
                     "gpu 0000:03:00.0: amdgpu GPUs need card_minor and render_minor");
        expect_error("{\"gpus\": [" GPU0 ", \"render_minor\": 5}]}", "duplicate");
}

static void properties(void **state)
{
        (void)state;
        expect_error("{\"gpus\": [" GPU0 ", \"kfd_properties\": {\"location_id\": 1}}]}",
                     "\"location_id\" is computed from the GPU");
        expect_error("{\"gpus\": [" GPU0 ", \"kfd_properties\": {\"simd_count\": -4}}]}", "non-negative integer");
        expect_error("{\"gpus\": [" GPU0 ", \"kfd_properties\": {\"Simd\": 4}}]}", "not a KFD property name");
        expect_error("{\"gpus\": [" GPU0 ", \"kfd_template\": \"gfx942\"}]}", "\"gfx942\" is not defined");
        expect_error("{\"kfd_templates\": {\"t\": {\"simd_count\": null}}}", "null is only allowed");
        expect_error("{\"kfd_templates\": {\"t\": {\"unique_id\": null}}, \"cpu_nodes\": [{\"node\": 0, "
                     "\"kfd_template\": \"t\"}]}",
                     "cpu_nodes[0]: its kfd_template has null");
        expect_error("{\"cpu_nodes\": [{\"node\": 0}, {\"node\": 0}]}", "node 0 is listed twice");
}

static void partitions(void **state)
{
        (void)state;
        expect_error("{\"gpus\": [" GPU0 ", \"partition\": {\"compute\": \"SPX\"}}]}", "missing required key \"xcds\"");
        expect_error("{\"gpus\": [" GPU0 ", \"partition\": {\"compute\": \"CPX\", \"xcds\": 1}}]}",
                     "compute mode CPX is not in available_compute");
        expect_error("{\"gpus\": [" GPU0 ", \"partition\": {\"xcds\": 8, \"available_compute\": [\"SPX\", \"HPX\"]}}]}",
                     "unknown compute partition mode \"HPX\"");
        expect_error("{\"gpus\": [" GPU0 ", \"partition\": {\"xcds\": 6, \"available_compute\": [\"SPX\", \"QPX\"]}}]}",
                     "does not fit 6 XCDs");
        expect_error("{\"gpus\": [" GPU0 ", \"partition\": {\"xcds\": 8, \"memory\": \"NPS3\"}}]}",
                     "memory mode NPS3 is not in available_memory");
        expect_error("{\"gpus\": [" GPU0 ", \"partition\": {\"xcds\": 9}}]}", "integer from 0 to 8");
        /* a partition-capable GPU reserves 8 minors */
        expect_error("{\"gpus\": [" GPU0 ", \"partition\": {\"xcds\": 8}}, {\"pci\": \"0000:04:00.0\", \"device_id\": "
                     "\"0x74a1\", \"card_minor\": 4, \"render_minor\": 140}]}",
                     "gpus 0000:03:00.0 and 0000:04:00.0 both use DRM minor 4");
        expect_error("{\"gpus\": [" GPU0
                     ", \"partitions\": [{\"kfd_node\": 1, \"render_minor\": 128}, {\"kfd_node\": 2, "
                     "\"render_minor\": 129}]}]}",
                     "2 partitions listed, mode (none) has 1");
        expect_error("{\"gpus\": [" GPU0 ", \"partition\": {\"xcds\": 8, \"compute\": \"DPX\"}, \"partitions\": "
                     "[{\"kfd_node\": 1, \"render_minor\": 128, \"location_id\": 1024}]}]}",
                     "location_id 1024 is not on this PCI device");
        expect_error("{\"gpus\": [{\"pci\": \"0000:00:02.0\", \"vendor_id\": \"0x8086\", \"device_id\": \"0x4680\", "
                     "\"driver\": \"i915\", \"partition\": {\"xcds\": 2}}]}",
                     "only amdgpu GPUs have partitions");
}

static void kfd_node_collisions(void **state)
{
        (void)state;
        expect_error("{\"gpus\": [" GPU0 ", \"kfd_node\": 0}]}", "KFD node 0 of gpu 0000:03:00.0 (partition 0) is also "
                                                                 "used by a CPU");
        expect_error("{\"gpus\": [" GPU0 ", \"kfd_node\": 1}, {\"pci\": \"0000:04:00.0\", \"device_id\": \"0x740f\", "
                     "\"card_minor\": 1, \"render_minor\": 129, \"kfd_node\": 1}]}",
                     "is also used by 0000:03:00.0");
        expect_error("{\"gpus\": [" GPU0 "}, {\"pci\": \"0000:03:00.0\", \"device_id\": \"0x740f\", \"card_minor\": 1, "
                     "\"render_minor\": 129}]}",
                     "two GPUs at PCI address 0000:03:00.0");
}

static void defaults(void **state)
{
        (void)state;
        struct ctk_error *err = NULL;
        struct ctk_fakefs_profile *p = NULL;
        assert_int_equal(ctk_fakefs_profile_parse("{\"gpus\": [" GPU0 ", \"partition\": {\"xcds\": 8}}, {\"pci\": "
                                                  "\"0000:00:02.0\", \"vendor_id\": \"0x8086\", \"device_id\": "
                                                  "\"0x4680\", \"driver\": \"i915\"}]}",
                                                  "d.json", &p, &err),
                         0);
        assert_true(p->amdgpu_loaded);
        assert_int_equal(p->generation_id, 1);
        assert_int_equal(p->dri_major, 226);
        assert_int_equal(p->render_attr.gid, 109);
        assert_int_equal(p->card_attr.gid, 44);
        assert_int_equal(p->ncpus, 1);
        assert_string_equal(p->xcp_prefix, "amdgpu_xcp_");
        assert_int_equal(p->ngpus, 2);
        /* sorted by PCI address */
        assert_string_equal(p->gpus[0].pci, "0000:00:02.0");
        assert_string_equal(p->gpus[1].pci, "0000:03:00.0");
        const struct ctk_fakefs_gpu *g = ctk_fakefs_profile_find_gpu(p, "03:00.0", NULL);
        assert_non_null(g);
        assert_int_equal(g->vendor_id, 0x1002);
        assert_int_equal(g->pci_class, 0x038000);
        assert_string_equal(g->driver, "amdgpu");
        assert_string_equal(g->partition.compute, "SPX");
        assert_string_equal(g->partition.memory, "NPS1");
        assert_int_equal(g->partition.available_compute.n, 4);
        assert_string_equal(g->partition.available_compute.v[3], "CPX");
        assert_int_equal(g->partition.available_memory.n, 2);
        assert_null(ctk_fakefs_profile_find_gpu(p, "0000:05:00.0", NULL));
        assert_null(ctk_fakefs_profile_find_gpu(p, "garbage", NULL));
        ctk_fakefs_profile_free(p);
}

static void mode_tables(void **state)
{
        (void)state;
        assert_int_equal(ctk_fakefs_compute_partitions("spx", 8), 1);
        assert_int_equal(ctk_fakefs_compute_partitions("DPX", 8), 2);
        assert_int_equal(ctk_fakefs_compute_partitions("QPX", 8), 4);
        assert_int_equal(ctk_fakefs_compute_partitions("cpx", 8), 8);
        assert_int_equal(ctk_fakefs_compute_partitions("CPX", 4), 4);
        assert_int_equal(ctk_fakefs_compute_partitions("XPX", 8), -1);
        struct ctk_strv m = {0};
        assert_int_equal(ctk_fakefs_default_compute_modes(4, &m), 0);
        assert_int_equal(m.n, 3); /* SPX, DPX, CPX: QPX would equal CPX */
        assert_string_equal(m.v[2], "CPX");
        ctk_strv_clear(&m);
        assert_int_equal(ctk_fakefs_default_compute_modes(1, &m), 0);
        assert_int_equal(m.n, 1);
        ctk_strv_clear(&m);
        unsigned int d, b, v, f;
        assert_int_equal(ctk_fakefs_parse_bdf("0001:C8:1f.7", &d, &b, &v, &f), 0);
        assert_int_equal(d, 1);
        assert_int_equal(b, 0xc8);
        assert_int_equal(v, 0x1f);
        assert_int_equal(f, 7);
        assert_int_equal(ctk_fakefs_parse_bdf("0000:03:20.0", &d, &b, &v, &f), -1);
        assert_int_equal(ctk_fakefs_parse_bdf("0000:03:00.8", &d, &b, &v, &f), -1);
        assert_int_equal(ctk_fakefs_parse_bdf("0000:03:00.0x", &d, &b, &v, &f), -1);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(syntax_errors_have_line_and_column),
            cmocka_unit_test(load_from_file_names_the_file),
            cmocka_unit_test(unknown_keys_are_rejected),
            cmocka_unit_test(bad_values),
            cmocka_unit_test(properties),
            cmocka_unit_test(partitions),
            cmocka_unit_test(kfd_node_collisions),
            cmocka_unit_test(defaults),
            cmocka_unit_test(mode_tables),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
