/* jansson conveniences: the type names messages use, blank text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "core/json/util.h"

static void test_json_type_names(void **state)
{
        (void)state;
        json_t *i = json_integer(1), *r = json_real(1.5), *o = json_object(), *n = json_null();
        assert_string_equal(ctk_json_type_name(i), "a number");
        assert_string_equal(ctk_json_type_name(r), "a number");
        assert_string_equal(ctk_json_type_name_exact(i), "an integer");
        assert_string_equal(ctk_json_type_name_exact(r), "a number with a fraction or exponent");
        assert_string_equal(ctk_json_type_name_exact(o), "an object");
        assert_string_equal(ctk_json_type_name_exact(n), "null");
        json_decref(i);
        json_decref(r);
        json_decref(o);
        json_decref(n);
}

static void test_blank_text(void **state)
{
        (void)state;
        assert_true(ctk_json_text_is_blank("", 0));
        assert_true(ctk_json_text_is_blank(" \t\r\n", 4));
        assert_false(ctk_json_text_is_blank(" {}", 3));
        assert_false(ctk_json_text_is_blank("\v", 1)); /* not JSON whitespace */
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_json_type_names),
            cmocka_unit_test(test_blank_text),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
