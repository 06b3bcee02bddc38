/* The error convention: the first cause wins, context is prepended, and a
 * message is one line whatever it quotes (found by fuzzing: a profile key
 * with a newline in it made a two-line error). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/base/error.h"
#include "core/base/format.h"

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

static char *format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *format(const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        char *s = ctk_vformat(fmt, ap);
        va_end(ap);
        return s;
}

static void expect_format(const char *got, const char *want)
{
        if (got == NULL || strcmp(got, want) != 0)
                fail_msg("got \"%s\", want \"%s\"", got != NULL ? got : "(null)", want);
}

/* A value longer than CTK_VALUE_MAX: its first 200 bytes, then its length. */
static void test_format_cuts_values(void **state)
{
        (void)state;
        size_t n = 1 << 20;
        char *big = malloc(n + 1);
        assert_non_null(big);
        memset(big, '7', n);
        big[n] = '\0';
        char *s = format("token '%s' is bad (%d)", CTK_CUT(big), 3);
        char want[512];
        (void)snprintf(want, sizeof(want), "token '%.200s... (1048576 bytes)' is bad (3)", big);
        expect_format(s, want);
        free(s);
        /* CTK_CUTN: the length is the one given */
        s = format("[%s]", CTK_CUTN(big, 300));
        (void)snprintf(want, sizeof(want), "[%.200s... (300 bytes)]", big);
        expect_format(s, want);
        free(s);
        /* exactly the limit: whole */
        s = format("[%s]", CTK_CUTN(big, CTK_VALUE_MAX));
        (void)snprintf(want, sizeof(want), "[%.200s]", big);
        expect_format(s, want);
        free(s);
        /* never half a UTF-8 character: 199 bytes, then a 2-byte one across the cut */
        memset(big, 'a', 199);
        memcpy(big + 199, "\xc3\xa9", 2);
        big[201] = '\0';
        s = format("%s", CTK_CUT(big));
        (void)snprintf(want, sizeof(want), "%.199s... (201 bytes)", big);
        expect_format(s, want);
        free(s);
        free(big);
        /* short strings are shown as they are (no copy); up to a NUL; NULL */
        const char *word = "word";
        assert_ptr_equal(CTK_CUT(word), word);
        assert_string_equal(CTK_CUTN("ab\0cd", 5), "ab");
        assert_string_equal(CTK_CUTN("abcd", 2), "ab");
        assert_string_equal(CTK_CUT(NULL), "(null)");
}

/* Errors cut the values they quote; a message taken whole is not cut. */
static void test_error_values_cut(void **state)
{
        (void)state;
        char big[1000];
        memset(big, 'x', sizeof(big) - 1);
        big[sizeof(big) - 1] = '\0';
        struct ctk_error *err = NULL;
        ctk_error_set(&err, EINVAL, "GPU %s does not exist", CTK_CUT(big));
        assert_int_equal(strlen(err->msg),
                         strlen("GPU ") + 200 + strlen("... (999 bytes)") + strlen(" does not exist"));
        ctk_error_free(err);
        err = NULL;
        ctk_error_set_msg(&err, EINVAL, big);
        assert_string_equal(err->msg, big);
        ctk_error_prepend(&err, "<%s", "a");
        ctk_error_suffix(&err, ">%s", "b");
        ctk_error_prefix(&err, "ctx");
        assert_int_equal(strncmp(err->msg, "ctx: <a", 7), 0);
        assert_int_equal(strlen(err->msg), strlen("ctx: <a") + 999 + strlen(">b"));
        ctk_error_free(err);
        err = NULL;
        ctk_error_set_msg(&err, EINVAL, "two\nlines");
        assert_string_equal(err->msg, "two\\nlines");
        ctk_error_free(err);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_first_cause_wins),
            cmocka_unit_test(test_one_line),
            cmocka_unit_test(test_format_cuts_values),
            cmocka_unit_test(test_error_values_cut),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
