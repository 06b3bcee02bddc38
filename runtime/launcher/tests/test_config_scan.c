/* Unit tests of the launcher's configuration reader
 * (runtime/launcher/config_scan.c): what it reads, it reads exactly as the
 * jansson-based reader (core/config/config.c) does; what it refuses, it leaves to
 * that reader. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/base.h"
#include "core/config/config.h"
#include "runtime/launcher/config_scan.h"

/* text is read by both readers, with the same result. */
static void same(const char *text)
{
        struct ctk_config a, b;
        _cleanup_error_ struct ctk_error *err = NULL;
        if (rt_config_scan(text, strlen(text), &a) < 0)
                fail_msg("the launcher refused: %s", text);
        if (ctk_config_parse(text, strlen(text), "c.json", &b, &err) < 0)
                fail_msg("the full reader refused: %s: %s", text, err->msg);
        _cleanup_free_ char *da = ctk_config_dump(&a);
        _cleanup_free_ char *db = ctk_config_dump(&b);
        assert_string_equal(da, db);
        ctk_config_clear(&a);
        ctk_config_clear(&b);
}

/* text is left to the full reader. */
static void refused(const char *text)
{
        struct ctk_config a = {.log_level = NULL};
        if (rt_config_scan(text, strlen(text), &a) == 0)
                fail_msg("the launcher read: %s", text);
        assert_null(a.log_level); /* nothing half set */
}

static void test_reads_plain_files(void **state)
{
        (void)state;
        same("");
        same(" \n\t\r\n");
        same("{}");
        same("{ }");
        same("{\"runtime-path\": \"/usr/bin/runc\", \"log-level\": \"debug\"}");
        same("{\n  \"root\": null,\n  \"profile\": \"/p.json\",\n  \"runtime-path\": \"crun\",\n"
             "  \"log-file\": \"/var/log/x.log\",\n  \"log-level\": \"warning\",\n  \"state-dir\": \"/s\",\n"
             "  \"resource-kinds\": [\"AMD_GPU\", \"GPU\", \"X.y-z\"],\n  \"seccomp-numa\": false,\n"
             "  \"ctk-path\": \"/usr/bin/amd-ctk\",\n  \"cdi-spec-dirs\": [ \"/etc/cdi\" ]\n}\n");
        same("{\"resource-kinds\": [], \"seccomp-numa\": true}");
        same("{\"log-file\": \"\\/tmp\\/a \\\"b\\\" \\\\ c\\td\"}"); /* escapes other than \u */
        same("{\"root\":\"/r\",\"ctk-path\":null}");
        same("{\"accept-visible-devices-envvar-when-unprivileged\": false, \"cdi-annotation-prefixes\": [],"
             " \"cdi-kinds\": [\"*\"]}");
        same("{\"cdi-annotation-prefixes\": [\"example.com/gpu-\", \"cdi.k8s.io/\"], \"cdi-kinds\": []}");
}

/* Every key the full reader knows, the launcher knows: `config default`'s
 * output, and a file that sets every key to something else, read the same. */
static void test_every_key(void **state)
{
        (void)state;
        struct ctk_config c;
        assert_int_equal(ctk_config_defaults(&c, NULL), 0);
        _cleanup_free_ char *defaults = ctk_config_dump(&c);
        ctk_config_clear(&c);
        same(defaults);
        size_t n;
        const struct ctk_config_field *f = ctk_config_fields(&n);
        for (size_t i = 0; i < n; i++) {
                /* each key once, with a value its kind accepts (not the default) */
                static const char *const values[] = {
                    [CTK_CONFIG_F_PATH] = "\"/x\"",       [CTK_CONFIG_F_PROGRAM] = "\"crun\"",
                    [CTK_CONFIG_F_LEVEL] = "\"error\"",   [CTK_CONFIG_F_KINDS] = "[\"X\"]",
                    [CTK_CONFIG_F_BOOL] = "false",        [CTK_CONFIG_F_DIRS] = "[\"/d\"]",
                    [CTK_CONFIG_F_MODE] = "\"legacy\"",   [CTK_CONFIG_F_PREFIXES] = "[\"a.example/\"]",
                    [CTK_CONFIG_F_CDI_KINDS] = "[\"*\"]",
                };
                assert_true((size_t)f[i].kind < sizeof(values) / sizeof(values[0]) && values[f[i].kind] != NULL);
                _cleanup_free_ char *text = NULL;
                assert_true(asprintf(&text, "{\"%s\": %s}", f[i].key, values[f[i].kind]) > 0);
                same(text);
        }
}

static void test_leaves_the_rest_to_jansson(void **state)
{
        (void)state;
        /* invalid JSON */
        refused("{");
        refused("{\"log-level\": \"info\"");
        refused("{\"log-level\": \"info\",}");
        refused("{\"log-level\" \"info\"}");
        refused("{\"log-level\": \"info\"} {}");
        refused("{\"log-level\": \"in\nfo\"}");
        refused("{\"log-level\": tru}");
        refused("{'log-level': 'info'}");
        refused("{\"resource-kinds\": [\"GPU\",]}");
        refused("{\"log-file\": \"/x\\q\"}");
        /* valid JSON outside the subset */
        refused("[]");
        refused("\"x\"");
        refused("{\"log-file\": \"/tmp/\\u00e9\"}");
        refused("{\"log-file\": \"/tmp/\xc3\xa9\"}");
        refused("{\"seccomp-numa\": 1}");
        refused("{\"resource-kinds\": [\"GPU\", 1]}");
        refused("{\"resource-kinds\": [[\"GPU\"]]}");
        refused("{\"root\": {}}");
        /* the same key twice (jansson is told to reject it) */
        refused("{\"log-level\": \"info\", \"log-level\": \"info\"}");
        /* values the checks of core/config/fields.c refuse */
        refused("{\"unknown\": null}");
        refused("{\"log-level\": \"loud\"}");
        refused("{\"log-level\": null}");
        refused("{\"state-dir\": \"relative\"}");
        refused("{\"runtime-path\": \"bin/runc\"}");
        refused("{\"resource-kinds\": [\"A B\"]}");
        refused("{\"cdi-spec-dirs\": []}");
        refused("{\"seccomp-numa\": \"yes\"}");
        refused("{\"root\": \"/r\", \"profile\": \"/p\"}");
        refused("{\"cdi-kinds\": [\"amd.com\"]}");
        refused("{\"cdi-annotation-prefixes\": [\"\"]}");
}

/* Found by the config fuzzer: an empty array before any string (no
 * string storage yet) was turned into an element pointer by adding 0 to a
 * null pointer.  Either reader's verdict on it must be the other's. */
static void test_empty_arrays(void **state)
{
        (void)state;
        static const char *const texts[] = {
            "{\"resource-kinds\": []}",
            "{\"cdi-spec-dirs\": [ ]}",
            "{\"resource-kinds\": [], \"log-level\": \"debug\"}",
        };
        for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
                struct ctk_config a = {0}, b = {0};
                _cleanup_error_ struct ctk_error *err = NULL;
                int rs = ctk_config_parse(texts[i], strlen(texts[i]), "c.json", &b, &err);
                if (rt_config_scan(texts[i], strlen(texts[i]), &a) == 0) {
                        assert_int_equal(rs, 0);
                        _cleanup_free_ char *da = ctk_config_dump(&a);
                        _cleanup_free_ char *db = ctk_config_dump(&b);
                        assert_string_equal(da, db);
                }
                ctk_config_clear(&a);
                ctk_config_clear(&b);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_reads_plain_files),
            cmocka_unit_test(test_every_key),
            cmocka_unit_test(test_leaves_the_rest_to_jansson),
            cmocka_unit_test(test_empty_arrays),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
