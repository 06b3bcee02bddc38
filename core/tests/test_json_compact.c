/* The fast compact encoder gives exactly jansson's compact output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/cleanup.h"
#include "core/json_util.h"
#include "core/json_compact.h"

static void assert_same(const json_t *j)
{
        _cleanup_free_ char *want = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
        size_t len = 0;
        _cleanup_free_ char *got = ctk_json_compact(j, &len);
        assert_non_null(want);
        assert_non_null(got);
        if (strcmp(got, want) != 0)
                fail_msg("got  %s\nwant %s", got, want);
        assert_int_equal(len, strlen(want));
}

static json_t *parse(const char *text)
{
        json_error_t e;
        json_t *j = json_loads(text, JSON_DECODE_ANY | JSON_ALLOW_NUL, &e);
        if (j == NULL)
                fail_msg("bad test JSON: %s", e.text);
        return j;
}

static void test_scalars(void **state)
{
        (void)state;
        const char *docs[] = {
            "0",
            "-1",
            "9223372036854775807",
            "-9223372036854775808",
            "1.5",
            "-0.0",
            "3.0",
            "1e300",
            "2.5e-308",
            "0.1",
            "true",
            "false",
            "null",
            "\"\"",
            "{}",
            "[]",
            "[[],{},[{}]]",
            "{\"\":\"\"}",
        };
        for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
                _cleanup_json_ json_t *j = parse(docs[i]);
                assert_same(j);
        }
}

static void test_strings(void **state)
{
        (void)state;
        /* Every control character, quotes, backslash, slash, multi-byte UTF-8, NUL. */
        char s[64];
        for (int c = 1; c < 0x20; c++)
                s[c - 1] = (char)c;
        strcpy(s + 31, "\"\\/ é € 𝄞 \x7f end");
        _cleanup_json_ json_t *a = json_string(s);
        assert_same(a);
        _cleanup_json_ json_t *b = json_stringn("a\0b", 3);
        assert_same(b);
        _cleanup_json_ json_t *o = json_object();
        json_object_set_new(o, "k\n\"ey\"\t", json_string("v"));
        json_object_set_new(o, "ü", json_stringn("\0", 1));
        assert_same(o);
}

static void test_spec(void **state)
{
        (void)state;
        _cleanup_json_ json_t *j = parse(
            "{\"ociVersion\":\"1.0.2-dev\",\"process\":{\"terminal\":false,\"user\":{\"uid\":0,\"gid\":0},"
            "\"args\":[\"sh\",\"-c\",\"echo \\\"$HOME\\\" | tr a-z A-Z\\n\"],\"env\":[\"PATH=/usr/bin\","
            "\"AMD_VISIBLE_DEVICES=0,1\"],\"cwd\":\"/\",\"capabilities\":{\"bounding\":[\"CAP_KILL\"]},"
            "\"rlimits\":[{\"type\":\"RLIMIT_NOFILE\",\"hard\":1024,\"soft\":1024}],\"noNewPrivileges\":true},"
            "\"root\":{\"path\":\"rootfs\",\"readonly\":true},\"hostname\":\"runc\",\"mounts\":[{\"destination\":"
            "\"/proc\",\"type\":\"proc\",\"source\":\"proc\"}],\"linux\":{\"resources\":{\"devices\":[{\"allow\":"
            "false,\"access\":\"rwm\"}],\"memory\":{\"limit\":-1,\"swappiness\":null},\"cpu\":{\"shares\":1024,"
            "\"quota\":-1}},\"namespaces\":[{\"type\":\"pid\"},{\"type\":\"mount\"}],\"maskedPaths\":[\"/proc/kcore\"],"
            "\"x-future\":{\"ratio\":0.75}},\"annotations\":{\"z\":\"1\",\"a\":\"2\"}}");
        assert_same(j);
}

/* A small deterministic generator of random documents. */
static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint64_t next(void)
{
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        return rng;
}

static json_t *random_string(void)
{
        char buf[24];
        size_t n = next() % sizeof(buf);
        for (size_t i = 0; i < n; i++) {
                unsigned r = (unsigned)(next() % 100);
                buf[i] = r < 10 ? (char)(next() % 0x20) : r < 15 ? '"' : r < 20 ? '\\' : (char)(' ' + next() % 95);
        }
        return json_stringn(buf, n);
}

static json_t *random_value(int depth)
{
        switch (next() % (depth > 4 ? 6 : 8)) {
        case 0:
                return json_integer((json_int_t)next());
        case 1:
                return json_real((double)(int64_t)next() / 1e6);
        case 2:
                return random_string();
        case 3:
                return json_true();
        case 4:
                return json_false();
        case 5:
                return json_null();
        case 6: {
                json_t *a = json_array();
                for (uint64_t i = next() % 5; i > 0; i--)
                        json_array_append_new(a, random_value(depth + 1));
                return a;
        }
        default: {
                json_t *o = json_object();
                for (uint64_t i = next() % 5; i > 0; i--) {
                        char key[16];
                        snprintf(key, sizeof(key), "k%u\t%u", (unsigned)(next() % 1000), (unsigned)i);
                        json_object_set_new(o, key, random_value(depth + 1));
                }
                return o;
        }
        }
}

static void test_random_documents(void **state)
{
        (void)state;
        for (int i = 0; i < 2000; i++) {
                _cleanup_json_ json_t *j = random_value(0);
                assert_same(j);
        }
}

static void test_too_deep(void **state)
{
        (void)state;
        json_t *root = json_array(), *cur = root;
        for (int i = 0; i < 3000; i++) {
                json_t *inner = json_array();
                json_array_append_new(cur, inner);
                cur = inner;
        }
        assert_null(ctk_json_compact(root, NULL));
        json_decref(root);
        assert_null(ctk_json_compact(NULL, NULL));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_scalars),          cmocka_unit_test(test_strings),  cmocka_unit_test(test_spec),
            cmocka_unit_test(test_random_documents), cmocka_unit_test(test_too_deep),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
