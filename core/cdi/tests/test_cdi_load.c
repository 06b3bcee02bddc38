/* Reading CDI spec files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/cdi/cdi.h"

static char path[] = "/tmp/ctk-cdi-load-XXXXXX";

static void write_text(const char *text)
{
        strcpy(path, "/tmp/ctk-cdi-load-XXXXXX");
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
        close(fd);
}

static void test_valid_file(void **state)
{
        (void)state;
        write_text("{\"cdiVersion\": \"0.3.0\", \"kind\": \"a.com/b\", \"devices\": []}");
        struct ctk_cdi_doc doc;
        struct ctk_cdi_report rep = {0};
        assert_int_equal(ctk_cdi_load(path, &doc, &rep, NULL), 0);
        assert_non_null(doc.root);
        assert_string_equal(doc.path, path);
        assert_int_equal(rep.errors.n, 0);
        ctk_cdi_doc_clear(&doc);
        unlink(path);
}

static void test_not_json(void **state)
{
        (void)state;
        write_text("cdiVersion: 0.3.0\n");
        struct ctk_cdi_doc doc;
        struct ctk_cdi_report rep = {0};
        assert_int_equal(ctk_cdi_load(path, &doc, &rep, NULL), 0);
        assert_null(doc.root);
        assert_int_equal(rep.errors.n, 1);
        char prefix[64];
        snprintf(prefix, sizeof(prefix), "%s:1:10: '[' or '{' expected", path);
        assert_memory_equal(rep.errors.v[0], prefix, strlen(prefix));
        ctk_cdi_doc_clear(&doc);
        ctk_cdi_report_clear(&rep);
        unlink(path);
}

/* jansson quotes the text near a syntax error, newline included: the
 * report's line stays one line (a fuzzer's find). */
static void test_error_quoting_a_newline_is_one_line(void **state)
{
        (void)state;
        static const char text[] = "{\"dd: [\\\n@}";
        const char *names[] = {"spec.json", "spec.yaml"};
        for (size_t i = 0; i < 2; i++) {
                struct ctk_cdi_doc doc;
                struct ctk_cdi_report rep = {0};
                assert_int_equal(ctk_cdi_parse(names[i], text, strlen(text), &doc, &rep, NULL), 0);
                assert_null(doc.root);
                assert_int_equal(rep.errors.n, 1);
                assert_null(strchr(rep.errors.v[0], '\n'));
                assert_non_null(strstr(rep.errors.v[0], names[i]));
                ctk_cdi_report_clear(&rep);
                ctk_cdi_doc_clear(&doc);
        }
}

static void test_missing_file(void **state)
{
        (void)state;
        struct ctk_cdi_doc doc;
        struct ctk_cdi_report rep = {0};
        struct ctk_error *err = NULL;
        assert_int_equal(ctk_cdi_load("/nonexistent/amd.json", &doc, &rep, &err), -1);
        assert_string_equal(err->msg, "cannot open /nonexistent/amd.json: No such file or directory");
        ctk_error_free(err);
        err = NULL;
        assert_int_equal(ctk_cdi_load("/tmp", &doc, &rep, &err), -1);
        assert_string_equal(err->msg, "/tmp is a directory, not a regular file: not read");
        ctk_error_free(err);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_valid_file),
            cmocka_unit_test(test_not_json),
            cmocka_unit_test(test_missing_file),
            cmocka_unit_test(test_error_quoting_a_newline_is_one_line),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
