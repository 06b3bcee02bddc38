/* jansson conveniences: the type names messages use, strings of any bytes, blank text. */
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

/* Bytes that are not UTF-8 (overlong, surrogates, above U+10FFFF, cut
 * short) become one U+FFFD each; the rest stays, controls included. */
static void test_string_lossy(void **state)
{
        (void)state;
        static const struct {
                const char *in, *want;
        } cases[] = {
            {"plain \x01\n\x7f\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80",
             "plain \x01\n\x7f\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"},
            {"\xff\xc3\x28\xed\xa0\x80\xf4\x90\x80\x80\xe2\x82",
             "\xef\xbf\xbd\xef\xbf\xbd("
             "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
             "\xef\xbf\xbd\xef\xbf\xbd"},
            {"\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd"},
            {"", ""},
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                json_t *v = ctk_json_string_lossy(cases[i].in);
                assert_non_null(v);
                assert_string_equal(json_string_value(v), cases[i].want);
                json_decref(v);
        }
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
            cmocka_unit_test(test_string_lossy),
            cmocka_unit_test(test_blank_text),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
