/* String vectors and concatenation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/base/cleanup.h"
#include "core/base/strv.h"

static void test_concat(void **state)
{
        (void)state;
        _cleanup_free_ char *a = ctk_str_concat("/sys/devices/platform", "/", "amdgpu_xcp_1");
        assert_string_equal(a, "/sys/devices/platform/amdgpu_xcp_1");
        _cleanup_free_ char *b = ctk_str_concat("/dev/dri/", "renderD128", NULL);
        assert_string_equal(b, "/dev/dri/renderD128");
        _cleanup_free_ char *c = ctk_str_concat("", "", "");
        assert_string_equal(c, "");
}

static void test_sorted_vector(void **state)
{
        (void)state;
        _cleanup_strv_ struct ctk_strv v = {0};
        assert_int_equal(ctk_strv_push(&v, "b"), 0);
        assert_int_equal(ctk_strv_push_take(&v, strdup("a")), 0);
        ctk_strv_sort(&v);
        assert_int_equal(v.n, 2);
        assert_string_equal(v.v[0], "a");
        assert_null(v.v[2]);
        assert_true(ctk_strv_contains(&v, "b"));
        assert_false(ctk_strv_contains(&v, "c"));
}

/* Short and long vectors (two sorting strategies) end up in strcmp order. */
static void test_sort_sizes(void **state)
{
        (void)state;
        for (size_t n = 0; n < 40; n++) {
                _cleanup_strv_ struct ctk_strv v = {0};
                for (size_t i = 0; i < n; i++) {
                        char name[16];
                        snprintf(name, sizeof(name), "n%zu", (i * 7919) % (n + 3)); /* scrambled, with repeats */
                        assert_int_equal(ctk_strv_push(&v, name), 0);
                }
                ctk_strv_sort(&v);
                assert_int_equal(v.n, n);
                for (size_t i = 1; i < v.n; i++)
                        assert_true(strcmp(v.v[i - 1], v.v[i]) <= 0);
        }
}

static void test_equal(void **state)
{
        (void)state;
        _cleanup_strv_ struct ctk_strv a = {0}, b = {0}, none = {0};
        assert_true(ctk_strv_equal(&none, &a));
        assert_int_equal(ctk_strv_push(&a, "x"), 0);
        assert_int_equal(ctk_strv_push(&a, "y"), 0);
        assert_false(ctk_strv_equal(&a, &none));
        assert_int_equal(ctk_strv_push(&b, "x"), 0);
        assert_false(ctk_strv_equal(&a, &b));
        assert_int_equal(ctk_strv_push(&b, "z"), 0);
        assert_false(ctk_strv_equal(&a, &b));
        free(b.v[1]);
        b.v[1] = strdup("y");
        assert_non_null(b.v[1]);
        assert_true(ctk_strv_equal(&a, &b));
}

static void test_trim(void **state)
{
        (void)state;
        const char *s = " \t a b\r\n";
        size_t len = strlen(s);
        const char *t = ctk_str_trim(s, &len);
        assert_int_equal(len, 3);
        assert_memory_equal(t, "a b", 3);
        len = 3;
        t = ctk_str_trim(" \f\v", &len);
        assert_non_null(t);
        assert_int_equal(len, 0);
        /* only the first len bytes count */
        len = 2;
        t = ctk_str_trim("x   y", &len);
        assert_int_equal(len, 1);
        assert_int_equal(t[0], 'x');
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_concat), cmocka_unit_test(test_sorted_vector), cmocka_unit_test(test_sort_sizes),
            cmocka_unit_test(test_trim),   cmocka_unit_test(test_equal),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
