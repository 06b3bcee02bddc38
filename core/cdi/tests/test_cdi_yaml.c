/* CDI specs written as YAML: converted into the JSON document the checks
 * see, strictly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/base/base.h"
#include "core/cdi/cdi.h"
#include "core/json/json.h"

/* The JSON of yaml, compact, keys in order; fails the test on a problem. */
static char *convert(const char *yaml)
{
        json_t *j = NULL;
        char *problem = NULL;
        assert_int_equal(ctk_cdi_yaml_to_json("t.yaml", yaml, strlen(yaml), &j, &problem), 0);
        if (problem != NULL)
                fail_msg("%s: %s", yaml, problem);
        char *s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
        json_decref(j);
        return s;
}

static void assert_converts(const char *yaml, const char *want)
{
        _cleanup_free_ char *got = convert(yaml);
        if (strcmp(got, want) != 0)
                fail_msg("%s:\n got  %s\n want %s", yaml, got, want);
}

static void assert_problem(const char *yaml, const char *want)
{
        json_t *j = NULL;
        _cleanup_free_ char *problem = NULL;
        assert_int_equal(ctk_cdi_yaml_to_json("t.yaml", yaml, strlen(yaml), &j, &problem), 0);
        assert_null(j);
        assert_non_null(problem);
        if (strstr(problem, want) == NULL)
                fail_msg("%s:\n got  %s\n want ...%s...", yaml, problem, want);
        assert_null(strchr(problem, '\n'));
}

static void test_scalars(void **state)
{
        (void)state;
        assert_converts("a: ~\nb: null\nc:\nd: NULL", "{\"a\":null,\"b\":null,\"c\":null,\"d\":null}");
        assert_converts("[true, False, yes, ON, n, off]", "[true,false,true,true,false,false]");
        assert_converts("[12, -3, +4, 0x1F, 0o17, 017, 0b101, 1_000, 0]", "[12,-3,4,31,15,15,5,1000,0]");
        assert_converts("[1.5, -2e3, .5]", "[1.5,-2000.0,0.5]");
        /* 089 is no octal number, but a decimal one to YAML 1.1 */
        assert_converts("[\"12\", '0x1F', abc, 1.2.3, 0x, 089, -]",
                        "[\"12\",\"0x1F\",\"abc\",\"1.2.3\",\"0x\",89.0,\"-\"]");
        assert_converts("[!!str 12, !!int \"7\", !!bool \"yes\"]", "[\"12\",7,true]");
        assert_converts("s: |\n  two\n  lines\n", "{\"s\":\"two\\nlines\\n\"}");
        assert_converts("9223372036854775807", "9223372036854775807");
        assert_converts("-9223372036854775808", "-9223372036854775808");
        /* keys are text, whatever they look like */
        assert_converts("{1: a, true: b, null: c}", "{\"1\":\"a\",\"true\":\"b\",\"null\":\"c\"}");
}

static void test_structure(void **state)
{
        (void)state;
        /* (y is a boolean to YAML 1.1, as to the reference decoder) */
        assert_converts("---\na: [1, {b: c}]\nd:\n  - x\n  - y\n", "{\"a\":[1,{\"b\":\"c\"}],\"d\":[\"x\",true]}");
        assert_converts("[]", "[]");
        assert_converts("{}", "{}");
        assert_converts("a: 1\n...\n", "{\"a\":1}");
}

static void test_refused(void **state)
{
        (void)state;
        assert_problem("a: 1\nb: 2\na: 3\n", "t.yaml:3:1: duplicate key \"a\"");
        assert_problem("a: &x 1\nb: *x\n", "t.yaml:1:4: anchors and aliases are not supported");
        assert_problem("a: 1\nb: *x\n", "t.yaml:2:4:");
        assert_problem("base: {a: 1}\nc:\n  <<: {b: 2}\n", "t.yaml:3:3: merge keys (<<) are not supported");
        assert_problem("a: 1\n---\nb: 2\n", "t.yaml:2:1: a second YAML document");
        assert_problem("", "t.yaml:1:1: no YAML document");
        assert_problem("# only a comment\n", "no YAML document");
        assert_problem("a: !custom 1\n", "t.yaml:1:4: unsupported tag !custom");
        assert_problem("a: !!int abc\n", "is not a value of tag tag:yaml.org,2002:int");
        assert_problem("a: 99999999999999999999\n", "integer 99999999999999999999 is out of range");
        assert_problem("a: 1e999\n", "number 1e999 is out of range");
        assert_problem("? [a]\n: 1\n", "a mapping key must be a plain value");
        assert_problem("a: [1, 2\n", "t.yaml:2:1:");
        assert_problem("a: \"x\ty\n", "t.yaml:");
        assert_problem("a: \"bad\\x\"\n", "t.yaml:1:");
        /* a key with a newline: the message stays one line */
        assert_problem("\"a\\nb\": 1\n\"a\\nb\": 2\n", "duplicate key \"a\\nb\"");
}

/* Where the spec wants a string, YAML's numbers and booleans become the
 * strings the reference decoder makes of them; elsewhere they stay. */
static void test_coerced(void **state)
{
        (void)state;
        const char *yaml = "cdiVersion: 0.6.0\n"
                           "kind: example.com/dev\n"
                           "annotations: {a: 1, b: yes}\n"
                           "devices:\n"
                           "- name: 0\n"
                           "  containerEdits:\n"
                           "    env: [A=1]\n"
                           "    deviceNodes: [{path: /dev/x, major: 0x10, minor: 010, fileMode: 0666}]\n"
                           "    hooks: [{hookName: poststop, path: /bin/h, args: [h, 1, on, 1.5, 1e6, 0.00001]}]\n"
                           "- name: 0x1F\n"
                           "  containerEdits: {env: [B=2]}\n"
                           "- name: 1e3\n"
                           "  containerEdits: {env: [C=3]}\n";
        _cleanup_cdi_doc_ struct ctk_cdi_doc doc = {0};
        _cleanup_cdi_report_ struct ctk_cdi_report rep = {0};
        assert_int_equal(ctk_cdi_parse("c.yaml", yaml, strlen(yaml), &doc, &rep, NULL), 0);
        assert_int_equal(rep.errors.n, 0);
        _cleanup_free_ char *got = json_dumps(doc.root, JSON_COMPACT | JSON_PRESERVE_ORDER);
        assert_string_equal(got, "{\"cdiVersion\":\"0.6.0\",\"kind\":\"example.com/dev\",\"annotations\":"
                                 "{\"a\":\"1\",\"b\":\"true\"},\"devices\":[{\"name\":\"0\",\"containerEdits\":"
                                 "{\"env\":[\"A=1\"],\"deviceNodes\":[{\"path\":\"/dev/x\",\"major\":16,\"minor\":8,"
                                 "\"fileMode\":438}],\"hooks\":[{\"hookName\":\"poststop\",\"path\":\"/bin/h\","
                                 "\"args\":[\"h\",\"1\",\"true\",\"1.5\",\"1e+06\",\"1e-05\"]}]}},"
                                 "{\"name\":\"31\",\"containerEdits\":{\"env\":[\"B=2\"]}},"
                                 "{\"name\":\"1000\",\"containerEdits\":{\"env\":[\"C=3\"]}}]}");
        const struct ctk_cdi_source src = ctk_cdi_doc_source(&doc);
        assert_int_equal(ctk_cdi_check(doc.root, &src, &rep), 0);
        /* JSON is not coerced: a number is no name there */
        const char *json = "{\"cdiVersion\": \"0.5.0\", \"kind\": \"a.b/c\", \"devices\": [{\"name\": 0, "
                           "\"containerEdits\": {\"env\": [\"A=1\"]}}]}";
        _cleanup_cdi_doc_ struct ctk_cdi_doc d2 = {0};
        _cleanup_cdi_report_ struct ctk_cdi_report r2 = {0};
        assert_int_equal(ctk_cdi_parse("c.json", json, strlen(json), &d2, &r2, NULL), 0);
        const struct ctk_cdi_source s2 = ctk_cdi_doc_source(&d2);
        assert_int_equal(ctk_cdi_check(d2.root, &s2, &r2), 1);
}

static void test_depth(void **state)
{
        (void)state;
        size_t n = 10000;
        char *deep = malloc(2 * n + 1);
        assert_non_null(deep);
        memset(deep, '[', n);
        memset(deep + n, ']', n);
        deep[2 * n] = '\0';
        assert_problem(deep, "nested deeper than 64 levels");
        free(deep);
}

/* A spec as NVIDIA's toolkit writes them, in YAML and in JSON: the same
 * document, and it passes the checks. */
static void test_spec(void **state)
{
        (void)state;
        const char *yaml = "---\n"
                           "cdiVersion: 0.5.0\n"
                           "kind: example.com/gpu\n"
                           "devices:\n"
                           "- name: \"0\"\n"
                           "  containerEdits:\n"
                           "    deviceNodes:\n"
                           "    - path: /dev/example0\n"
                           "      hostPath: /dev/example0\n"
                           "containerEdits:\n"
                           "  env:\n"
                           "  - EXAMPLE_VISIBLE_DEVICES=void\n"
                           "  hooks:\n"
                           "  - hookName: createContainer\n"
                           "    path: /usr/bin/example-hook\n"
                           "    args: [example-hook, update-ldcache]\n"
                           "  mounts:\n"
                           "  - hostPath: /usr/lib/libexample.so.1\n"
                           "    containerPath: /usr/lib/libexample.so.1\n"
                           "    options: [ro, nosuid, nodev, bind]\n";
        const char *json = "{\"cdiVersion\":\"0.5.0\",\"kind\":\"example.com/gpu\",\"devices\":[{\"name\":\"0\","
                           "\"containerEdits\":{\"deviceNodes\":[{\"path\":\"/dev/example0\",\"hostPath\":"
                           "\"/dev/example0\"}]}}],\"containerEdits\":{\"env\":[\"EXAMPLE_VISIBLE_DEVICES=void\"],"
                           "\"hooks\":[{\"hookName\":\"createContainer\",\"path\":\"/usr/bin/example-hook\",\"args\":"
                           "[\"example-hook\",\"update-ldcache\"]}],\"mounts\":[{\"hostPath\":"
                           "\"/usr/lib/libexample.so.1\",\"containerPath\":\"/usr/lib/libexample.so.1\",\"options\":"
                           "[\"ro\",\"nosuid\",\"nodev\",\"bind\"]}]}}";
        assert_converts(yaml, json);
        _cleanup_cdi_doc_ struct ctk_cdi_doc doc = {0};
        _cleanup_cdi_report_ struct ctk_cdi_report rep = {0};
        assert_int_equal(ctk_cdi_parse("spec.yaml", yaml, strlen(yaml), &doc, &rep, NULL), 0);
        assert_true(doc.yaml);
        assert_non_null(doc.root);
        const struct ctk_cdi_source src = ctk_cdi_doc_source(&doc);
        assert_null(src.text); /* positions of problems are YAML's: paths only */
        assert_int_equal(ctk_cdi_check(doc.root, &src, &rep), 0);

        /* a problem of the checks names the file and the path */
        const char *wrong = "cdiVersion: 0.5.0\nkind: example.com/gpu\ndevices:\n- name: [0]\n  containerEdits:\n"
                            "    env: [A=1]\n";
        _cleanup_cdi_doc_ struct ctk_cdi_doc d2 = {0};
        _cleanup_cdi_report_ struct ctk_cdi_report r2 = {0};
        assert_int_equal(ctk_cdi_parse("w.yaml", wrong, strlen(wrong), &d2, &r2, NULL), 0);
        const struct ctk_cdi_source s2 = ctk_cdi_doc_source(&d2);
        assert_int_equal(ctk_cdi_check(d2.root, &s2, &r2), 1);
        assert_string_equal(r2.errors.v[0], "w.yaml: devices[0].name: must be a string, not an array");
        /* .yml is YAML for an explicit path too */
        assert_true(ctk_cdi_is_yaml_name("x.yml"));
        assert_false(ctk_cdi_is_yaml_name("x.json"));
        assert_false(ctk_cdi_is_yaml_name("yaml"));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_scalars), cmocka_unit_test(test_structure), cmocka_unit_test(test_refused),
            cmocka_unit_test(test_coerced), cmocka_unit_test(test_depth),     cmocka_unit_test(test_spec),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
