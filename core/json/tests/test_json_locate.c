/* Finding where a value starts in JSON text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/json/locate.h"

static const char *text = "{\n"
                          "  \"a\": 1,\n"
                          "  \"b\": {\"c\": [10, {\"d\": \"x\"}, [1, 2]]},\n"
                          "  \"e\\u0066\": \"key with an escape\",\n"
                          "  \"Mixed\": {\"n\": null}\n"
                          "}\n";

static void at(const struct ctk_json_step *path, size_t depth, int line, int col)
{
        struct ctk_json_pos pos = {0};
        assert_int_equal(ctk_json_locate(text, strlen(text), path, depth, &pos), 0);
        assert_int_equal(pos.line, line);
        assert_int_equal(pos.column, col);
}

static void missing(const struct ctk_json_step *path, size_t depth)
{
        struct ctk_json_pos pos = {0};
        assert_int_equal(ctk_json_locate(text, strlen(text), path, depth, &pos), -1);
}

static void test_root_and_members(void **state)
{
        (void)state;
        at(NULL, 0, 1, 1);
        at((struct ctk_json_step[]){{"a", 0}}, 1, 2, 3);
        at((struct ctk_json_step[]){{"b", 0}, {"c", 0}}, 2, 3, 9);
}

static void test_elements(void **state)
{
        (void)state;
        at((struct ctk_json_step[]){{"b", 0}, {"c", 0}, {NULL, 0}}, 3, 3, 15);
        at((struct ctk_json_step[]){{"b", 0}, {"c", 0}, {NULL, 1}, {"d", 0}}, 4, 3, 20);
        at((struct ctk_json_step[]){{"b", 0}, {"c", 0}, {NULL, 2}, {NULL, 1}}, 4, 3, 35);
}

static void test_escaped_key(void **state)
{
        (void)state;
        at((struct ctk_json_step[]){{"ef", 0}}, 1, 4, 3);
}

static void test_case_fold_fallback(void **state)
{
        (void)state;
        at((struct ctk_json_step[]){{"mixed", 0}, {"n", 0}}, 2, 5, 13);
        missing((struct ctk_json_step[]){{"mixed", 0}, {"N2", 0}}, 2);
}

static void test_not_found(void **state)
{
        (void)state;
        missing((struct ctk_json_step[]){{"zz", 0}}, 1);
        missing((struct ctk_json_step[]){{"b", 0}, {"c", 0}, {NULL, 3}}, 3);
        missing((struct ctk_json_step[]){{NULL, 0}}, 1); /* the root is not an array */
        missing((struct ctk_json_step[]){{"a", 0}, {"x", 0}}, 2);
}

static void test_bad_text(void **state)
{
        (void)state;
        struct ctk_json_pos pos;
        const char *bad = "{\"a\": [1, 2";
        assert_int_equal(ctk_json_locate(bad, strlen(bad), (struct ctk_json_step[]){{"a", 0}, {NULL, 5}}, 2, &pos), -1);
        assert_int_equal(ctk_json_locate("", 0, NULL, 0, &pos), -1);
        assert_int_equal(ctk_json_locate(NULL, 0, NULL, 0, &pos), -1);
        const char *unterminated = "{\"a";
        assert_int_equal(
            ctk_json_locate(unterminated, strlen(unterminated), (struct ctk_json_step[]){{"b", 0}}, 1, &pos), -1);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_root_and_members), cmocka_unit_test(test_elements),
            cmocka_unit_test(test_escaped_key),      cmocka_unit_test(test_case_fold_fallback),
            cmocka_unit_test(test_not_found),        cmocka_unit_test(test_bad_text),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
