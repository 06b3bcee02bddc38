/* Unit tests of the node-generic-resources edit of daemon.json
 * (core/engines/docker_resources.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "core/engines/docker.h"
#include "core/engines/docker_resources.h"

static json_t *parse_ok(const char *text)
{
        json_t *doc = NULL;
        struct ctk_error *err = NULL;
        if (ctk_docker_config_parse(text, strlen(text), "daemon.json", &doc, &err) < 0)
                fail_msg("parse failed: %s", err->msg);
        if (ctk_docker_resources_check(doc, text, strlen(text), "daemon.json", &err) < 0)
                fail_msg("check failed: %s", err->msg);
        return doc;
}

/* Sets kind's entries to values in text: the result and whether it changed;
 * the same edit again changes nothing. */
static void check_set(const char *text, const char *kind, char *const *values, size_t n, bool want_changed,
                      const char *want)
{
        json_t *doc = parse_ok(text);
        bool changed = !want_changed;
        struct ctk_error *err = NULL;
        assert_int_equal(ctk_docker_resources_set(doc, kind, values, n, &changed, &err), 0);
        char *out = ctk_docker_config_dump(doc, ctk_json_guess_indent(text, strlen(text)));
        if (strcmp(out, want) != 0)
                fail_msg("\n got:\n%s\nwant:\n%s", out, want);
        if (changed != want_changed)
                fail_msg("changed %d, want %d", changed, want_changed);
        assert_int_equal(ctk_docker_resources_set(doc, kind, values, n, &changed, &err), 0);
        assert_false(changed);
        free(out);
        json_decref(doc);
}

static void check_error(const char *text, const char *want)
{
        json_t *doc = NULL;
        struct ctk_error *err = NULL;
        assert_int_equal(ctk_docker_config_parse(text, strlen(text), "/etc/docker/daemon.json", &doc, &err), 0);
        if (ctk_docker_resources_check(doc, text, strlen(text), "/etc/docker/daemon.json", &err) == 0)
                fail_msg("accepted:\n%s", text);
        if (strcmp(err->msg, want) != 0)
                fail_msg("\n got: %s\nwant: %s", err->msg, want);
        ctk_error_free(err);
        json_decref(doc);
}

static char *two[] = {"0xEA35F57CC80DEB35", "0x89CAA15875FF5A43"};

static void test_fresh_file(void **state)
{
        (void)state;
        check_set("", "AMD_GPU", two, 2, true,
                  "{\n"
                  "    \"node-generic-resources\": [\n"
                  "        \"AMD_GPU=0xEA35F57CC80DEB35\",\n"
                  "        \"AMD_GPU=0x89CAA15875FF5A43\"\n"
                  "    ]\n"
                  "}\n");
}

static void test_keeps_other_kinds_and_places(void **state)
{
        (void)state;
        /* ours replace the old ones where the first stood; NVIDIA_GPU and a
         * custom kind keep their places; kinds match exactly (amd_gpu is
         * another kind), blanks around them as dockerd trims them */
        static const char text[] = "{\n"
                                   "  \"runtimes\": {},\n"
                                   "  \"node-generic-resources\": [\n"
                                   "    \"NVIDIA_GPU=GPU-1a2b\",\n"
                                   "    \" AMD_GPU = 0x1\",\n"
                                   "    \"amd_gpu=0x2\",\n"
                                   "    \"AMD_GPU=0x3\",\n"
                                   "    \"SSD=2\"\n"
                                   "  ],\n"
                                   "  \"debug\": true\n"
                                   "}\n";
        check_set(text, "AMD_GPU", two, 2, true,
                  "{\n"
                  "  \"runtimes\": {},\n"
                  "  \"node-generic-resources\": [\n"
                  "    \"NVIDIA_GPU=GPU-1a2b\",\n"
                  "    \"AMD_GPU=0xEA35F57CC80DEB35\",\n"
                  "    \"AMD_GPU=0x89CAA15875FF5A43\",\n"
                  "    \"amd_gpu=0x2\",\n"
                  "    \"SSD=2\"\n"
                  "  ],\n"
                  "  \"debug\": true\n"
                  "}\n");
        /* another kind of ours goes at the end */
        static char *one[] = {"gpu0"};
        check_set("{\"node-generic-resources\": [\"NVIDIA_GPU=GPU-1\"]}", "GPU_COMPUTE", one, 1, true,
                  "{\n"
                  "    \"node-generic-resources\": [\n"
                  "        \"NVIDIA_GPU=GPU-1\",\n"
                  "        \"GPU_COMPUTE=gpu0\"\n"
                  "    ]\n"
                  "}\n");
}

static void test_unchanged(void **state)
{
        (void)state;
        check_set("{\"node-generic-resources\": [\"AMD_GPU=0xEA35F57CC80DEB35\", \"AMD_GPU=0x89CAA15875FF5A43\"]}",
                  "AMD_GPU", two, 2, false,
                  "{\n"
                  "    \"node-generic-resources\": [\n"
                  "        \"AMD_GPU=0xEA35F57CC80DEB35\",\n"
                  "        \"AMD_GPU=0x89CAA15875FF5A43\"\n"
                  "    ]\n"
                  "}\n");
}

static void test_remove(void **state)
{
        (void)state;
        check_set("{\"a\": 1, \"node-generic-resources\": [\"AMD_GPU=0x1\", \"X=1\", \"AMD_GPU=0x2\"]}", "AMD_GPU",
                  NULL, 0, true, "{\n    \"a\": 1,\n    \"node-generic-resources\": [\n        \"X=1\"\n    ]\n}\n");
        /* the key goes with the last entry */
        check_set("{\"a\": 1, \"node-generic-resources\": [\"AMD_GPU=0x1\"]}", "AMD_GPU", NULL, 0, true,
                  "{\n    \"a\": 1\n}\n");
        /* nothing of ours: nothing changes */
        check_set("{\"a\": 1}", "AMD_GPU", NULL, 0, false, "{\n    \"a\": 1\n}\n");
        check_set("{\"node-generic-resources\": [\"X=1\"]}", "AMD_GPU", NULL, 0, false,
                  "{\n    \"node-generic-resources\": [\n        \"X=1\"\n    ]\n}\n");
}

static void test_get(void **state)
{
        (void)state;
        json_t *doc = parse_ok("{\"node-generic-resources\": [\"AMD_GPU=0x1\", \"X=2\", \" AMD_GPU =\\t0x1:3 \", "
                               "\"AMD_GPU\", \"=AMD_GPU\"]}");
        struct ctk_strv v = {0};
        struct ctk_error *err = NULL;
        assert_int_equal(ctk_docker_resources_get(doc, "AMD_GPU", &v, &err), 0);
        assert_int_equal(v.n, 2);
        assert_string_equal(v.v[0], "0x1");
        assert_string_equal(v.v[1], "0x1:3");
        ctk_strv_clear(&v);
        assert_int_equal(ctk_docker_resources_get(doc, "NONE", &v, &err), 0);
        assert_int_equal(v.n, 0);
        json_decref(doc);
}

static void test_wrong_types(void **state)
{
        (void)state;
        check_error("{\n  \"node-generic-resources\": \"AMD_GPU=0x1\"\n}",
                    "/etc/docker/daemon.json:2:3: \"node-generic-resources\" must be an array of \"KIND=VALUE\" "
                    "strings, not a string; fix or remove it and try again");
        check_error("{\"node-generic-resources\": [\"X=1\",\n  {\"AMD_GPU\": 1}]}",
                    "/etc/docker/daemon.json:2:3: the entries of \"node-generic-resources\" must be \"KIND=VALUE\" "
                    "strings, not an object; fix or remove it and try again");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_fresh_file), cmocka_unit_test(test_keeps_other_kinds_and_places),
            cmocka_unit_test(test_unchanged),  cmocka_unit_test(test_remove),
            cmocka_unit_test(test_get),        cmocka_unit_test(test_wrong_types),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
