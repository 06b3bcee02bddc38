/* Generating the CDI spec from a (hand-built) host. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cdi_test_host.h"
#include "core/cdi/cdi.h"
#include "core/base/base.h"

static json_t *build(const struct ctk_cdi_host *h, const struct ctk_cdi_options *o)
{
        json_t *spec = NULL;
        struct ctk_error *err = NULL;
        int rc = ctk_cdi_spec_build(h, o, &spec, &err);
        if (rc < 0)
                fprintf(stderr, "%s\n", err->msg);
        assert_int_equal(rc, 0);
        return spec;
}

static const char *device_name(const json_t *spec, size_t i)
{
        return json_string_value(json_object_get(json_array_get(json_object_get(spec, "devices"), i), "name"));
}

static const json_t *device_nodes(const json_t *spec, size_t i)
{
        return json_object_get(json_object_get(json_array_get(json_object_get(spec, "devices"), i), "containerEdits"),
                               "deviceNodes");
}

static const char *node_path(const json_t *nodes, size_t i)
{
        return json_string_value(json_object_get(json_array_get(nodes, i), "path"));
}

static void test_exact_text_one_gpu(void **state)
{
        (void)state;
        struct ctk_cdi_host h;
        test_host_1(&h);
        struct ctk_cdi_options o;
        ctk_cdi_options_init(&o);
        json_t *spec = build(&h, &o);
        _cleanup_free_ char *text = ctk_cdi_spec_dump(spec);
        const char *node_card = "          {\n"
                                "            \"path\": \"/dev/dri/card0\",\n"
                                "            \"type\": \"c\",\n"
                                "            \"major\": 226,\n"
                                "            \"minor\": 0,\n"
                                "            \"fileMode\": 432,\n"
                                "            \"permissions\": \"rwm\",\n"
                                "            \"uid\": 0,\n"
                                "            \"gid\": 44\n"
                                "          },\n";
        const char *node_render = "          {\n"
                                  "            \"path\": \"/dev/dri/renderD128\",\n"
                                  "            \"type\": \"c\",\n"
                                  "            \"major\": 226,\n"
                                  "            \"minor\": 128,\n"
                                  "            \"fileMode\": 432,\n"
                                  "            \"permissions\": \"rwm\",\n"
                                  "            \"uid\": 0,\n"
                                  "            \"gid\": 109\n"
                                  "          },\n";
        const char *node_kfd = "          {\n"
                               "            \"path\": \"/dev/kfd\",\n"
                               "            \"type\": \"c\",\n"
                               "            \"major\": 235,\n"
                               "            \"minor\": 0,\n"
                               "            \"fileMode\": 432,\n"
                               "            \"permissions\": \"rwm\",\n"
                               "            \"uid\": 0,\n"
                               "            \"gid\": 109\n"
                               "          }\n";
        char want[4096];
        snprintf(want, sizeof(want),
                 "{\n"
                 "  \"cdiVersion\": \"0.5.0\",\n"
                 "  \"kind\": \"amd.com/gpu\",\n"
                 "  \"devices\": [\n"
                 "    {\n"
                 "      \"name\": \"0\",\n"
                 "      \"containerEdits\": {\n"
                 "        \"deviceNodes\": [\n"
                 "%s%s%s"
                 "        ]\n"
                 "      }\n"
                 "    },\n"
                 "    {\n"
                 "      \"name\": \"all\",\n"
                 "      \"containerEdits\": {\n"
                 "        \"deviceNodes\": [\n"
                 "%s%s%s"
                 "        ]\n"
                 "      }\n"
                 "    }\n"
                 "  ]\n"
                 "}\n",
                 node_card, node_render, node_kfd, node_card, node_render, node_kfd);
        assert_string_equal(text, want);
        json_decref(spec);
        test_host_free(&h);
}

static void test_index_names_and_all(void **state)
{
        (void)state;
        struct ctk_cdi_host h;
        test_host_4(&h);
        struct ctk_cdi_options o;
        ctk_cdi_options_init(&o);
        json_t *spec = build(&h, &o);
        assert_int_equal(json_array_size(json_object_get(spec, "devices")), 5);
        assert_string_equal(device_name(spec, 0), "0");
        assert_string_equal(device_name(spec, 3), "3");
        assert_string_equal(device_name(spec, 4), "all");
        /* each device: its card and render nodes, then /dev/kfd */
        const json_t *n1 = device_nodes(spec, 1);
        assert_int_equal(json_array_size(n1), 3);
        assert_string_equal(node_path(n1, 0), "/dev/dri/card2");
        assert_string_equal(node_path(n1, 1), "/dev/dri/renderD129");
        assert_string_equal(node_path(n1, 2), "/dev/kfd");
        assert_int_equal(json_array_size(device_nodes(spec, 3)), 2); /* no card node */
        /* all: every DRM node in index order, one /dev/kfd at the end */
        const json_t *all = device_nodes(spec, 4);
        assert_int_equal(json_array_size(all), 8);
        assert_string_equal(node_path(all, 0), "/dev/dri/card1");
        assert_string_equal(node_path(all, 6), "/dev/dri/renderD131");
        assert_string_equal(node_path(all, 7), "/dev/kfd");
        assert_string_equal(json_string_value(json_object_get(spec, "cdiVersion")), "0.5.0");
        json_decref(spec);
        test_host_free(&h);
}

static void test_uuid_names(void **state)
{
        (void)state;
        struct ctk_cdi_host h;
        test_host_4(&h);
        struct ctk_cdi_options o;
        ctk_cdi_options_init(&o);
        o.by_uuid = true;
        json_t *spec = build(&h, &o);
        /* 4 index names, 2 UUIDs (GPU 3 has none; 1 and 2 share one), all */
        assert_int_equal(json_array_size(json_object_get(spec, "devices")), 7);
        assert_string_equal(device_name(spec, 4), "0xEA35F57CC80DEB35");
        assert_string_equal(device_name(spec, 5), "0x12FE4F7FDAF06B9");
        assert_string_equal(device_name(spec, 6), "all");
        assert_true(ctk_cdi_device_name_valid("0x12FE4F7FDAF06B9"));
        /* partitions sharing a UUID: one device with both partitions' nodes */
        const json_t *shared = device_nodes(spec, 5);
        assert_int_equal(json_array_size(shared), 5);
        assert_string_equal(node_path(shared, 0), "/dev/dri/card2");
        assert_string_equal(node_path(shared, 3), "/dev/dri/renderD130");
        assert_string_equal(node_path(shared, 4), "/dev/kfd");
        json_decref(spec);

        o.by_index = false;
        spec = build(&h, &o);
        assert_int_equal(json_array_size(json_object_get(spec, "devices")), 3);
        assert_string_equal(device_name(spec, 0), "0xEA35F57CC80DEB35");
        json_decref(spec);
        test_host_free(&h);
}

static void test_additional_gids(void **state)
{
        (void)state;
        struct ctk_cdi_host h;
        test_host_4(&h);
        struct ctk_cdi_options o;
        ctk_cdi_options_init(&o);
        json_t *spec = build(&h, &o);
        assert_null(json_object_get(
            json_object_get(json_array_get(json_object_get(spec, "devices"), 0), "containerEdits"), "additionalGids"));
        json_decref(spec);

        o.additional_gids = true;
        spec = build(&h, &o);
        assert_string_equal(json_string_value(json_object_get(spec, "cdiVersion")), "0.7.0");
        const json_t *e0 = json_object_get(json_array_get(json_object_get(spec, "devices"), 0), "containerEdits");
        const json_t *g0 = json_object_get(e0, "additionalGids");
        assert_int_equal(json_array_size(g0), 2);
        assert_int_equal(json_integer_value(json_array_get(g0, 0)), 44);
        assert_int_equal(json_integer_value(json_array_get(g0, 1)), 109);
        /* GPU 3: renderD131 is world read-write, only /dev/kfd needs group 109 */
        const json_t *e3 = json_object_get(json_array_get(json_object_get(spec, "devices"), 3), "containerEdits");
        assert_int_equal(json_array_size(json_object_get(e3, "additionalGids")), 1);
        json_decref(spec);
        test_host_free(&h);
}

/* The groups of the device model (one rule with the runtime's discovery
 * path: ctk_oci_devnode_needs_group). */
static void test_gid_rule(void **state)
{
        (void)state;
        struct ctk_devnode a = {.path = "/dev/a", .type = 'c', .mode = 0660, .gid = 0};   /* root group: never */
        struct ctk_devnode b = {.path = "/dev/b", .type = 'c', .mode = 0666, .gid = 44};  /* world rw: not needed */
        struct ctk_devnode c = {.path = "/dev/c", .type = 'c', .mode = 0664, .gid = 109}; /* needed */
        struct ctk_devnode d = {.path = "/dev/d", .type = 'c', .mode = 0660, .gid = 109}; /* duplicate */
        struct ctk_devnode e = {.path = "/dev/e", .type = 'c', .mode = 0600, .gid = 7};   /* the group has no access */
        struct ctk_devnode f = {.path = "/dev/f", .type = 'c', .mode = 0640, .gid = 8};   /* needed, sorts first */
        const struct ctk_devnode *nodes[] = {&a, &b, &c, &d, &e, &f};
        struct ctk_cdi_device dev = {.name = "x", .nodes = nodes, .n = 6};
        struct ctk_cdi_edits ed;
        assert_int_equal(ctk_cdi_device_edits(&dev, true, &ed, NULL), 0);
        assert_int_equal(ed.ngids, 2);
        assert_int_equal(ed.gids[0], 8);
        assert_int_equal(ed.gids[1], 109);
        assert_int_equal(ed.nnodes, 6);
        ctk_cdi_edits_clear(&ed);
        dev.n = 2;
        assert_int_equal(ctk_cdi_device_edits(&dev, true, &ed, NULL), 0);
        assert_int_equal(ed.ngids, 0);
        ctk_cdi_edits_clear(&ed);
        dev.n = 6; /* without the groups */
        assert_int_equal(ctk_cdi_device_edits(&dev, false, &ed, NULL), 0);
        assert_int_equal(ed.ngids, 0);
        ctk_cdi_edits_clear(&ed);
}

static void test_vendor_class(void **state)
{
        (void)state;
        struct ctk_cdi_host h;
        test_host_1(&h);
        struct ctk_cdi_options o;
        ctk_cdi_options_init(&o);
        o.vendor = "example.org";
        o.class_ = "accel.mi300";
        json_t *spec = build(&h, &o);
        assert_string_equal(json_string_value(json_object_get(spec, "kind")), "example.org/accel.mi300");
        assert_string_equal(json_string_value(json_object_get(spec, "cdiVersion")), "0.6.0");
        json_decref(spec);

        struct ctk_error *err = NULL;
        o.vendor = "-bad";
        assert_int_equal(ctk_cdi_spec_build(&h, &o, &spec, &err), -1);
        assert_non_null(strstr(err->msg, "invalid CDI vendor \"-bad\""));
        ctk_error_free(err);
        err = NULL;
        o.vendor = "amd.com";
        o.class_ = "gpu/x";
        assert_int_equal(ctk_cdi_spec_build(&h, &o, &spec, &err), -1);
        assert_non_null(strstr(err->msg, "invalid CDI class \"gpu/x\""));
        ctk_error_free(err);
        test_host_free(&h);
}

static void test_no_gpus(void **state)
{
        (void)state;
        struct ctk_cdi_host h = {0};
        h.kfd = test_node("/dev/kfd", 235, 0, 0660, 109);
        struct ctk_cdi_options o;
        ctk_cdi_options_init(&o);
        json_t *spec = build(&h, &o);
        assert_int_equal(json_array_size(json_object_get(spec, "devices")), 1);
        assert_string_equal(device_name(spec, 0), "all");
        assert_int_equal(json_array_size(device_nodes(spec, 0)), 1);
        /* nothing in it needs more than the first tagged version */
        assert_string_equal(json_string_value(json_object_get(spec, "cdiVersion")), "0.3.0");
        json_decref(spec);
        free(h.kfd.path);
}

static void test_generated_spec_is_valid(void **state)
{
        (void)state;
        struct ctk_cdi_host h;
        test_host_4(&h);
        struct ctk_cdi_options o;
        ctk_cdi_options_init(&o);
        o.by_uuid = true;
        o.additional_gids = true;
        json_t *spec = build(&h, &o);
        _cleanup_free_ char *text = ctk_cdi_spec_dump(spec);
        struct ctk_cdi_report rep = {0};
        struct ctk_cdi_doc doc;
        assert_int_equal(ctk_cdi_parse("gen.json", text, strlen(text), &doc, &rep, NULL), 0);
        struct ctk_cdi_source src = {.file = "gen.json", .text = doc.text, .len = doc.len};
        assert_int_equal(ctk_cdi_check(doc.root, &src, &rep), 0);
        assert_int_equal(rep.warnings.n, 0);
        ctk_cdi_doc_clear(&doc);
        ctk_cdi_report_clear(&rep);
        json_decref(spec);
        test_host_free(&h);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_exact_text_one_gpu),
            cmocka_unit_test(test_index_names_and_all),
            cmocka_unit_test(test_uuid_names),
            cmocka_unit_test(test_additional_gids),
            cmocka_unit_test(test_gid_rule),
            cmocka_unit_test(test_vendor_class),
            cmocka_unit_test(test_no_gpus),
            cmocka_unit_test(test_generated_spec_is_valid),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
