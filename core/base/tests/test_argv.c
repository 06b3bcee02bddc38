/* Command-line scanning shared by the two CLIs, and the small shared
 * helpers used by them (strv join). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "core/base/argv.h"
#include "core/base/strv.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])) - 1)

static void test_wants_help(void **state)
{
        (void)state;
        char *a[] = {"cmd", "x", "--help", NULL};
        assert_true(ctk_argv_wants_help(ARGC(a), a));
        char *b[] = {"cmd", "-h", NULL};
        assert_true(ctk_argv_wants_help(ARGC(b), b));
        char *c[] = {"cmd", "--", "--help", NULL};
        assert_false(ctk_argv_wants_help(ARGC(c), c));
        char *d[] = {"-h", "x", NULL}; /* argv[0] is not an option */
        assert_false(ctk_argv_wants_help(ARGC(d), d));
        char *e[] = {"cmd", "--helpx", NULL};
        assert_false(ctk_argv_wants_help(ARGC(e), e));
}

static void test_option_value(void **state)
{
        (void)state;
        char *a[] = {"cmd", "--root", "/r", "--root=/s", "--rooted", "-o", "f", "-o=g", "--name", NULL};
        int n = ARGC(a), i = 1;
        bool missing = false;
        assert_string_equal(ctk_argv_option_value(n, a, &i, "--root", &missing), "/r");
        assert_int_equal(i, 2);
        i = 3;
        assert_string_equal(ctk_argv_option_value(n, a, &i, "--root", &missing), "/s");
        assert_int_equal(i, 3);
        i = 4;
        assert_null(ctk_argv_option_value(n, a, &i, "--root", &missing));
        assert_false(missing);
        i = 5;
        assert_string_equal(ctk_argv_option_value(n, a, &i, "-o", &missing), "f");
        assert_int_equal(i, 6);
        i = 7; /* "=" only after long options */
        assert_null(ctk_argv_option_value(n, a, &i, "-o", &missing));
        assert_false(missing);
        i = 8;
        assert_null(ctk_argv_option_value(n, a, &i, "--name", &missing));
        assert_true(missing);
        assert_int_equal(i, 8);
}

static void test_strv_join(void **state)
{
        (void)state;
        struct ctk_strv s = {0};
        char *j = ctk_strv_join(&s, ", ");
        assert_string_equal(j, "");
        free(j);
        assert_int_equal(ctk_strv_push(&s, "SPX"), 0);
        j = ctk_strv_join(&s, ", ");
        assert_string_equal(j, "SPX");
        free(j);
        assert_int_equal(ctk_strv_push(&s, "DPX"), 0);
        assert_int_equal(ctk_strv_push(&s, ""), 0);
        assert_int_equal(ctk_strv_push(&s, "CPX"), 0);
        j = ctk_strv_join(&s, ", ");
        assert_string_equal(j, "SPX, DPX, , CPX");
        free(j);
        ctk_strv_clear(&s);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_wants_help),
            cmocka_unit_test(test_option_value),
            cmocka_unit_test(test_strv_join),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
