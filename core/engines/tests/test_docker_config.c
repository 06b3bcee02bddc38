/* Unit tests of the daemon.json editing logic (core/engines/docker.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "core/engines/docker.h"

static const struct ctk_docker_edit add_plain = {
    .action = CTK_DOCKER_ADD, .name = "amd", .path = "amd-container-runtime"};
static const struct ctk_docker_edit add_default = {
    .action = CTK_DOCKER_ADD, .name = "amd", .path = "amd-container-runtime", .set_as_default = true};
static const struct ctk_docker_edit unset_default = {.action = CTK_DOCKER_UNSET_DEFAULT, .name = "amd"};
static const struct ctk_docker_edit remove_amd = {.action = CTK_DOCKER_REMOVE, .name = "amd"};

static json_t *parse_ok(const char *text)
{
        json_t *doc = NULL;
        struct ctk_error *err = NULL;
        if (ctk_docker_config_parse(text, strlen(text), "daemon.json", &doc, &err) < 0)
                fail_msg("parse failed: %s", err->msg);
        assert_non_null(doc);
        return doc;
}

static void check_parse_error(const char *text, const char *want)
{
        json_t *doc = NULL;
        struct ctk_error *err = NULL;
        if (ctk_docker_config_parse(text, strlen(text), "/etc/docker/daemon.json", &doc, &err) == 0)
                fail_msg("accepted:\n%s", text);
        assert_null(doc);
        if (strcmp(err->msg, want) != 0)
                fail_msg("\n got: %s\nwant: %s", err->msg, want);
        ctk_error_free(err);
}

/* Applies e to text; checks the change bits and the resulting text (indent from the input). */
static void check_edit(const char *text, const struct ctk_docker_edit *e, unsigned want_changes, const char *want)
{
        json_t *doc = parse_ok(text);
        unsigned changes = 99;
        struct ctk_error *err = NULL;
        assert_int_equal(ctk_docker_config_apply(doc, e, &changes, &err), 0);
        assert_null(err);
        char *out = ctk_docker_config_dump(doc, ctk_json_guess_indent(text, strlen(text)));
        assert_non_null(out);
        if (strcmp(out, want) != 0)
                fail_msg("\n got:\n%s\nwant:\n%s", out, want);
        if (changes != want_changes)
                fail_msg("changes 0x%x, want 0x%x", changes, want_changes);
        /* Applying the same edit again changes nothing. */
        assert_int_equal(ctk_docker_config_apply(doc, e, &changes, &err), 0);
        assert_int_equal(changes, 0);
        char *again = ctk_docker_config_dump(doc, ctk_json_guess_indent(text, strlen(text)));
        assert_string_equal(again, want);
        free(again);
        free(out);
        json_decref(doc);
}

static const char fresh_add[] = "{\n"
                                "    \"runtimes\": {\n"
                                "        \"amd\": {\n"
                                "            \"path\": \"amd-container-runtime\"\n"
                                "        }\n"
                                "    },\n"
                                "    \"features\": {\n"
                                "        \"cdi\": true\n"
                                "    }\n"
                                "}\n";

static void test_parse_blank_is_empty_object(void **state)
{
        (void)state;
        const char *blank[] = {"", " ", "\n\n", "\t\r\n"};
        for (size_t i = 0; i < 4; i++) {
                json_t *doc = parse_ok(blank[i]);
                assert_true(json_is_object(doc));
                assert_int_equal(json_object_size(doc), 0);
                json_decref(doc);
        }
}

static void test_parse_syntax_errors(void **state)
{
        (void)state;
        check_parse_error(
            "{\n    \"runtimes\": {\n        \"nvidia\": {\"path\": \"nvidia-container-runtime\"}\n    }\n",
            "/etc/docker/daemon.json:5:0: '}' expected near end of file");
        check_parse_error("{\"a\": 1,}", "/etc/docker/daemon.json:1:9: string or '}' expected near '}'");
        check_parse_error("{\"a\": 1}\n{\"b\": 2}", "/etc/docker/daemon.json:2:1: end of file expected near '{'");
        check_parse_error("{\"debug\": true,\n \"debug\": false}",
                          "/etc/docker/daemon.json:2:8: duplicate object key near '\"debug\"'");
        check_parse_error("{'a': 1}", "/etc/docker/daemon.json:1:2: string or '}' expected near '''");
}

static void test_parse_not_an_object(void **state)
{
        (void)state;
        check_parse_error("null", "/etc/docker/daemon.json:1:1: the file must contain a JSON object, not null");
        check_parse_error("null\n", "/etc/docker/daemon.json:1:1: the file must contain a JSON object, not null");
        check_parse_error("  []", "/etc/docker/daemon.json:1:3: the file must contain a JSON object, not an array");
        check_parse_error("\"x\"", "/etc/docker/daemon.json:1:1: the file must contain a JSON object, not a string");
        check_parse_error("42", "/etc/docker/daemon.json:1:1: the file must contain a JSON object, not a number");
}

static void test_parse_wrong_types(void **state)
{
        (void)state;
        check_parse_error("{\n  \"debug\": true,\n  \"runtimes\": []\n}",
                          "/etc/docker/daemon.json:3:3: \"runtimes\" must be an object, not an array; fix or remove "
                          "it and try again");
        check_parse_error("{\"features\": \"cdi\"}",
                          "/etc/docker/daemon.json:1:2: \"features\" must be an object, not a string; fix or remove it "
                          "and try again");
        check_parse_error("{\"features\": null}",
                          "/etc/docker/daemon.json:1:2: \"features\" must be an object, not null; fix or remove it and "
                          "try again");
        check_parse_error("{\"default-runtime\": 1}",
                          "/etc/docker/daemon.json:1:2: \"default-runtime\" must be a string, not a number; fix or "
                          "remove it and try again");
}

static void test_add_fresh(void **state)
{
        (void)state;
        check_edit("", &add_plain, CTK_DOCKER_RUNTIME_ADDED | CTK_DOCKER_CDI_ENABLED, fresh_add);
        check_edit("{}", &add_plain, CTK_DOCKER_RUNTIME_ADDED | CTK_DOCKER_CDI_ENABLED, fresh_add);
}

/* no_cdi: features.cdi false, set or changed; already false is no change. */
static void test_add_no_cdi(void **state)
{
        (void)state;
        const struct ctk_docker_edit e = {
            .action = CTK_DOCKER_ADD, .name = "amd", .path = "amd-container-runtime", .no_cdi = true};
        const char *want = "{\n"
                           "    \"features\": {\n"
                           "        \"cdi\": false\n"
                           "    },\n"
                           "    \"runtimes\": {\n"
                           "        \"amd\": {\n"
                           "            \"path\": \"amd-container-runtime\"\n"
                           "        }\n"
                           "    }\n"
                           "}\n";
        check_edit("{\"features\": {\"cdi\": true}}", &e, CTK_DOCKER_RUNTIME_ADDED | CTK_DOCKER_CDI_DISABLED, want);
        check_edit(want, &e, 0, want);
}

static void test_add_set_as_default(void **state)
{
        (void)state;
        check_edit("{}", &add_default, CTK_DOCKER_RUNTIME_ADDED | CTK_DOCKER_CDI_ENABLED | CTK_DOCKER_DEFAULT_SET,
                   "{\n"
                   "    \"runtimes\": {\n"
                   "        \"amd\": {\n"
                   "            \"path\": \"amd-container-runtime\"\n"
                   "        }\n"
                   "    },\n"
                   "    \"features\": {\n"
                   "        \"cdi\": true\n"
                   "    },\n"
                   "    \"default-runtime\": \"amd\"\n"
                   "}\n");
        /* Already configured: only the default changes. */
        check_edit(fresh_add, &add_default, CTK_DOCKER_DEFAULT_SET,
                   "{\n"
                   "    \"runtimes\": {\n"
                   "        \"amd\": {\n"
                   "            \"path\": \"amd-container-runtime\"\n"
                   "        }\n"
                   "    },\n"
                   "    \"features\": {\n"
                   "        \"cdi\": true\n"
                   "    },\n"
                   "    \"default-runtime\": \"amd\"\n"
                   "}\n");
        /* Another default runtime is replaced, in place. */
        check_edit("{\"default-runtime\": \"nvidia\", \"debug\": true}", &add_default,
                   CTK_DOCKER_RUNTIME_ADDED | CTK_DOCKER_CDI_ENABLED | CTK_DOCKER_DEFAULT_SET,
                   "{\n"
                   "    \"default-runtime\": \"amd\",\n"
                   "    \"debug\": true,\n"
                   "    \"runtimes\": {\n"
                   "        \"amd\": {\n"
                   "            \"path\": \"amd-container-runtime\"\n"
                   "        }\n"
                   "    },\n"
                   "    \"features\": {\n"
                   "        \"cdi\": true\n"
                   "    }\n"
                   "}\n");
}

static void test_add_keeps_other_keys_and_order(void **state)
{
        (void)state;
        const char *in = "{\n"
                         "  \"storage-driver\": \"overlay2\",\n"
                         "  \"features\": {\n"
                         "    \"containerd-snapshotter\": true\n"
                         "  },\n"
                         "  \"runtimes\": {\n"
                         "    \"nvidia\": {\n"
                         "      \"runtimeArgs\": [],\n"
                         "      \"path\": \"nvidia-container-runtime\"\n"
                         "    }\n"
                         "  },\n"
                         "  \"log-opts\": {\"max-size\": \"10m\", \"max-file\": \"3\"},\n"
                         "  \"max-concurrent-downloads\": 12,\n"
                         "  \"default-shm-size\": \"64M\",\n"
                         "  \"registry-mirrors\": [\"https://mirror.example/\"]\n"
                         "}\n";
        check_edit(in, &add_plain, CTK_DOCKER_RUNTIME_ADDED | CTK_DOCKER_CDI_ENABLED,
                   "{\n"
                   "  \"storage-driver\": \"overlay2\",\n"
                   "  \"features\": {\n"
                   "    \"containerd-snapshotter\": true,\n"
                   "    \"cdi\": true\n"
                   "  },\n"
                   "  \"runtimes\": {\n"
                   "    \"nvidia\": {\n"
                   "      \"runtimeArgs\": [],\n"
                   "      \"path\": \"nvidia-container-runtime\"\n"
                   "    },\n"
                   "    \"amd\": {\n"
                   "      \"path\": \"amd-container-runtime\"\n"
                   "    }\n"
                   "  },\n"
                   "  \"log-opts\": {\n"
                   "    \"max-size\": \"10m\",\n"
                   "    \"max-file\": \"3\"\n"
                   "  },\n"
                   "  \"max-concurrent-downloads\": 12,\n"
                   "  \"default-shm-size\": \"64M\",\n"
                   "  \"registry-mirrors\": [\n"
                   "    \"https://mirror.example/\"\n"
                   "  ]\n"
                   "}\n");
}

static void test_add_runtime_args_and_updates(void **state)
{
        (void)state;
        char *args[] = {"--amd-config=/etc/amd-container-toolkit/test.json", "--debug"};
        struct ctk_docker_edit e = {.action = CTK_DOCKER_ADD,
                                    .name = "amd",
                                    .path = "/usr/local/bin/amd-container-runtime",
                                    .args = args,
                                    .nargs = 2};
        const char *with_args = "{\n"
                                "    \"runtimes\": {\n"
                                "        \"amd\": {\n"
                                "            \"path\": \"/usr/local/bin/amd-container-runtime\",\n"
                                "            \"runtimeArgs\": [\n"
                                "                \"--amd-config=/etc/amd-container-toolkit/test.json\",\n"
                                "                \"--debug\"\n"
                                "            ]\n"
                                "        }\n"
                                "    },\n"
                                "    \"features\": {\n"
                                "        \"cdi\": true\n"
                                "    }\n"
                                "}\n";
        check_edit("{}", &e, CTK_DOCKER_RUNTIME_ADDED | CTK_DOCKER_CDI_ENABLED, with_args);
        /* Different arguments or path update our entry in place. */
        check_edit(fresh_add, &e, CTK_DOCKER_RUNTIME_UPDATED, with_args);
        check_edit(with_args, &add_plain, CTK_DOCKER_RUNTIME_UPDATED, fresh_add);
        /* The Go tool's entry ("args", ignored by Docker) is replaced. */
        check_edit("{\n    \"runtimes\": {\n        \"amd\": {\n            \"args\": [],\n            \"path\": "
                   "\"amd-container-runtime\"\n        }\n    },\n    \"features\": {\n        \"cdi\": true\n    }\n}",
                   &add_plain, CTK_DOCKER_RUNTIME_UPDATED, fresh_add);
        /* Our entry with keys in another order is the same entry. */
        json_t *doc =
            parse_ok("{\"runtimes\": {\"amd\": {\"runtimeArgs\": [\"--amd-config=/etc/amd-container-"
                     "toolkit/test.json\", \"--debug\"], \"path\": \"/usr/local/bin/amd-container-runtime\"}},"
                     " \"features\": {\"cdi\": true}}");
        unsigned changes = 99;
        struct ctk_error *err = NULL;
        assert_int_equal(ctk_docker_config_apply(doc, &e, &changes, &err), 0);
        assert_int_equal(changes, 0);
        json_decref(doc);
}

static void test_add_enables_cdi(void **state)
{
        (void)state;
        check_edit("{\"features\": {\"cdi\": false}, \"runtimes\": {\"amd\": {\"path\": \"amd-container-runtime\"}}}",
                   &add_plain, CTK_DOCKER_CDI_ENABLED,
                   "{\n"
                   "    \"features\": {\n"
                   "        \"cdi\": true\n"
                   "    },\n"
                   "    \"runtimes\": {\n"
                   "        \"amd\": {\n"
                   "            \"path\": \"amd-container-runtime\"\n"
                   "        }\n"
                   "    }\n"
                   "}\n");
        check_edit("{\"features\": {\"cdi\": \"true\"}}", &add_plain, CTK_DOCKER_RUNTIME_ADDED | CTK_DOCKER_CDI_ENABLED,
                   "{\n"
                   "    \"features\": {\n"
                   "        \"cdi\": true\n"
                   "    },\n"
                   "    \"runtimes\": {\n"
                   "        \"amd\": {\n"
                   "            \"path\": \"amd-container-runtime\"\n"
                   "        }\n"
                   "    }\n"
                   "}\n");
}

static void test_unset_default(void **state)
{
        (void)state;
        check_edit("{\"default-runtime\": \"amd\", \"runtimes\": {\"amd\": {\"path\": \"amd-container-runtime\"}}}",
                   &unset_default, CTK_DOCKER_DEFAULT_UNSET,
                   "{\n"
                   "    \"runtimes\": {\n"
                   "        \"amd\": {\n"
                   "            \"path\": \"amd-container-runtime\"\n"
                   "        }\n"
                   "    }\n"
                   "}\n");
        /* Not ours: untouched (the Go tool deleted any default-runtime). */
        check_edit("{\"default-runtime\": \"nvidia\"}", &unset_default, 0,
                   "{\n    \"default-runtime\": \"nvidia\"\n}\n");
        check_edit("{}", &unset_default, 0, "{}\n");
        check_edit("", &unset_default, 0, "{}\n");
}

static void test_remove(void **state)
{
        (void)state;
        /* Only what is ours goes; features (cdi included) stays. */
        check_edit("{\n"
                   "    \"default-runtime\": \"amd\",\n"
                   "    \"features\": {\n"
                   "        \"cdi\": true,\n"
                   "        \"containerd-snapshotter\": true\n"
                   "    },\n"
                   "    \"runtimes\": {\n"
                   "        \"amd\": {\n"
                   "            \"path\": \"amd-container-runtime\"\n"
                   "        },\n"
                   "        \"nvidia\": {\n"
                   "            \"path\": \"nvidia-container-runtime\"\n"
                   "        }\n"
                   "    }\n"
                   "}\n",
                   &remove_amd, CTK_DOCKER_RUNTIME_REMOVED | CTK_DOCKER_DEFAULT_UNSET,
                   "{\n"
                   "    \"features\": {\n"
                   "        \"cdi\": true,\n"
                   "        \"containerd-snapshotter\": true\n"
                   "    },\n"
                   "    \"runtimes\": {\n"
                   "        \"nvidia\": {\n"
                   "            \"path\": \"nvidia-container-runtime\"\n"
                   "        }\n"
                   "    }\n"
                   "}\n");
        /* An emptied "runtimes" goes too; another default runtime stays. */
        check_edit("{\"default-runtime\": \"nvidia\", \"runtimes\": {\"amd\": {\"path\": \"x\"}}}", &remove_amd,
                   CTK_DOCKER_RUNTIME_REMOVED, "{\n    \"default-runtime\": \"nvidia\"\n}\n");
        /* A default pointing at our (already removed) runtime is ours to remove. */
        check_edit("{\"default-runtime\": \"amd\"}", &remove_amd, CTK_DOCKER_DEFAULT_UNSET, "{}\n");
        /* Nothing of ours: nothing changes (a pre-existing empty "runtimes" stays). */
        check_edit("{\"runtimes\": {}, \"features\": {\"cdi\": true}}", &remove_amd, 0,
                   "{\n    \"runtimes\": {},\n    \"features\": {\n        \"cdi\": true\n    }\n}\n");
        check_edit("", &remove_amd, 0, "{}\n");
}

static void test_add_then_remove(void **state)
{
        (void)state;
        json_t *doc = parse_ok("{\"debug\": true}");
        unsigned changes;
        struct ctk_error *err = NULL;
        assert_int_equal(ctk_docker_config_apply(doc, &add_default, &changes, &err), 0);
        assert_int_equal(ctk_docker_config_apply(doc, &remove_amd, &changes, &err), 0);
        assert_int_equal(changes, CTK_DOCKER_RUNTIME_REMOVED | CTK_DOCKER_DEFAULT_UNSET);
        char *out = ctk_docker_config_dump(doc, 4);
        assert_string_equal(out, "{\n    \"debug\": true,\n    \"features\": {\n        \"cdi\": true\n    }\n}\n");
        free(out);
        json_decref(doc);
}

static void test_default_runtime(void **state)
{
        (void)state;
        json_t *doc = parse_ok("{\"default-runtime\": \"runc\"}");
        assert_string_equal(ctk_docker_default_runtime(doc), "runc");
        json_decref(doc);
        doc = parse_ok("{}");
        assert_null(ctk_docker_default_runtime(doc));
        json_decref(doc);
}

static void test_values_survive(void **state)
{
        (void)state;
        /* Numbers exactly as parsed, unicode, escapes and NUL kept; nesting kept. */
        const char *in = "{\n"
                         "    \"a\": 0.1,\n"
                         "    \"b\": 1.5,\n"
                         "    \"c\": 9223372036854775807,\n"
                         "    \"d\": -3,\n"
                         "    \"e\": \"caf\\u00e9 \\\"q\\\" \\\\ \\u0000 tab\\t\",\n"
                         "    \"f\": [[], {}, [1, [2, {\"g\": null}]]],\n"
                         "    \"h\": 0.30000000000000004\n"
                         "}\n";
        json_t *doc = parse_ok(in);
        char *out = ctk_docker_config_dump(doc, 4);
        json_t *back = parse_ok(out);
        assert_true(json_equal(doc, back));
        assert_true(json_real_value(json_object_get(back, "a")) == 0.1);
        assert_true(json_real_value(json_object_get(back, "h")) == 0.30000000000000004);
        assert_int_equal(json_integer_value(json_object_get(back, "c")), INT64_MAX);
        assert_int_equal(json_string_length(json_object_get(back, "e")), 18);
        assert_non_null(strstr(out, "caf\xc3\xa9"));
        assert_non_null(strstr(out, "\\u0000"));
        /* The dump of a dump is the same text. */
        char *out2 = ctk_docker_config_dump(back, 4);
        assert_string_equal(out, out2);
        free(out);
        free(out2);
        json_decref(back);
        json_decref(doc);

        /* Short decimals print short when no value needs more digits. */
        doc = parse_ok("{\"a\": 0.1, \"b\": 1.5, \"c\": 2.25}");
        out = ctk_docker_config_dump(doc, 4);
        assert_string_equal(out, "{\n    \"a\": 0.1,\n    \"b\": 1.5,\n    \"c\": 2.25\n}\n");
        free(out);
        json_decref(doc);
}

static void test_guess_indent(void **state)
{
        (void)state;
        struct {
                const char *text;
                int want;
        } cases[] = {
            {"{\n  \"a\": 1\n}", 2},
            {"{\n    \"a\": 1\n}", 4},
            {"{\n\t\"a\": 1\n}", 4},
            {"{\"a\": 1}", 4},
            {"", 4},
            {"{\n\n   \"a\": 1\n}", 3},
            {"{\n            \"a\": 1\n}", 4},
            {"{\n \"a\": {\n   \"b\": 1\n }\n}", 1},
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
                if (ctk_json_guess_indent(cases[i].text, strlen(cases[i].text)) != cases[i].want)
                        fail_msg("case %zu: got %d want %d", i,
                                 ctk_json_guess_indent(cases[i].text, strlen(cases[i].text)), cases[i].want);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_parse_blank_is_empty_object),
            cmocka_unit_test(test_add_no_cdi),
            cmocka_unit_test(test_parse_syntax_errors),
            cmocka_unit_test(test_parse_not_an_object),
            cmocka_unit_test(test_parse_wrong_types),
            cmocka_unit_test(test_add_fresh),
            cmocka_unit_test(test_add_set_as_default),
            cmocka_unit_test(test_add_keeps_other_keys_and_order),
            cmocka_unit_test(test_add_runtime_args_and_updates),
            cmocka_unit_test(test_add_enables_cdi),
            cmocka_unit_test(test_unset_default),
            cmocka_unit_test(test_remove),
            cmocka_unit_test(test_add_then_remove),
            cmocka_unit_test(test_default_runtime),
            cmocka_unit_test(test_values_survive),
            cmocka_unit_test(test_guess_indent),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
