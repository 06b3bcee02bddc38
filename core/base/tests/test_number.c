/* Strict decimal/hex parsing with range checks. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/base/number.h"

static int dec(const char *s, uint64_t max, uint64_t *v)
{
        return ctk_parse_u64_dec(s, strlen(s), max, v);
}
static int hex(const char *s, int prefix, uint64_t max, uint64_t *v)
{
        return ctk_parse_u64_hex(s, strlen(s), prefix, max, v);
}

static void test_decimal(void **state)
{
        (void)state;
        uint64_t v = 7;
        assert_int_equal(dec("0", UINT64_MAX, &v), 0);
        assert_int_equal(v, 0);
        assert_int_equal(dec("18446744073709551615", UINT64_MAX, &v), 0);
        assert_true(v == UINT64_MAX);
        assert_int_equal(dec("18446744073709551616", UINT64_MAX, &v), -ERANGE);
        assert_int_equal(dec("99999999999999999999999", UINT64_MAX, &v), -ERANGE);
        assert_int_equal(dec("0123", UINT64_MAX, &v), 0); /* leading zeros are decimal, not octal */
        assert_int_equal(v, 123);
        assert_int_equal(dec("09", UINT64_MAX, &v), 0);
        assert_int_equal(v, 9);
        assert_int_equal(dec("2147483648", INT32_MAX, &v), -ERANGE);
        assert_int_equal(dec("2147483647", INT32_MAX, &v), 0);
        v = 5;
        assert_int_equal(dec("", UINT64_MAX, &v), -EINVAL);
        assert_int_equal(dec("+1", UINT64_MAX, &v), -EINVAL);
        assert_int_equal(dec("-1", UINT64_MAX, &v), -EINVAL);
        assert_int_equal(dec(" 1", UINT64_MAX, &v), -EINVAL);
        assert_int_equal(dec("1 ", UINT64_MAX, &v), -EINVAL);
        assert_int_equal(dec("0x10", UINT64_MAX, &v), -EINVAL);
        assert_int_equal(dec("12abc", UINT64_MAX, &v), -EINVAL);
        assert_int_equal(v, 5);                                            /* untouched on failure */
        assert_int_equal(ctk_parse_u64_dec("1234", 2, UINT64_MAX, &v), 0); /* length-bounded */
        assert_int_equal(v, 12);
}

static void test_hex(void **state)
{
        (void)state;
        uint64_t v = 0;
        assert_int_equal(hex("0x1002", 1, UINT64_MAX, &v), 0);
        assert_int_equal(v, 0x1002);
        assert_int_equal(hex("0X038000", 1, 0xffffff, &v), 0);
        assert_int_equal(v, 0x038000);
        assert_int_equal(hex("740F", 0, 0xffff, &v), 0);
        assert_int_equal(v, 0x740f);
        assert_int_equal(hex("0x740f", 0, UINT64_MAX, &v), -EINVAL);
        assert_int_equal(hex("0x", 1, UINT64_MAX, &v), -EINVAL);
        assert_int_equal(hex("", 1, UINT64_MAX, &v), -EINVAL);
        assert_int_equal(hex("0xg", 1, UINT64_MAX, &v), -EINVAL);
        assert_int_equal(hex("0x10000", 1, 0xffff, &v), -ERANGE);
        assert_int_equal(hex("ffffffffffffffff", 0, UINT64_MAX, &v), 0);
        assert_true(v == UINT64_MAX);
        assert_int_equal(hex("1ffffffffffffffff", 0, UINT64_MAX, &v), -ERANGE);
        assert_int_equal(hex("00000000000000000001", 0, UINT64_MAX, &v), 0);
        assert_int_equal(v, 1);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_decimal),
            cmocka_unit_test(test_hex),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
