/* The error convention: the first cause wins, context is prepended, and a
 * message is one line whatever it quotes (found by fuzzing: a profile key
 * with a newline in it made a two-line error). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/base/error.h"

static void test_first_cause_wins(void **state)
{
        (void)state;
        struct ctk_error *err = NULL;
        assert_int_equal(ctk_error_set(&err, ENOENT, "missing %s", "x"), -1);
        assert_int_equal(ctk_error_set(&err, EIO, "later"), -1);
        assert_int_equal(err->code, ENOENT);
        assert_int_equal(ctk_error_prefix(&err, "reading %d", 3), -1);
        assert_string_equal(err->msg, "reading 3: missing x");
        ctk_error_free(err);
        assert_int_equal(ctk_error_set(NULL, EIO, "nowhere"), -1); /* no error wanted */
}

static void test_one_line(void **state)
{
        (void)state;
        struct ctk_error *err = NULL;
        ctk_error_set(&err, EINVAL, "key \"%s\" is bad", "v\nen\tdor\r\x01\x7f");
        assert_string_equal(err->msg, "key \"v\\nen\\tdor\\r\\x01\\x7f\" is bad");
        ctk_error_prefix(&err, "file\n%s", "x");
        assert_string_equal(err->msg, "file\\nx: key \"v\\nen\\tdor\\r\\x01\\x7f\" is bad");
        ctk_error_free(err);
        err = NULL;
        ctk_error_errno(&err, ENOENT, "open %s", "a\nb");
        assert_string_equal(err->msg, "open a\\nb: No such file or directory");
        ctk_error_free(err);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_first_cause_wins),
            cmocka_unit_test(test_one_line),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
