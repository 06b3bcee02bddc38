/* The TOML reader: real engine files pass (containerd 1.6 and 1.7's
 * defaults, podman 5's containers.conf), the top-level version and imports
 * are found, every statement is reported with its key path and text, and
 * each kind of mistake is one error at its line:column. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/base/base.h"
#include "core/engines/toml.h"

#ifndef FIXTURES
#define FIXTURES "core/engines/tests/fixtures"
#endif

static void ok(const char *text, struct ctk_toml_top *top)
{
        _cleanup_error_ struct ctk_error *err = NULL;
        if (ctk_toml_check(text, strlen(text), "t.toml", top, NULL, &err) < 0)
                fail_msg("refused: %s\n%s", err->msg, text);
}

static void bad(const char *text, const char *want)
{
        struct ctk_toml_top top;
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(ctk_toml_check(text, strlen(text), "t.toml", &top, NULL, &err), -1);
        if (strstr(err->msg, want) == NULL)
                fail_msg("\"%s\" does not contain \"%s\" (input %s)", err->msg, want, text);
}

static void test_engine_files(void **state)
{
        (void)state;
        static const char *const files[] = {"containerd-1.6-default.toml", "containerd-1.7-default.toml",
                                            "podman-5.4-containers.conf"};
        for (size_t i = 0; i < 3; i++) {
                _cleanup_free_ char *path = NULL, *text = NULL;
                assert_true(asprintf(&path, "%s/%s", FIXTURES, files[i]) > 0);
                assert_int_equal(ctk_file_read_all(path, &text, NULL, NULL), 0);
                struct ctk_toml_top top;
                ok(text, &top);
                if (i < 2) {
                        assert_true(top.has_version);
                        assert_int_equal(top.version, 2);
                }
                ctk_toml_top_clear(&top);
        }
}

static void test_top_level(void **state)
{
        (void)state;
        struct ctk_toml_top top;
        const char *text = "# comment\nversion = 3\nimports = [\"/a.toml\", '/b c.toml'] # two\n"
                           "root = \"/var/lib/containerd\"\n\n[plugins.x]\n  version = 9\n  imports = []\n";
        ok(text, &top);
        assert_true(top.has_version);
        assert_int_equal(top.version, 3);
        assert_true(top.has_imports);
        assert_int_equal(top.imports.n, 2);
        assert_string_equal(top.imports.v[0], "/a.toml");
        assert_string_equal(top.imports.v[1], "/b c.toml");
        assert_int_equal(top.imports_start, strlen("# comment\nversion = 3\n"));
        assert_int_equal(top.imports_end,
                         strlen("# comment\nversion = 3\nimports = [\"/a.toml\", '/b c.toml'] # two\n"));
        assert_int_equal(top.body_start, strlen(text) - strlen("[plugins.x]\n  version = 9\n  imports = []\n"));
        ctk_toml_top_clear(&top);
        /* every kind of value */
        ok("a = 1_000\nb = -0.5e3\nc = 0xdead_beef\nd = 0o17\ne = 0b101\nf = +inf\ng = nan\nh = true\n"
           "i = 1979-05-27T07:32:00Z\nj = 1979-05-27 07:32:00.5-07:00\nk = 07:32:00\nl = 1979-05-27\n"
           "m = \"\\u00e9\\t\\\"\"\nn = 'C:\\\\x'\no = \"\"\"\nline\\\n   more\"\"\"\"\"\np = '''\nraw ''\n'''\n"
           "q = [1, [2, 3], {x = 1, y.z = \"w\"},\n  # comment\n  'z',\n]\n\"quoted key\".bare-key = {}\n"
           "[[arr.of.tables]]\n[ t . \"b\" ]\n",
           &top);
        ctk_toml_top_clear(&top);
}

/* The bytes [from, to) of text, for comparisons (owned). */
static char *span(const char *text, size_t from, size_t to)
{
        return strndup(text + from, to - from);
}

static void test_statements(void **state)
{
        (void)state;
        const char *text = "version = 2 # two\n"
                           "  [plugins . \"io.containerd.grpc.v1.cri\"]  # the CRI\n"
                           "    sandbox_image = 'pause'\n"
                           "    x.\"y z\" = { a = 1 }\n"
                           "    list = [\n      1, # one\n      2,\n    ]\n"
                           "[[arr]]\n"
                           "last = \"\"\"multi\nline\"\"\"";
        struct ctk_toml_top top;
        struct ctk_toml_stmts st;
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(ctk_toml_check(text, strlen(text), "t.toml", &top, &st, &err), 0);
        assert_int_equal(st.n, 7);
        /* version = 2 */
        assert_false(st.v[0].header);
        assert_int_equal(st.v[0].key.n, 1);
        assert_string_equal(st.v[0].key.v[0], "version");
        assert_int_equal(st.v[0].start, 0);
        assert_int_equal(st.v[0].end, strlen("version = 2 # two\n"));
        _cleanup_free_ char *v0 = span(text, st.v[0].value_start, st.v[0].value_end);
        assert_string_equal(v0, "2");
        assert_null(st.v[0].string);
        /* the header: its full key path, its line with the indentation and comment */
        assert_true(st.v[1].header);
        assert_false(st.v[1].array);
        assert_int_equal(st.v[1].key.n, 2);
        assert_string_equal(st.v[1].key.v[0], "plugins");
        assert_string_equal(st.v[1].key.v[1], "io.containerd.grpc.v1.cri");
        _cleanup_free_ char *h = span(text, st.v[1].start, st.v[1].end);
        assert_string_equal(h, "  [plugins . \"io.containerd.grpc.v1.cri\"]  # the CRI\n");
        assert_int_equal(st.v[1].at - st.v[1].start, 2);
        /* a literal string's value */
        assert_string_equal(st.v[2].string, "pause");
        _cleanup_free_ char *v2 = span(text, st.v[2].value_start, st.v[2].value_end);
        assert_string_equal(v2, "'pause'");
        /* a dotted key with an inline table */
        assert_int_equal(st.v[3].key.n, 2);
        assert_string_equal(st.v[3].key.v[1], "y z");
        assert_true(st.v[3].inline_table);
        /* an array over several lines: one statement */
        _cleanup_free_ char *l = span(text, st.v[4].start, st.v[4].end);
        assert_string_equal(l, "    list = [\n      1, # one\n      2,\n    ]\n");
        assert_true(st.v[5].header);
        assert_true(st.v[5].array);
        /* the last statement, without a final newline */
        assert_string_equal(st.v[6].string, "multi\nline");
        assert_int_equal(st.v[6].end, strlen(text));
        ctk_toml_stmts_clear(&st);
        ctk_toml_top_clear(&top);
        /* an error leaves nothing to clear */
        assert_int_equal(ctk_toml_check("[a]\nb = \n", 9, "t.toml", &top, &st, NULL), -1);
        assert_int_equal(st.n, 0);
        assert_null(st.v);
        /* key paths as headers write them */
        static const char *const parts[] = {"plugins", "io.containerd.grpc.v1.cri", "runc_2-x", "a b", ""};
        _cleanup_free_ char *k = ctk_toml_key_text(parts, 5);
        assert_string_equal(k, "plugins.\"io.containerd.grpc.v1.cri\".runc_2-x.\"a b\".\"\"");
}

static void test_errors(void **state)
{
        (void)state;
        bad("a = \n", "t.toml:1:5: expected a value");
        bad("a = 1\nb = \"open\n", "t.toml:2:10: newline in a single-line string");
        bad("a = 1\n[table\n", "t.toml:2:7: expected ']' to close the table header");
        bad("x = [1, 2\n", "t.toml:2:1: expected ',' or ']' in an array");
        bad("x = 01\n", "leading zero");
        bad("x = 1__0\n", "misplaced underscore");
        bad("x = \"\\q\"\n", "t.toml:1:6: invalid escape");
        bad("x = \"\\u12\"\n", "needs 4 hexadecimal digits");
        bad("x = 1 2\n", "t.toml:1:7: expected the end of the line");
        bad("= 1\n", "t.toml:1:1: expected a key");
        bad("a b = 1\n", "t.toml:1:3: expected '=' after a key");
        bad("x = {a = 1,\n b = 2}\n", "inline table");
        bad("x = tru\n", "not a valid number");
        bad("version = \"2\"\n", "version must be an integer");
        bad("imports = \"/a\"\n", "imports must be an array");
        bad("x = \"\"\"never closed\n", "unterminated string");
        bad("x = [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"
            "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\n",
            "nested more than 64 deep");
}

/* TOML forbids defining a key or a table twice, anywhere, the root table
 * included; what is allowed (a table its sub-table made, tables through
 * dotted keys, arrays of tables) passes. */
static void test_duplicates(void **state)
{
        (void)state;
        struct ctk_toml_top top;
        bad("version = 2\nversion = 3\n",
            "t.toml:2:1: key version is defined twice, which TOML forbids (first at line 1): remove one of the two");
        bad("a = 1\n\"a\" = 2\n", "t.toml:2:1: key a is defined twice");
        bad("[a]\nx = 1\n\n[a]\n", "t.toml:4:1: table [a] is defined twice, which TOML forbids (first at line 1)");
        bad("[a]\n[ \"a\" ]\n", "t.toml:2:1: table [a] is defined twice");
        bad("[t]\n  k = 1\n  k = 2\n", "t.toml:3:3: key t.k is defined twice, which TOML forbids (first at line 2)");
        bad("[a]\nb = 1\n[a.b]\n", "t.toml:3:1: table [a.b] is defined again, which TOML forbids: it is a value at "
                                   "line 2");
        bad("[a.b]\nx = 1\n[a]\nb = 2\n", "t.toml:4:1: key a.b is defined again, which TOML forbids: it is a table "
                                          "at line 1");
        bad("a = 1\n[a]\n", "t.toml:2:1: table [a] is defined again, which TOML forbids: it is a value at line 1");
        bad("a = {b = 1, b = 2}\n", "t.toml:1:13: key a.b is defined twice");
        bad("a = [{b = 1, c = {d = 1, d = 2}}]\n", "t.toml:1:26: key c.d is defined twice");
        bad("a = {b = 1}\na.c = 2\n", "t.toml:2:1: key a.c adds to a, a value defined at line 1, which TOML forbids");
        bad("a = {b = 1}\n[a.x]\n", "t.toml:2:1: table [a.x] adds to a, a value defined at line 1");
        bad("a.b = 1\n[a]\n", "t.toml:2:1: table [a] is defined again, which TOML forbids: it is a table of dotted "
                              "keys at line 1");
        bad("a.b = 1\na.b.c = 2\n", "t.toml:2:1: key a.b.c adds to a.b, a value defined at line 1");
        bad("[a.b.c]\n[a]\nb.c.d = 1\n", "t.toml:3:1: key a.b.c.d adds to a.b.c, a table defined at line 1");
        bad("[[x]]\n[x]\n", "t.toml:2:1: table [x] is defined again, which TOML forbids: it is an array of tables");
        bad("x = []\n[[x]]\n", "t.toml:2:1: array of tables [[x]] is defined again, which TOML forbids: it is a value");
        bad("[x]\n[[x]]\n", "t.toml:2:1: array of tables [[x]] is defined again");
        bad("[[x]]\ny = 1\ny = 2\n", "t.toml:3:1: key x.y is defined twice");
        /* what TOML allows */
        ok("[a.b]\nx = 1\n[a]\ny = 2\n", &top);
        ok("a.b = 1\na.c = 2\n[a.d]\n", &top);
        ok("[[x]]\ny = 1\n[[x]]\ny = 2\n[x.z]\nw = 1\n[[x]]\n[x.z]\nw = 2\n", &top);
        ok("a = [{b = 1}, {b = 2}]\nc = {d.e = 1, d.f = 2}\n", &top);
        ok("[a]\nb.c = 1\n[x]\nb.c = 2\n", &top);
        /* many keys: found by hashing, not compared pairwise */
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        assert_non_null(f);
        fputs("[t]\n", f);
        for (int i = 0; i < 100000; i++)
                fprintf(f, "k%d = %d\n", i, i);
        fputs("k77777 = 0\n", f);
        assert_int_equal(fclose(f), 0);
        bad(text, "t.toml:100002:1: key t.k77777 is defined twice, which TOML forbids (first at line 77779)");
        free(text);
}

/* A TOML file is UTF-8: a byte that is not is one error where it is. */
static void test_utf8(void **state)
{
        (void)state;
        struct ctk_toml_top top;
        ok("a = \"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\" # \xc3\xa9\n", &top);
        bad("a = \"\xff\"\n", "t.toml:1:6: not valid UTF-8 (byte 0xff): a TOML file is UTF-8");
        bad("b = 1\n# \xc3\x28\n", "t.toml:2:3: not valid UTF-8 (byte 0xc3)");
        bad("c = '\xed\xa0\x80'\n", "t.toml:1:6: not valid UTF-8 (byte 0xed)"); /* a surrogate */
        bad("d = \"\xc0\xaf\"\n", "t.toml:1:6: not valid UTF-8 (byte 0xc0)");   /* overlong */
        bad("e = \"\xe2\x82\"", "t.toml:1:6: not valid UTF-8");                 /* cut short */
}

/* Found by fuzzing: a NUL after a number was taken as part of it (strchr
 * finds the terminator), so text past the NUL was never checked. */
static void test_nul_byte(void **state)
{
        (void)state;
        static const char text[] = "version = 0\0#x\n";
        struct ctk_toml_top top;
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(ctk_toml_check(text, sizeof(text) - 1, "t.toml", &top, NULL, &err), -1);
        assert_string_equal(err->msg, "t.toml:1:12: expected the end of the line");
}

static void test_quote(void **state)
{
        (void)state;
        _cleanup_free_ char *q = ctk_toml_quote("/a \"b\"\\c\n");
        assert_string_equal(q, "\"/a \\\"b\\\"\\\\c\\u000a\"");
        struct ctk_toml_top top;
        _cleanup_free_ char *line = NULL;
        assert_true(asprintf(&line, "k = %s\n", q) > 0);
        ok(line, &top);
        ctk_toml_top_clear(&top);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_engine_files), cmocka_unit_test(test_top_level), cmocka_unit_test(test_statements),
            cmocka_unit_test(test_errors),       cmocka_unit_test(test_nul_byte),  cmocka_unit_test(test_quote),
            cmocka_unit_test(test_duplicates),   cmocka_unit_test(test_utf8),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
