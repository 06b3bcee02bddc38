/* UUID parse/format corners. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/device/gpu.h"

static void test_format(void **state)
{
        (void)state;
        char buf[CTK_UUID_STRLEN];
        ctk_uuid_format(0xEA35F57CC80DEB35ULL, buf);
        assert_string_equal(buf, "0xEA35F57CC80DEB35");
        ctk_uuid_format(0x12FE4F7FDAF06B9ULL, buf); /* 15 digits, not padded */
        assert_string_equal(buf, "0x12FE4F7FDAF06B9");
        ctk_uuid_format(0, buf);
        assert_string_equal(buf, "0x0");
        ctk_uuid_format(UINT64_MAX, buf);
        assert_string_equal(buf, "0xFFFFFFFFFFFFFFFF");
        assert_int_equal(strlen(buf) + 1, CTK_UUID_STRLEN);
}

static void test_parse_accepts(void **state)
{
        (void)state;
        const char *same[] = {"0x12FE4F7FDAF06B9", "0x12fe4f7fdaf06b9",  "0X12Fe4f7FDAF06b9",         "12FE4F7FDAF06B9",
                              "012FE4F7FDAF06B9",  "0x012FE4F7FDAF06B9", "0x00000000012fe4f7fdaf06b9"};
        for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
                uint64_t v = 0;
                assert_int_equal(ctk_uuid_parse(same[i], &v), 0);
                assert_true(v == 0x12FE4F7FDAF06B9ULL);
        }
        uint64_t v = 1;
        assert_int_equal(ctk_uuid_parse("0x0", &v), 0);
        assert_true(v == 0);
        assert_int_equal(ctk_uuid_parse("000", &v), 0);
        assert_true(v == 0);
        assert_int_equal(ctk_uuid_parse("0xFFFFFFFFFFFFFFFF", &v), 0);
        assert_true(v == UINT64_MAX);
        assert_int_equal(ctk_uuid_parse("1", &v), 0); /* bare hex; the selection grammar decides index vs UUID */
        assert_true(v == 1);
}

static void test_parse_rejects(void **state)
{
        (void)state;
        const char *bad[] = {"",
                             "0x",
                             "0X",
                             "x12",
                             "0x12G",
                             " 0x12",
                             "0x12 ",
                             "-0x1",
                             "+1",
                             "0x-1",
                             "0x0x1",
                             "1-2",
                             "0x1FFFFFFFFFFFFFFFF",
                             "10000000000000000",
                             "12,13",
                             "\t1",
                             "ghijkl",
                             "0xfe\n"};
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                uint64_t v = 42;
                if (ctk_uuid_parse(bad[i], &v) != -1)
                        fail_msg("'%s' accepted", bad[i]);
                assert_true(v == 42);
        }
        uint64_t v;
        assert_int_equal(ctk_uuid_parse(NULL, &v), -1);
}

static void test_round_trip(void **state)
{
        (void)state;
        const uint64_t ids[] = {0xEA35F57CC80DEB35ULL, 0x89CAA15875FF5A43ULL,   0x6E32F10EFC982B4CULL,
                                0x12FE4F7FDAF06B9ULL,  16404946649897475633ULL, 1};
        for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
                char buf[CTK_UUID_STRLEN];
                uint64_t v = 0;
                ctk_uuid_format(ids[i], buf);
                assert_int_equal(ctk_uuid_parse(buf, &v), 0);
                assert_true(v == ids[i]);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_format),
            cmocka_unit_test(test_parse_accepts),
            cmocka_unit_test(test_parse_rejects),
            cmocka_unit_test(test_round_trip),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
