/* CDI versions and the minimum version a spec needs: one case without and
 * one with each feature. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/cdi/cdi.h"

/* A spec with one device, "dev", and `extra` spliced into its edits; the
 * device name and kind can be replaced. */
static int min_of(const char *kind, const char *name, const char *edits, const char *top, const char **why)
{
        char buf[2048];
        snprintf(buf, sizeof(buf),
                 "{\"cdiVersion\": \"1.1.0\", \"kind\": \"%s\", %s \"devices\": [{\"name\": \"%s\", "
                 "\"containerEdits\": {\"env\": [\"A=1\"] %s}}]}",
                 kind, top, name, edits);
        json_error_t e;
        json_t *j = json_loads(buf, 0, &e);
        assert_non_null(j);
        int v = ctk_cdi_min_version(j, why);
        json_decref(j);
        return v;
}

static const char *vname(int i)
{
        return ctk_cdi_versions[i];
}

static void test_version_index(void **state)
{
        (void)state;
        assert_int_equal(ctk_cdi_version_index("0.3.0"), 2);
        assert_int_equal(ctk_cdi_version_index("v0.5.0"), 4);
        assert_int_equal(ctk_cdi_version_index("1.1.0"), 9);
        assert_int_equal(ctk_cdi_version_index("1.2.0"), -1);
        assert_int_equal(ctk_cdi_version_index("0.5"), -1);
        assert_int_equal(ctk_cdi_version_index(" 0.5.0"), -1);
        assert_int_equal(ctk_cdi_version_index(""), -1);
        assert_int_equal(ctk_cdi_version_index(NULL), -1);
}

static void test_default_is_030(void **state)
{
        (void)state;
        const char *why = "x";
        assert_string_equal(vname(min_of("a.com/gpu", "dev", "", "", &why)), "0.3.0");
        assert_null(why);
}

static void test_mount_type_040(void **state)
{
        (void)state;
        const char *why = NULL;
        assert_string_equal(
            vname(min_of("a.com/gpu", "dev",
                         ",\"mounts\":[{\"hostPath\":\"/a\",\"containerPath\":\"/a\",\"type\":\"\"}]", "", NULL)),
            "0.3.0");
        assert_string_equal(
            vname(min_of("a.com/gpu", "dev",
                         ",\"mounts\":[{\"hostPath\":\"/a\",\"containerPath\":\"/a\",\"type\":\"bind\"}]", "", &why)),
            "0.4.0");
        assert_string_equal(why, "a mount with a type");
        /* spec-level edits count too */
        assert_string_equal(
            vname(min_of(
                "a.com/gpu", "dev", "",
                "\"containerEdits\":{\"mounts\":[{\"hostPath\":\"/a\",\"containerPath\":\"/a\",\"type\":\"bind\"}]},",
                NULL)),
            "0.4.0");
}

static void test_digit_name_050(void **state)
{
        (void)state;
        const char *why = NULL;
        assert_string_equal(vname(min_of("a.com/gpu", "gpu0", "", "", NULL)), "0.3.0");
        assert_string_equal(vname(min_of("a.com/gpu", "0", "", "", &why)), "0.5.0");
        assert_string_equal(why, "a device name that does not start with a letter");
}

static void test_host_path_050(void **state)
{
        (void)state;
        assert_string_equal(
            vname(min_of("a.com/gpu", "dev", ",\"deviceNodes\":[{\"path\":\"/dev/x\",\"hostPath\":\"\"}]", "", NULL)),
            "0.3.0");
        assert_string_equal(
            vname(min_of("a.com/gpu", "dev", ",\"deviceNodes\":[{\"path\":\"/dev/x\",\"hostPath\":\"/r/dev/x\"}]", "",
                         NULL)),
            "0.5.0");
}

static void test_annotations_060(void **state)
{
        (void)state;
        assert_string_equal(vname(min_of("a.com/gpu", "dev", "", "\"annotations\":{},", NULL)), "0.3.0");
        assert_string_equal(vname(min_of("a.com/gpu", "dev", "", "\"annotations\":{\"a.com/x\":\"y\"},", NULL)),
                            "0.6.0");
}

static void test_device_annotations_060(void **state)
{
        (void)state;
        json_t *j = json_loads("{\"kind\":\"a.com/gpu\",\"devices\":[{\"name\":\"d\",\"annotations\":{\"k\":\"v\"},"
                               "\"containerEdits\":{\"env\":[\"A=1\"]}}]}",
                               0, NULL);
        assert_string_equal(vname(ctk_cdi_min_version(j, NULL)), "0.6.0");
        json_object_set_new(json_array_get(json_object_get(j, "devices"), 0), "annotations", json_object());
        assert_string_equal(vname(ctk_cdi_min_version(j, NULL)), "0.3.0");
        json_decref(j);
}

static void test_dotted_class_060(void **state)
{
        (void)state;
        assert_string_equal(vname(min_of("vendor.com/gpu", "dev", "", "", NULL)), "0.3.0");
        assert_string_equal(vname(min_of("vendor.com/gpu.x", "dev", "", "", NULL)), "0.6.0");
        /* no vendor: the kind is invalid anyway and the class is not looked at */
        assert_string_equal(vname(min_of("/gpu.x", "dev", "", "", NULL)), "0.3.0");
}

static void test_intel_rdt_070(void **state)
{
        (void)state;
        assert_string_equal(vname(min_of("a.com/gpu", "dev", ",\"intelRdt\":null", "", NULL)), "0.3.0");
        assert_string_equal(vname(min_of("a.com/gpu", "dev", ",\"intelRdt\":{\"closID\":\"c\"}", "", NULL)), "0.7.0");
}

static void test_additional_gids_070(void **state)
{
        (void)state;
        const char *why = NULL;
        assert_string_equal(vname(min_of("a.com/gpu", "dev", ",\"additionalGids\":[]", "", NULL)), "0.3.0");
        assert_string_equal(vname(min_of("a.com/gpu", "dev", ",\"additionalGids\":[44]", "", &why)), "0.7.0");
        assert_string_equal(why, "additionalGids");
        assert_string_equal(
            vname(min_of("a.com/gpu", "dev", "", "\"containerEdits\":{\"additionalGids\":[44]},", NULL)), "0.7.0");
}

static void test_net_devices_110(void **state)
{
        (void)state;
        assert_string_equal(vname(min_of("a.com/gpu", "dev", ",\"netDevices\":[]", "", NULL)), "0.3.0");
        assert_string_equal(vname(min_of("a.com/gpu", "dev",
                                         ",\"netDevices\":[{\"hostInterfaceName\":\"e\",\"name\":\"n\"}]", "", NULL)),
                            "1.1.0");
}

static void test_rdt_schemata_monitoring_110(void **state)
{
        (void)state;
        assert_string_equal(vname(min_of("a.com/gpu", "dev", ",\"intelRdt\":{\"enableMonitoring\":false}", "", NULL)),
                            "0.7.0");
        assert_string_equal(vname(min_of("a.com/gpu", "dev", ",\"intelRdt\":{\"enableMonitoring\":true}", "", NULL)),
                            "1.1.0");
        assert_string_equal(vname(min_of("a.com/gpu", "dev", ",\"intelRdt\":{\"schemata\":null}", "", NULL)), "0.7.0");
        assert_string_equal(vname(min_of("a.com/gpu", "dev", ",\"intelRdt\":{\"schemata\":[]}", "", NULL)), "1.1.0");
}

static void test_highest_wins(void **state)
{
        (void)state;
        const char *why = NULL;
        assert_string_equal(vname(min_of("a.com/gpu", "0", ",\"additionalGids\":[44]", "", &why)), "0.7.0");
        assert_string_equal(why, "additionalGids");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_version_index),          cmocka_unit_test(test_default_is_030),
            cmocka_unit_test(test_mount_type_040),         cmocka_unit_test(test_digit_name_050),
            cmocka_unit_test(test_host_path_050),          cmocka_unit_test(test_annotations_060),
            cmocka_unit_test(test_device_annotations_060), cmocka_unit_test(test_dotted_class_060),
            cmocka_unit_test(test_intel_rdt_070),          cmocka_unit_test(test_additional_gids_070),
            cmocka_unit_test(test_net_devices_110),        cmocka_unit_test(test_rdt_schemata_monitoring_110),
            cmocka_unit_test(test_highest_wins),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
