/* JSON documents in unit tests (header-only, static). */
#ifndef CTK_TESTS_JSON_TEST_H
#define CTK_TESTS_JSON_TEST_H

#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

/* The document of text (any JSON value); the test fails on bad JSON. */
static inline json_t *test_json(const char *text)
{
        json_error_t e;
        json_t *j = json_loads(text, JSON_DECODE_ANY, &e);
        if (j == NULL)
                fail_msg("bad test JSON: %s: %s", e.text, text);
        return j;
}

/* got equals the document of want_text (keys in any order). */
static inline void assert_json_is(const json_t *got, const char *want_text)
{
        json_t *want = test_json(want_text);
        if (!json_equal((json_t *)got, want)) {
                char *g = json_dumps(got, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
                fail_msg("got  %s\nwant %s", g, want_text);
        }
        json_decref(want);
}

#endif
