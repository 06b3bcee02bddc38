/* JSON text writing: the escaping rules each option selects. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/json/text.h"

/* Every byte 0x01..0xff, then a NUL inside the string. */
static const char all_bytes[] = "\x01\x02\x03\x04\x05\x06\x07\x08\t\n\x0b\x0c\r\x0e\x0f\x10\x1b\x1f \"/\\\x7f"
                                "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xff\xc3\x28\xed\xa0\x80\xf4\x90\x80\x80\xe2\x82";

/* The len bytes at s quoted with flags give want. */
static void expect(const char *s, size_t len, unsigned int flags, const char *want)
{
        struct ctk_json_out o = {0};
        ctk_json_out_quote(&o, s, len, flags);
        char *p = ctk_json_out_finish(&o, NULL);
        assert_non_null(p);
        assert_string_equal(p, want);
        free(p);
}

/* all_bytes under each set of rules: jansson's (json_dumps); runc's log
 * (short escapes, lower-case hex); bytes of 0x7f and above stay as they are. */
static void test_rules(void **state)
{
        (void)state;
        static const struct {
                unsigned int flags;
                const char *want;
        } cases[] = {
            {CTK_JSON_ESC_JANSSON, "\"\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000B\\f\\r\\u000E"
                                   "\\u000F\\u0010\\u001B\\u001F \\\"/\\\\\x7f\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"
                                   "\xff\xc3\x28\xed\xa0\x80\xf4\x90\x80\x80\xe2\x82\""},
            {CTK_JSON_ESC_SHORT, "\"\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000b\\f\\r\\u000e"
                                 "\\u000f\\u0010\\u001b\\u001f \\\"/\\\\\x7f\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"
                                 "\xff\xc3\x28\xed\xa0\x80\xf4\x90\x80\x80\xe2\x82\""},
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
                expect(all_bytes, sizeof(all_bytes) - 1, cases[i].flags, cases[i].want);
        expect("a\0b", 3, CTK_JSON_ESC_JANSSON, "\"a\\u0000b\"");
}

static void test_buffer(void **state)
{
        (void)state;
        struct ctk_json_out o = {0};
        for (int i = 0; i < 3000; i++) {
                ctk_json_out_putc(&o, '[');
                ctk_json_out_uint(&o, (unsigned long long)i * 1000003ULL);
                ctk_json_out_puts(&o, "]");
        }
        ctk_json_out_uint(&o, 18446744073709551615ULL);
        size_t len = 0;
        char *p = ctk_json_out_finish(&o, &len);
        assert_non_null(p);
        assert_int_equal(len, strlen(p));
        assert_memory_equal(p, "[0][1000003][2000006]", 21);
        assert_string_equal(p + len - 20, "18446744073709551615");
        free(p);

        struct ctk_json_out f = {.failed = true};
        ctk_json_out_puts(&f, "x");
        assert_null(ctk_json_out_finish(&f, NULL));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_rules),
            cmocka_unit_test(test_buffer),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
