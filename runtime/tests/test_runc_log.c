/* Errors in runc's log format, as containerd reads them back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/base/base.h"
#include "core/json/json.h"
#include "runtime/runc_log.h"

static const struct timespec when = {.tv_sec = 1777389697, .tv_nsec = 999999999};

static void test_json_line(void **state)
{
        (void)state;
        setenv("TZ", "UTC", 1);
        _cleanup_free_ char *line =
            rt_runc_log_line("json", "error", "AMD_VISIBLE_DEVICES: GPU 9 does not exist \"x\"", &when);
        assert_string_equal(line, "{\"level\":\"error\",\"msg\":\"AMD_VISIBLE_DEVICES: GPU 9 does not exist "
                                  "\\\"x\\\"\",\"time\":\"2026-04-28T15:21:37Z\"}\n");
        /* It is one JSON document per line that decodes back to the message. */
        json_error_t e;
        _cleanup_json_ json_t *j = json_loads(line, 0, &e);
        assert_non_null(j);
        assert_string_equal(json_string_value(json_object_get(j, "msg")),
                            "AMD_VISIBLE_DEVICES: GPU 9 does not exist \"x\"");
}

static void test_json_escapes(void **state)
{
        (void)state;
        setenv("TZ", "UTC", 1);
        const char *msg = "tab\there\nback\\slash \x01 /dev/kfd \xc3\xa9";
        _cleanup_free_ char *line = rt_runc_log_line("json", "error", msg, &when);
        assert_string_equal(line, "{\"level\":\"error\",\"msg\":\"tab\\there\\nback\\\\slash \\u0001 /dev/kfd "
                                  "\xc3\xa9\",\"time\":\"2026-04-28T15:21:37Z\"}\n");
        json_error_t e;
        _cleanup_json_ json_t *j = json_loads(line, 0, &e);
        assert_non_null(j);
        assert_string_equal(json_string_value(json_object_get(j, "msg")), msg);
}

static void test_text_line(void **state)
{
        (void)state;
        setenv("TZ", "UTC", 1);
        _cleanup_free_ char *line = rt_runc_log_line("text", "error", "bad \"x\"\nsecond", &when);
        assert_string_equal(line, "time=\"2026-04-28T15:21:37Z\" level=error msg=\"bad \\\"x\\\"\\nsecond\"\n");
        _cleanup_free_ char *dflt = rt_runc_log_line(NULL, "error", "m", &when);
        assert_string_equal(dflt, "time=\"2026-04-28T15:21:37Z\" level=error msg=\"m\"\n");
}

static void test_appends_to_log_file(void **state)
{
        (void)state;
        char path[] = "/tmp/rt-runclog-XXXXXX";
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        const char *runc_line = "{\"level\":\"info\",\"msg\":\"runc said\",\"time\":\"2026-04-28T15:21:37Z\"}\n";
        assert_int_equal(write(fd, runc_line, strlen(runc_line)), (ssize_t)strlen(runc_line));
        close(fd);
        struct rt_args a = {.log = path, .log_format = "json"};
        rt_runc_log_error(&a, "first");
        rt_runc_log_error(&a, "second");
        _cleanup_free_ char *text = NULL;
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(ctk_file_read_all(path, &text, NULL, &err), 0);
        assert_int_equal(strncmp(text, runc_line, strlen(runc_line)), 0);
        const char *l2 = text + strlen(runc_line);
        assert_int_equal(strncmp(l2, "{\"level\":\"error\",\"msg\":\"first\",\"time\":\"", 39), 0);
        assert_non_null(strstr(l2, "\n{\"level\":\"error\",\"msg\":\"second\",\"time\":\""));
        unlink(path);

        /* No --log, or stderr: nothing to do (the message went to stderr). */
        struct rt_args none = {0};
        rt_runc_log_error(&none, "ignored");
        struct rt_args to_stderr = {.log = "/dev/stderr"};
        rt_runc_log_error(&to_stderr, "ignored");
}

/* An engine's --log that is a FIFO (which an open for writing would wait
 * on for ever) or a device: refused at once, with one line on stderr. */
static void test_log_not_a_file(void **state)
{
        (void)state;
        char dir[] = "/tmp/rt-runclog-dir-XXXXXX";
        assert_non_null(mkdtemp(dir));
        char fifo[64];
        (void)snprintf(fifo, sizeof(fifo), "%s/log.json", dir);
        assert_int_equal(mkfifo(fifo, 0600), 0);
        char err_path[] = "/tmp/rt-runclog-stderr-XXXXXX";
        int fd = mkstemp(err_path);
        assert_true(fd >= 0);
        int saved = dup(2);
        assert_int_equal(dup2(fd, 2), 2);
        close(fd);
        struct rt_args a = {.log = fifo, .log_format = "json"};
        rt_runc_log_error(&a, "GPU 9 does not exist");
        struct rt_args null = {.log = "/dev/null"};
        rt_runc_log_error(&null, "GPU 9 does not exist");
        assert_int_equal(dup2(saved, 2), 2);
        close(saved);
        _cleanup_free_ char *said = NULL;
        assert_int_equal(ctk_file_read_all(err_path, &said, NULL, NULL), 0);
        char want[256];
        (void)snprintf(want, sizeof(want),
                       "amd-container-runtime: warning: %s is a FIFO, not a regular file: not written (the low-level "
                       "runtime's --log)\n",
                       fifo);
        assert_string_equal(said, want);
        unlink(err_path);
        unlink(fifo);
        rmdir(dir);
}

/* The runtime's error line: prefixed, in the log as on stderr; exit 1. */
static void test_report_error(void **state)
{
        (void)state;
        char path[] = "/tmp/rt-runclog-XXXXXX";
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        close(fd);
        struct rt_args a = {.log = path, .log_format = "json"};
        assert_int_equal(rt_report_error(&a, "GPU 9 does not exist"), 1);
        _cleanup_free_ char *text = NULL;
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(ctk_file_read_all(path, &text, NULL, &err), 0);
        const char *want = "{\"level\":\"error\",\"msg\":\"amd-container-runtime: GPU 9 does not exist\",\"time\":";
        assert_int_equal(strncmp(text, want, strlen(want)), 0);
        unlink(path);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_json_line),    cmocka_unit_test(test_json_escapes),
            cmocka_unit_test(test_text_line),    cmocka_unit_test(test_appends_to_log_file),
            cmocka_unit_test(test_report_error), cmocka_unit_test(test_log_not_a_file),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
