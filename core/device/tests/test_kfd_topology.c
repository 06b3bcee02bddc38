/* KFD topology properties parsing: CRLF, missing keys, number rules. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/base/base.h"
#include "core/device/kfd_topology.h"

#define PATH "/sys/class/kfd/kfd/topology/nodes/2/properties"

static int parse(const char *text, struct ctk_kfd_props *p, struct ctk_error **err)
{
        return ctk_kfd_props_parse(text, strlen(text), PATH, p, err);
}

static void test_real_node(void **state)
{
        (void)state;
        const char *text = "cpu_cores_count 0\n"
                           "simd_count 152\n"
                           "vendor_id 4098\n"
                           "device_id 29857\n"
                           "location_id 9991\n"
                           "domain 0\n"
                           "drm_render_minor 143\n"
                           "hive_id 15188982192727901047\n"
                           "unique_id 2472748907779728154\n"
                           "num_xcc 1\n";
        struct ctk_kfd_props p;
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(parse(text, &p, &err), 0);
        assert_true(p.has_render_minor && p.has_location_id && p.has_domain && p.has_unique_id);
        assert_int_equal(p.render_minor, 143);
        assert_int_equal(p.location_id, 9991);
        assert_int_equal(ctk_kfd_location_bus(p.location_id), 0x27);
        assert_int_equal(ctk_kfd_location_dev(p.location_id), 0);
        assert_int_equal(p.domain, 0);
        assert_true(p.unique_id == 2472748907779728154ULL);
}

static void test_crlf_and_spacing(void **state)
{
        (void)state;
        const char *text = "drm_render_minor 128\r\nunique_id 1\r\nlocation_id\t1280\r\n  domain   0  \r\n";
        struct ctk_kfd_props p;
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(parse(text, &p, &err), 0);
        assert_int_equal(p.render_minor, 128);
        assert_true(p.unique_id == 1);
        assert_int_equal(p.location_id, 1280);
        assert_true(p.has_domain);
        assert_int_equal(p.domain, 0);
        /* no final newline, CRLF only on some lines */
        assert_int_equal(parse("unique_id 18446744073709551615\ndrm_render_minor 129\r", &p, &err), 0);
        assert_true(p.unique_id == UINT64_MAX);
        assert_int_equal(p.render_minor, 129);
}

static void test_missing_keys(void **state)
{
        (void)state;
        struct ctk_kfd_props p;
        _cleanup_error_ struct ctk_error *err = NULL;
        /* a CPU node: no unique_id */
        assert_int_equal(parse("location_id 0\ndomain 0\ndrm_render_minor 0\n", &p, &err), 0);
        assert_true(p.has_render_minor && p.render_minor == 0);
        assert_false(p.has_unique_id);
        assert_int_equal(parse("", &p, &err), 0);
        assert_false(p.has_render_minor || p.has_location_id || p.has_domain || p.has_unique_id);
        /* keys must match whole: prefixes and longer names are other keys */
        assert_int_equal(parse("xdomain 5\ndomain_x 6\nunique_id_hi 7\n", &p, &err), 0);
        assert_false(p.has_domain || p.has_unique_id);
        /* a negative value is "absent" like in the Go toolkit */
        assert_int_equal(parse("drm_render_minor -1\nunique_id 3\n", &p, &err), 0);
        assert_false(p.has_render_minor);
        assert_true(p.has_unique_id);
        assert_null(err);
}

static void test_first_line_wins(void **state)
{
        (void)state;
        struct ctk_kfd_props p;
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(parse("unique_id 5\nunique_id 6\nunique_id junk\n", &p, &err), 0);
        assert_true(p.unique_id == 5);
}

static void test_octal_looking_numbers_are_decimal(void **state)
{
        (void)state;
        struct ctk_kfd_props p;
        _cleanup_error_ struct ctk_error *err = NULL;
        /* The Go toolkit parses with base 0 (0123 -> 83, 09 -> error); the
         * kernel prints decimal, so leading zeros are read as decimal. */
        assert_int_equal(parse("drm_render_minor 0130\nlocation_id 0123\ndomain 09\nunique_id 007\n", &p, &err), 0);
        assert_int_equal(p.render_minor, 130);
        assert_int_equal(p.location_id, 123);
        assert_int_equal(p.domain, 9);
        assert_true(p.unique_id == 7);
}

static void expect_error(const char *text, int code, const char *key)
{
        struct ctk_kfd_props p;
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(parse(text, &p, &err), -1);
        assert_non_null(err);
        assert_int_equal(err->code, code);
        assert_non_null(strstr(err->msg, PATH));
        assert_non_null(strstr(err->msg, key));
}

static void test_bad_numbers(void **state)
{
        (void)state;
        expect_error("drm_render_minor 0x80\n", EINVAL, "drm_render_minor");
        expect_error("drm_render_minor 12abc\n", EINVAL, "drm_render_minor");
        expect_error("drm_render_minor 2147483648\n", ERANGE, "drm_render_minor");
        expect_error("location_id 4294967296\n", ERANGE, "location_id");
        expect_error("domain +1\n", EINVAL, "domain");
        expect_error("unique_id 18446744073709551616\n", ERANGE, "unique_id");
        expect_error("unique_id\n", EINVAL, "unique_id");
        expect_error("unique_id 1 2\n", EINVAL, "unique_id");
        /* keys we do not use are not validated */
        struct ctk_kfd_props p;
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(parse("hive_id nonsense\nfw_version -\n", &p, &err), 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_real_node),
            cmocka_unit_test(test_crlf_and_spacing),
            cmocka_unit_test(test_missing_keys),
            cmocka_unit_test(test_first_line_wins),
            cmocka_unit_test(test_octal_looking_numbers_are_decimal),
            cmocka_unit_test(test_bad_numbers),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
