/* The leveled log file: levels, line format, quoting, RFC 3339 times. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/base/cleanup.h"
#include "core/base/fileio.h"
#include "core/base/format.h"
#include "core/base/log.h"

static void test_level_parse(void **state)
{
        (void)state;
        enum ctk_log_level l;
        assert_int_equal(ctk_log_level_parse("error", &l), 0);
        assert_int_equal(l, CTK_LOG_ERROR);
        assert_int_equal(ctk_log_level_parse("WARNING", &l), 0);
        assert_int_equal(l, CTK_LOG_WARNING);
        assert_int_equal(ctk_log_level_parse("warn", &l), 0);
        assert_int_equal(l, CTK_LOG_WARNING);
        assert_int_equal(ctk_log_level_parse("info", &l), 0);
        assert_int_equal(l, CTK_LOG_INFO);
        assert_int_equal(ctk_log_level_parse("Debug", &l), 0);
        assert_int_equal(l, CTK_LOG_DEBUG);
        assert_int_equal(ctk_log_level_parse("verbose", &l), -1);
        assert_int_equal(ctk_log_level_parse("", &l), -1);
        assert_int_equal(ctk_log_level_parse(NULL, &l), -1);
        assert_string_equal(ctk_log_level_name(CTK_LOG_INFO), "INFO");
        assert_int_equal(ctk_log_level_or("debug", CTK_LOG_INFO), CTK_LOG_DEBUG);
        assert_int_equal(ctk_log_level_or("verbose", CTK_LOG_WARNING), CTK_LOG_WARNING);
        assert_int_equal(ctk_log_level_or(NULL, CTK_LOG_INFO), CTK_LOG_INFO);
}

static void with_tz(const char *tz)
{
        setenv("TZ", tz, 1);
        tzset();
}

static void test_rfc3339(void **state)
{
        (void)state;
        struct timespec ts = {.tv_sec = 1777389697, .tv_nsec = 123456789}; /* 2026-04-28T15:21:37Z */
        char buf[CTK_RFC3339_MAX];
        with_tz("UTC");
        ctk_format_rfc3339(&ts, false, buf);
        assert_string_equal(buf, "2026-04-28T15:21:37Z");
        ctk_format_rfc3339(&ts, true, buf);
        assert_string_equal(buf, "2026-04-28T15:21:37.123Z");
        with_tz("IST-5:30");
        ctk_format_rfc3339(&ts, true, buf);
        assert_string_equal(buf, "2026-04-28T20:51:37.123+05:30");
        with_tz("EST5");
        ctk_format_rfc3339(&ts, false, buf);
        assert_string_equal(buf, "2026-04-28T10:21:37-05:00");
        with_tz("UTC");
}

static void test_quote(void **state)
{
        (void)state;
        _cleanup_free_ char *a = ctk_log_quote("plain text");
        assert_string_equal(a, "\"plain text\"");
        _cleanup_free_ char *b = ctk_log_quote("say \"hi\"\\ now\nnext\tcol\r\x01\x7f");
        assert_string_equal(b, "\"say \\\"hi\\\"\\\\ now\\nnext\\tcol\\r\\x01\\x7f\"");
        _cleanup_free_ char *c = ctk_log_quote("");
        assert_string_equal(c, "\"\"");
        _cleanup_free_ char *d = ctk_log_quote("gpu ü");
        assert_string_equal(d, "\"gpu ü\"");
}

static void test_format_line(void **state)
{
        (void)state;
        with_tz("UTC");
        struct timespec ts = {.tv_sec = 1777389697, .tv_nsec = 5000000};
        _cleanup_free_ char *line =
            ctk_log_format_line(&ts, CTK_LOG_WARNING, 42, "amd-container-runtime", "GPU \"3\" busy");
        assert_string_equal(line, "time=2026-04-28T15:21:37.005Z level=WARNING pid=42 "
                                  "msg=\"amd-container-runtime GPU \\\"3\\\" busy\"\n");
        _cleanup_free_ char *noident = ctk_log_format_line(&ts, CTK_LOG_DEBUG, 1, NULL, "x");
        assert_string_equal(noident, "time=2026-04-28T15:21:37.005Z level=DEBUG pid=1 msg=\"x\"\n");
}

static void test_levels_and_file(void **state)
{
        (void)state;
        char path[] = "/tmp/ctk-log-XXXXXX";
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        close(fd);
        unlink(path);

        ctk_log_open("ident", path, CTK_LOG_INFO);
        assert_true(ctk_log_enabled(CTK_LOG_ERROR));
        assert_true(ctk_log_enabled(CTK_LOG_INFO));
        assert_false(ctk_log_enabled(CTK_LOG_DEBUG));
        ctk_log(CTK_LOG_INFO, "one %d", 1);
        ctk_log(CTK_LOG_DEBUG, "hidden");
        ctk_log(CTK_LOG_ERROR, "two");
        ctk_log_close();
        ctk_log(CTK_LOG_ERROR, "after close"); /* dropped, no crash */

        struct stat st;
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_mode & 0077 & ~0640, 0); /* never more than 0640 */
        _cleanup_free_ char *text = NULL;
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(ctk_file_read_all(path, &text, NULL, &err), 0);
        assert_non_null(strstr(text, "level=INFO"));
        assert_non_null(strstr(text, "msg=\"ident one 1\"\n"));
        assert_non_null(strstr(text, "level=ERROR"));
        assert_null(strstr(text, "hidden"));
        assert_null(strstr(text, "after close"));

        /* Appends. */
        ctk_log_open("ident", path, CTK_LOG_DEBUG);
        ctk_log(CTK_LOG_DEBUG, "three");
        ctk_log_close();
        _cleanup_free_ char *text2 = NULL;
        assert_int_equal(ctk_file_read_all(path, &text2, NULL, &err), 0);
        assert_non_null(strstr(text2, "ident one 1"));
        assert_non_null(strstr(text2, "ident three"));
        unlink(path);
}

/* A 1 MiB value makes a short line; a message logged whole is not cut. */
static void test_values_cut(void **state)
{
        (void)state;
        char path[] = "/tmp/ctk-log-XXXXXX";
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        close(fd);
        size_t n = 1 << 20;
        char *big = malloc(n + 1);
        assert_non_null(big);
        memset(big, '0', n);
        big[n] = '\0';
        char msg[400];
        memset(msg, 'm', sizeof(msg) - 1);
        msg[sizeof(msg) - 1] = '\0';
        ctk_log_open("ident", path, CTK_LOG_INFO);
        ctk_log(CTK_LOG_ERROR, "AMD_VISIBLE_DEVICES=%s: bad", CTK_CUT(big));
        ctk_log_msg(CTK_LOG_ERROR, msg, "container %s", "c1");
        ctk_log_msg(CTK_LOG_ERROR, msg, NULL);
        ctk_log_close();
        free(big);
        _cleanup_free_ char *text = NULL;
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(ctk_file_read_all(path, &text, NULL, &err), 0);
        unlink(path);
        char *second = strchr(text, '\n');
        assert_non_null(second);
        assert_true(second - text < 400);
        assert_non_null(strstr(text, "... (1048576 bytes): bad\"\n"));
        char want[512];
        (void)snprintf(want, sizeof(want), "msg=\"ident container c1: %s\"\n", msg);
        assert_non_null(strstr(text, want));
        (void)snprintf(want, sizeof(want), "msg=\"ident %s\"\n", msg);
        assert_non_null(strstr(text, want));
}

/* A log with nothing logged is never created (a --version, a --help). */
static void test_log_created_at_first_message(void **state)
{
        (void)state;
        char path[] = "/tmp/ctk-log-XXXXXX";
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        close(fd);
        unlink(path);
        struct stat st;
        ctk_log_open("ident", path, CTK_LOG_INFO);
        ctk_log(CTK_LOG_DEBUG, "below the level");
        ctk_log_close();
        assert_int_equal(stat(path, &st), -1);
        ctk_log_open("ident", path, CTK_LOG_INFO);
        assert_int_equal(stat(path, &st), -1);
        ctk_log(CTK_LOG_INFO, "now");
        assert_int_equal(stat(path, &st), 0);
        ctk_log_close();
        unlink(path);
}

/* Runs ctk_log_open(ident, path) and two messages with stderr on a file:
 * what was written there. */
static char *log_stderr(const char *path)
{
        char err_path[] = "/tmp/ctk-log-stderr-XXXXXX";
        int fd = mkstemp(err_path);
        assert_true(fd >= 0);
        int saved = dup(2);
        assert_true(saved >= 0);
        assert_int_equal(dup2(fd, 2), 2);
        close(fd);
        ctk_log_open("ident", path, CTK_LOG_DEBUG);
        ctk_log(CTK_LOG_ERROR, "nowhere"); /* the open fails: said once, nothing more is tried */
        ctk_log(CTK_LOG_ERROR, "still nowhere");
        bool enabled = ctk_log_enabled(CTK_LOG_ERROR);
        ctk_log_close();
        assert_int_equal(dup2(saved, 2), 2);
        close(saved);
        assert_false(enabled);
        char *text = NULL;
        assert_int_equal(ctk_file_read_all(err_path, &text, NULL, NULL), 0);
        unlink(err_path);
        return text;
}

/* A log that cannot be written never fails nor holds its caller: a FIFO
 * (which an open for writing would wait on for ever), a device, a link is
 * one line on stderr, then no log; /dev/null is no log, silently. */
static void test_unopenable_log(void **state)
{
        (void)state;
        char dir[] = "/tmp/ctk-log-dir-XXXXXX";
        assert_non_null(mkdtemp(dir));
        char fifo[64], link[64], want[256];
        (void)snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
        (void)snprintf(link, sizeof(link), "%s/link", dir);
        assert_int_equal(mkfifo(fifo, 0600), 0);
        assert_int_equal(symlink("elsewhere", link), 0);
        _cleanup_free_ char *fifo_said = log_stderr(fifo);
        (void)snprintf(want, sizeof(want),
                       "ident: warning: %s is a FIFO, not a regular file: not written (config key log-file); going "
                       "on without the log\n",
                       fifo);
        assert_string_equal(fifo_said, want);
        /* (a reader there changes nothing) */
        int reader = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        assert_true(reader >= 0);
        _cleanup_free_ char *fifo_read_said = log_stderr(fifo);
        assert_string_equal(fifo_read_said, want);
        close(reader);
        _cleanup_free_ char *link_said = log_stderr(link);
        (void)snprintf(want, sizeof(want),
                       "ident: warning: %s is a symbolic link: not written (config key log-file); going on without "
                       "the log\n",
                       link);
        assert_string_equal(link_said, want);
        _cleanup_free_ char *zero_said = log_stderr("/dev/zero");
        assert_string_equal(zero_said, "ident: warning: /dev/zero is a character device, not a regular file: not "
                                       "written (config key log-file); going on without the log\n");
        _cleanup_free_ char *null_said = log_stderr("/dev/null");
        assert_string_equal(null_said, "");
        unlink(fifo);
        unlink(link);
        rmdir(dir);
        ctk_log_open("x", NULL, CTK_LOG_DEBUG);
        assert_false(ctk_log_enabled(CTK_LOG_ERROR));
        ctk_log_open("x", "", CTK_LOG_DEBUG);
        assert_false(ctk_log_enabled(CTK_LOG_ERROR));
        ctk_log_close();
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_level_parse),
            cmocka_unit_test(test_rfc3339),
            cmocka_unit_test(test_quote),
            cmocka_unit_test(test_format_line),
            cmocka_unit_test(test_levels_and_file),
            cmocka_unit_test(test_unopenable_log),
            cmocka_unit_test(test_log_created_at_first_message),
            cmocka_unit_test(test_values_cut),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
