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
        struct ctk_oci_literals lits;
        assert_int_equal(ctk_oci_spec_parse(text, strlen(text), "/b/config.json", &spec, &lits, &err), -1);
        assert_int_equal(lits.n, 0);
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
        _cleanup_oci_literals_ struct ctk_oci_literals lits = {0};
        assert_int_equal(ctk_oci_spec_parse(text, strlen(text), "c", &spec, &lits, &err), 0);
        size_t len;
        _cleanup_free_ char *out = ctk_oci_spec_encode(spec, &lits, &len);
        const char *want = "{\"ociVersion\":\"1.0.2-dev\",\"process\":{\"args\":[\"sh\",\"-c\","
                           "\"echo \\\"hi\\\" </dev/null & ü\"]},\"b\":2,\"a\":1,\"big\":9223372036854775807,"
                           "\"neg\":-1,\"path\":\"/a/b\"}\n";
        assert_string_equal(out, want);
        assert_int_equal(len, strlen(want));
}

/* parse, then encode: the text out */
static char *round_trip(const char *text, json_t **spec, struct ctk_oci_literals *lits)
{
        _cleanup_error_ struct ctk_error *err = NULL;
        if (ctk_oci_spec_parse(text, strlen(text), "c", spec, lits, &err) < 0)
                fail_msg("%s", err->msg);
        char *out = ctk_oci_spec_encode(*spec, lits, NULL);
        assert_non_null(out);
        return out;
}

/* What runc takes and jansson does not hold comes back as it was. */
static void test_literals_kept(void **state)
{
        (void)state;
        const char *text =
            "{\"linux\":{\"resources\":{\"cpu\":{\"shares\":18446744073709551615,\"quota\":-1},"
            "\"memory\":{\"swappiness\":18446744073709551615}}},\"process\":{\"rlimits\":[{\"type\":\"RLIMIT_NOFILE\","
            "\"hard\":18446744073709551615,\"soft\":1024}]},\"min\":-9223372036854775808,\"max\":9223372036854775807,"
            "\"below\":-9223372036854775809,\"above\":9223372036854775808,\"real\":0.1,\"exp\":1E400,"
            "\"negzero\":-0,\"big\":123456789012345678901234567890,"
            "\"annotations\":{\"a\\u0000b\":\"x\\u0000y\",\"m\":\"\\u0001mark\",\"lone\":\"\\ud800z\","
            "\"pair\":\"\\uD83D\\uDE00\",\"raw\":\"\xff\xfe\"},\"ok\":\"\\u00e9\"}\n";
        _cleanup_json_ json_t *spec = NULL;
        _cleanup_oci_literals_ struct ctk_oci_literals lits = {0};
        _cleanup_free_ char *out = round_trip(text, &spec, &lits);
        /* byte for byte, but for what jansson writes its own way (\u00e9, the pair: UTF-8) */
        const char *want =
            "{\"linux\":{\"resources\":{\"cpu\":{\"shares\":18446744073709551615,\"quota\":-1},"
            "\"memory\":{\"swappiness\":18446744073709551615}}},\"process\":{\"rlimits\":[{\"type\":\"RLIMIT_NOFILE\","
            "\"hard\":18446744073709551615,\"soft\":1024}]},\"min\":-9223372036854775808,\"max\":9223372036854775807,"
            "\"below\":-9223372036854775809,\"above\":9223372036854775808,\"real\":0.1,\"exp\":1E400,"
            "\"negzero\":-0,\"big\":123456789012345678901234567890,"
            "\"annotations\":{\"a\\u0000b\":\"x\\u0000y\",\"m\":\"\\u0001mark\",\"lone\":\"\\ud800z\","
            "\"pair\":\"\xf0\x9f\x98\x80\",\"raw\":\"\xff\xfe\"},\"ok\":\"\xc3\xa9\"}\n";
        assert_string_equal(out, want);
        /* set aside: 9 numbers, the key and value with NUL, the mark, the lone surrogate, the raw bytes */
        assert_int_equal(lits.n, 14);
        /* in range: plain integers the runtime can read */
        json_t *min = json_object_get(spec, "min");
        assert_true(json_is_integer(min));
        assert_true(json_integer_value(min) == INT64_MIN);
        /* the key with a NUL is not read as "a" */
        assert_null(json_object_get(json_object_get(spec, "annotations"), "a"));
        /* a second round gives the same text */
        _cleanup_json_ json_t *spec2 = NULL;
        _cleanup_oci_literals_ struct ctk_oci_literals lits2 = {0};
        _cleanup_free_ char *out2 = round_trip(out, &spec2, &lits2);
        assert_string_equal(out2, out);
}

/* Only the members edited change; a placeholder-like string put by an
 * edit is written as a string; a literal whose member is replaced goes. */
static void test_literals_and_edits(void **state)
{
        (void)state;
        const char *text = "{\"a\":18446744073709551615,\"b\":[1,18446744073709551616],\"c\":\"\\u0000\"}";
        _cleanup_json_ json_t *spec = NULL;
        _cleanup_oci_literals_ struct ctk_oci_literals lits = {0};
        _cleanup_free_ char *out = round_trip(text, &spec, &lits);
        assert_string_equal(out, "{\"a\":18446744073709551615,\"b\":[1,18446744073709551616],\"c\":\"\\u0000\"}\n");
        assert_int_equal(json_object_set_new(spec, "a", json_integer(7)), 0);
        assert_int_equal(json_array_insert_new(json_object_get(spec, "b"), 0, json_integer(0)), 0);
        assert_int_equal(json_object_set_new(spec, "d",
                                             json_string("\x01"
                                                         "2")),
                         0); /* (from a CDI spec, say) */
        assert_int_equal(json_object_set_new(spec,
                                             "\x01"
                                             "1",
                                             json_true()),
                         0);
        _cleanup_free_ char *out2 = ctk_oci_spec_encode(spec, &lits, NULL);
        assert_string_equal(out2, "{\"a\":7,\"b\":[0,1,18446744073709551616],\"c\":\"\\u0000\",\"d\":\"\\u00012\","
                                  "\"\\u00011\":true}\n");
}

/* Errors after a literal set aside name the line and column of the spec's
 * own text; text that is no JSON is refused as jansson does. */
static void test_literal_positions(void **state)
{
        (void)state;
        expect_error("{\"a\":18446744073709551616,\n  \"b\":}", "/b/config.json:2:7: ");
        expect_error("{\"a\":18446744073709551616, \"b\": x}", "/b/config.json:1:33: ");
        expect_error("{\"a\":\"\\u0000\", \"b\":\"\\uZZZZ\"}", "/b/config.json:1:");
        expect_error("{\"a\":\"\\u0000\x01\"}", "/b/config.json:1:"); /* a control byte: no string */
        expect_error("{\"a\":01}", "/b/config.json:1:");
        expect_error("{\"a\":1.}", "/b/config.json:1:");
        expect_error("{\"a\":-}", "/b/config.json:1:");
}

/* The encoder writes what json_dumps writes. */
static void test_encoder_is_jansson(void **state)
{
        (void)state;
        const char *texts[] = {
            "{}",
            "{\"a\":[],\"b\":{},\"c\":[true,false,null,0,-5,9223372036854775807]}",
            "{\"s\":\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u0001\\u001f\\u007f\\u00e9\\u2028 \xe2\x82\xac\"}",
            "{\"k\\n\\\"\":{\"x\":[[[{\"y\":[]}]]]},\"z\":\"\"}",
        };
        for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
                json_error_t jerr;
                _cleanup_json_ json_t *j = json_loads(texts[i], 0, &jerr);
                assert_non_null(j);
                _cleanup_free_ char *want = json_dumps(j, JSON_COMPACT);
                _cleanup_free_ char *got = ctk_oci_spec_encode(j, NULL, NULL);
                size_t n = strlen(want);
                assert_int_equal(strlen(got), n + 1);
                assert_memory_equal(got, want, n);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_errors),
            cmocka_unit_test(test_round_trip_compact),
            cmocka_unit_test(test_literals_kept),
            cmocka_unit_test(test_literals_and_edits),
            cmocka_unit_test(test_literal_positions),
            cmocka_unit_test(test_encoder_is_jansson),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
