/* The count caps of a spec (spec.h): what is counted where, over the
 * bytes, before jansson builds anything. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/base/base.h"
#include "core/json/json.h"
#include "core/oci/spec.h"

static const struct ctk_oci_caps small = {
    .env = 3, .annotations = 2, .mounts = 2, .devices = 2, .hooks = 3, .values = 100};

/* The refusal of text under the small caps ("" when accepted). */
static char *verdict(const char *text)
{
        _cleanup_error_ struct ctk_error *err = NULL;
        if (ctk_oci_spec_check_counts(text, strlen(text), "c.json", &small, &err) == 0)
                return strdup("");
        assert_int_equal(err->code, E2BIG);
        return strdup(err->msg);
}

static void expect(const char *text, const char *want)
{
        _cleanup_free_ char *got = verdict(text);
        if (strcmp(got, want) != 0)
                fail_msg("%s: got \"%s\", want \"%s\"", text, got, want);
}

static void test_each_cap(void **state)
{
        (void)state;
        expect("{\"process\": {\"env\": [\"A=1\", \"B=2\", \"C=3\"]}}", "");
        expect("{\"process\": {\"env\": [\"A=1\", \"B=2\", \"C=3\", \"a\"]}}",
               "c.json: process.env has more than 3 entries, the most a spec may have: refused");
        expect("{\"annotations\": {\"a\": \"1\", \"b\": \"\"}}", "");
        expect("{\"annotations\": {\"a\": \"1\", \"b\": \"\", \"c\": {}}}",
               "c.json: annotations has more than 2 entries, the most a spec may have: refused");
        expect("{\"mounts\": [{}, {}, {}]}",
               "c.json: mounts has more than 2 entries, the most a spec may have: refused");
        expect("{\"linux\": {\"devices\": [1, 2, 3]}}",
               "c.json: linux.devices has more than 2 entries, the most a spec may have: refused");
        expect("{\"linux\": {\"resources\": {\"devices\": [[], [], []]}}}",
               "c.json: linux.resources.devices has more than 2 entries, the most a spec may have: refused");
        expect("{\"linux\": {\"devices\": [1, 2], \"resources\": {\"devices\": [1, 2]}}}", "");
        /* hooks: every kind together */
        expect("{\"hooks\": {\"prestart\": [{}], \"createRuntime\": [{}, {}]}}", "");
        expect("{\"hooks\": {\"prestart\": [{}], \"createRuntime\": [{}, {}], \"poststop\": [{\"path\": \"/x\"}]}}",
               "c.json: hooks has more than 3 hooks in all, the most a spec may have: refused");
}

/* Every value counts once, wherever it is (process.args, unknown keys). */
static void test_values(void **state)
{
        (void)state;
        char text[1024];
        int at = snprintf(text, sizeof(text), "{\"process\": {\"args\": [0");
        for (int i = 1; i < 97; i++)
                at += snprintf(text + at, sizeof(text) - (size_t)at, ",0");
        (void)snprintf(text + at, sizeof(text) - (size_t)at, "]}}"); /* 1 + 1 + 1 + 97 values */
        expect(text, "");
        (void)snprintf(text + at, sizeof(text) - (size_t)at, ",0]}}");
        expect(text, "c.json: the spec has more than 100 JSON values, the most a spec may have: refused");
}

/* Only the members of the spec's own places count, however JSON spells the
 * keys; strings are read to their closing quote. */
static void test_places(void **state)
{
        (void)state;
        /* env elsewhere than .process.env */
        expect("{\"env\": [1, 2, 3, 4], \"process\": {\"x\": {\"env\": [1, 2, 3, 4]}}, \"y\": {\"process\": {\"env\": "
               "[1, 2, 3, 4]}}}",
               "");
        /* escaped keys are the same keys */
        expect("{\"\\u0070rocess\": {\"\\u0065nv\": [1, 2, 3, 4]}}",
               "c.json: process.env has more than 3 entries, the most a spec may have: refused");
        expect("{\"process\": {\"en\\u0076\": [1, 2, 3, 4]}}",
               "c.json: process.env has more than 3 entries, the most a spec may have: refused");
        expect("{\"process\": {\"env\\u0000\": [1, 2, 3, 4]}}", "");
        expect("{\"process\": {\"Env\": [1, 2, 3, 4]}}", "");
        /* quotes, brackets and backslashes inside strings */
        expect("{\"process\": {\"env\": [\"a\\\"]\", \"b\\\\\", \"c}\"]}}", "");
        expect("{\"process\": {\"env\": [\"a\\\\\", \"]\", \"\\\"\", \"d\"]}}",
               "c.json: process.env has more than 3 entries, the most a spec may have: refused");
        /* a key with the name, as a value elsewhere */
        expect("{\"a\": \"process\", \"process\": {\"b\": \"env\", \"env\": [1]}}", "");
        /* each occurrence of a duplicated key counts on its own */
        expect("{\"process\": {\"env\": [1, 2, 3], \"env\": [1, 2, 3]}}", "");
        expect("{\"process\": {\"env\": [1, 2, 3], \"env\": [1, 2, 3, 4]}}",
               "c.json: process.env has more than 3 entries, the most a spec may have: refused");
}

/* Text that is no JSON is jansson's to word, and so is nesting deeper than
 * it goes (it builds nothing past that point; what comes before is counted). */
static void test_not_json(void **state)
{
        (void)state;
        expect("", "");
        expect("}}}]]", "");
        expect("{\"process\": {\"env\": [1, 2, 3, 4",
               "c.json: process.env has more than 3 entries, the most a spec may "
               "have: refused");
        expect("{\"process\": {\"env\": [\"unterminated", "");
        expect("{1: 2}", "");
        expect("\x00\x01", "");
        size_t n = 5000;
        char *deep = malloc(n + 64);
        assert_non_null(deep);
        int at = sprintf(deep, "{\"process\": {\"env\": [1, 2, 3, 4], \"x\": ");
        memset(deep + at, '[', n);
        deep[(size_t)at + n] = '\0';
        /* what comes before the depth jansson stops at is counted */
        expect(deep, "c.json: process.env has more than 3 entries, the most a spec may have: refused");
        /* past it, nothing is (jansson's error, where nothing is built after it) */
        assert_int_equal(ctk_oci_spec_check_counts(deep, strlen(deep), "c.json", NULL, NULL), 0);
        _cleanup_error_ struct ctk_error *err = NULL;
        json_t *spec = NULL;
        struct ctk_oci_literals lits;
        assert_int_equal(ctk_oci_spec_parse(deep, strlen(deep), "c.json", &spec, &lits, &err), -1);
        assert_non_null(strstr(err->msg, "maximum parsing depth reached"));
        free(deep);
}

/* The defaults, through the parser: one environment entry over the cap is
 * refused before jansson builds anything; at the cap, parsed. */
static void test_default_env_cap(void **state)
{
        (void)state;
        size_t n = CTK_OCI_MAX_ENV;
        size_t size = n * 4 + 64;
        char *text = malloc(size);
        assert_non_null(text);
        size_t at = (size_t)sprintf(text, "{\"process\": {\"env\": [");
        for (size_t i = 0; i < n; i++) {
                memcpy(text + at, i == 0 ? "\"a\"" : ",\"a\"", i == 0 ? 3 : 4);
                at += i == 0 ? 3 : 4;
        }
        memcpy(text + at, "]}}", sizeof("]}}"));
        json_t *spec = NULL;
        struct ctk_oci_literals lits;
        assert_int_equal(ctk_oci_spec_parse(text, strlen(text), "config.json", &spec, &lits, NULL), 0);
        assert_int_equal(json_array_size(json_object_get(json_object_get(spec, "process"), "env")), n);
        json_decref(spec);
        ctk_oci_literals_clear(&lits);
        memcpy(text + at, ",\"a\"]}}", sizeof(",\"a\"]}}"));
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(ctk_oci_spec_parse(text, strlen(text), "config.json", &spec, &lits, &err), -1);
        assert_null(spec);
        assert_string_equal(err->msg, "config.json: process.env has more than 1048576 entries, the most a spec may "
                                      "have: refused");
        free(text);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_each_cap), cmocka_unit_test(test_values),          cmocka_unit_test(test_places),
            cmocka_unit_test(test_not_json), cmocka_unit_test(test_default_env_cap),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
