/* Spec parsing (clear errors with line:column) and compact encoding. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/base/base.h"
#include "core/json/json.h"
#include "core/oci/spec.h"

static void expect_error(const char *text, const char *want)
{
        _cleanup_error_ struct ctk_error *err = NULL;
        json_t *spec = (json_t *)1;
        assert_int_equal(ctk_oci_spec_parse(text, strlen(text), "/b/config.json", &spec, &err), -1);
        assert_null(spec);
        assert_non_null(err);
        if (strncmp(err->msg, want, strlen(want)) != 0)
                fail_msg("got \"%s\", want it to start with \"%s\"", err->msg, want);
}

static void test_errors(void **state)
{
        (void)state;
        expect_error("", "/b/config.json:1:0: ");
        expect_error("{\"a\":1,\n\"b\":}", "/b/config.json:2:5: ");
        expect_error("{\"a\":1} x", "/b/config.json:1:");
        expect_error("[1,2]", "/b/config.json: the spec is not a JSON object");
        expect_error("\"str\"", "/b/config.json: the spec is not a JSON object");
        expect_error("null", "/b/config.json: the spec is not a JSON object");
}

static void test_round_trip_compact(void **state)
{
        (void)state;
        const char *text = "{\n  \"ociVersion\": \"1.0.2-dev\",\n  \"process\": {\"args\": [\"sh\", \"-c\", "
                           "\"echo \\\"hi\\\" </dev/null & ü\"]},\n  \"b\": 2, \"a\": 1, \"big\": 9223372036854775807,"
                           " \"neg\": -1, \"path\": \"/a/b\"\n}\n";
        _cleanup_error_ struct ctk_error *err = NULL;
        _cleanup_json_ json_t *spec = NULL;
        assert_int_equal(ctk_oci_spec_parse(text, strlen(text), "c", &spec, &err), 0);
        size_t len;
        _cleanup_free_ char *out = ctk_oci_spec_encode(spec, &len);
        const char *want = "{\"ociVersion\":\"1.0.2-dev\",\"process\":{\"args\":[\"sh\",\"-c\","
                           "\"echo \\\"hi\\\" </dev/null & ü\"]},\"b\":2,\"a\":1,\"big\":9223372036854775807,"
                           "\"neg\":-1,\"path\":\"/a/b\"}\n";
        assert_string_equal(out, want);
        assert_int_equal(len, strlen(want));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_errors),
            cmocka_unit_test(test_round_trip_compact),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
