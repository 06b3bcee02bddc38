/* Unit tests of the configuration file (core/config/config.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/config/config.h"
#include "core/config/fields.h"
#include "core/base/tests/scratch_dir.h"

static const char default_dump[] = "{\n"
                                   "    \"root\": null,\n"
                                   "    \"profile\": null,\n"
                                   "    \"runtime-path\": null,\n"
                                   "    \"log-file\": \"/var/log/amd-container-runtime.log\",\n"
                                   "    \"log-level\": \"info\",\n"
                                   "    \"state-dir\": \"/var/lib/amd-container-toolkit\",\n"
                                   "    \"resource-kinds\": [\n"
                                   "        \"AMD_GPU\",\n"
                                   "        \"GPU\"\n"
                                   "    ],\n"
                                   "    \"seccomp-numa\": true,\n"
                                   "    \"ctk-path\": null,\n"
                                   "    \"cdi-spec-dirs\": [\n"
                                   "        \"/etc/cdi\",\n"
                                   "        \"/var/run/cdi\"\n"
                                   "    ],\n"
                                   "    \"cdi-refresh\": true,\n"
                                   "    \"mode\": \"auto\",\n"
                                   "    \"cdi-refresh-on-stale\": false,\n"
                                   "    \"accept-visible-devices-envvar-when-unprivileged\": true,\n"
                                   "    \"cdi-annotation-prefixes\": [\n"
                                   "        \"cdi.k8s.io/\"\n"
                                   "    ],\n"
                                   "    \"cdi-kinds\": [\n"
                                   "        \"amd.com/gpu\"\n"
                                   "    ]\n"
                                   "}\n";

static void assert_defaults(const struct ctk_config *c)
{
        assert_null(c->root);
        assert_null(c->profile);
        assert_null(c->runtime_path);
        assert_string_equal(c->log_file, "/var/log/amd-container-runtime.log");
        assert_string_equal(c->log_level, "info");
        assert_string_equal(c->state_dir, "/var/lib/amd-container-toolkit");
        assert_int_equal(c->resource_kinds.n, 2);
        assert_string_equal(c->resource_kinds.v[0], "AMD_GPU");
        assert_string_equal(c->resource_kinds.v[1], "GPU");
        assert_null(c->resource_kinds.v[2]);
        assert_true(c->seccomp_numa);
        assert_null(c->ctk_path);
        assert_int_equal(c->cdi_spec_dirs.n, 2);
        assert_string_equal(c->cdi_spec_dirs.v[0], "/etc/cdi");
        assert_string_equal(c->cdi_spec_dirs.v[1], "/var/run/cdi");
        assert_string_equal(c->mode, "auto");
        assert_int_equal(ctk_config_mode_of(c), CTK_MODE_AUTO);
        assert_false(c->cdi_refresh_on_stale);
        assert_true(c->cdi_refresh);
        assert_true(c->accept_env_unprivileged);
        assert_int_equal(c->cdi_annotation_prefixes.n, 1);
        assert_string_equal(c->cdi_annotation_prefixes.v[0], "cdi.k8s.io/");
        assert_int_equal(c->cdi_kinds.n, 1);
        assert_string_equal(c->cdi_kinds.v[0], "amd.com/gpu");
}

static int parse(const char *text, struct ctk_config *c, struct ctk_error **err)
{
        return ctk_config_parse(text, strlen(text), "config.json", c, err);
}

static void check_error(const char *text, const char *want)
{
        struct ctk_config c = {.root = (char *)"sentinel"};
        struct ctk_error *err = NULL;
        if (parse(text, &c, &err) == 0)
                fail_msg("accepted:\n%s\nwant error: %s", text, want);
        assert_non_null(err);
        if (strcmp(err->msg, want) != 0)
                fail_msg("\n got: %s\nwant: %s", err->msg, want);
        assert_string_equal(c.root, "sentinel"); /* *out untouched on error */
        ctk_error_free(err);
}

static void test_defaults(void **state)
{
        (void)state;
        struct ctk_config c;
        struct ctk_error *err = NULL;
        assert_int_equal(ctk_config_defaults(&c, &err), 0);
        assert_defaults(&c);
        char *s = ctk_config_dump(&c);
        assert_string_equal(s, default_dump);
        free(s);
        ctk_config_clear(&c);
        assert_null(c.log_file);
        assert_null(c.resource_kinds.v);
        ctk_config_clear(&c); /* twice is harmless */
}

static void test_default_round_trip(void **state)
{
        (void)state;
        struct ctk_config c;
        struct ctk_error *err = NULL;
        assert_int_equal(parse(default_dump, &c, &err), 0);
        assert_defaults(&c);
        char *s = ctk_config_dump(&c);
        assert_string_equal(s, default_dump);
        free(s);
        ctk_config_clear(&c);
}

/* The keys the file set, even to their default values, and only those. */
static void test_given(void **state)
{
        (void)state;
        struct ctk_config c;
        struct ctk_error *err = NULL;
        assert_int_equal(ctk_config_defaults(&c, &err), 0);
        assert_false(ctk_config_given(&c, "state-dir"));
        ctk_config_clear(&c);
        assert_int_equal(parse("{\"state-dir\": \"/var/lib/amd-container-toolkit\", \"seccomp-numa\": true}", &c, &err),
                         0);
        assert_true(ctk_config_given(&c, "state-dir"));
        assert_true(ctk_config_given(&c, "seccomp-numa"));
        assert_false(ctk_config_given(&c, "root"));
        assert_false(ctk_config_given(&c, "no-such-key"));
        ctk_config_clear(&c);
}

/* cdi-annotation-prefixes and cdi-kinds: empty arrays turn them off; bad
 * entries are one error naming the key and the entry. */
static void test_cdi_policy_keys(void **state)
{
        (void)state;
        struct ctk_config c;
        struct ctk_error *err = NULL;
        assert_int_equal(parse("{\"cdi-annotation-prefixes\": [], \"cdi-kinds\": []}", &c, &err), 0);
        assert_int_equal(c.cdi_annotation_prefixes.n, 0);
        assert_int_equal(c.cdi_kinds.n, 0);
        assert_false(ctk_config_cdi_kind_allowed(&c.cdi_kinds, "amd.com/gpu=0"));
        ctk_config_clear(&c);
        check_error("{\"cdi-kinds\": [\"amd.com\"]}",
                    "config.json:1:16: \"cdi-kinds\" entries are CDI kinds "
                    "vendor/class (e.g. \"amd.com/gpu\") or \"*\" for any (got \"amd.com\")");
        check_error("{\"cdi-kinds\": [\"amd.com/gpu\", \"amd.com/gpu=0\"]}",
                    "config.json:1:31: \"cdi-kinds\" entries are CDI kinds vendor/class (e.g. \"amd.com/gpu\") or "
                    "\"*\" for any (got \"amd.com/gpu=0\")");
        check_error("{\"cdi-kinds\": [\"amd.com/gpu-\"]}", "config.json:1:16: \"cdi-kinds\" entries are CDI kinds "
                                                           "vendor/class (e.g. \"amd.com/gpu\") or \"*\" for any (got "
                                                           "\"amd.com/gpu-\")");
        check_error("{\"cdi-kinds\": [\"1amd.com/gpu\"]}", "config.json:1:16: \"cdi-kinds\" entries are CDI kinds "
                                                           "vendor/class (e.g. \"amd.com/gpu\") or \"*\" for any (got "
                                                           "\"1amd.com/gpu\")");
        check_error("{\"cdi-kinds\": \"*\"}",
                    "config.json:1:2: \"cdi-kinds\" must be an array of strings, not a string ([\"*\"] for any "
                    "kind)");
        check_error("{\"cdi-annotation-prefixes\": [\"cdi.k8s.io/\", \"\"]}",
                    "config.json:1:45: \"cdi-annotation-prefixes\" must not be empty");
        check_error("{\"cdi-annotation-prefixes\": [\"a b/\"]}",
                    "config.json:1:30: \"cdi-annotation-prefixes\" entries may only contain letters, digits, '.', "
                    "'_', '-' and '/' (got \"a b/\")");
        check_error("{\"accept-visible-devices-envvar-when-unprivileged\": 0}",
                    "config.json:1:2: \"accept-visible-devices-envvar-when-unprivileged\" must be true or false, not "
                    "a number");
}

static void test_cdi_kind_allowed(void **state)
{
        (void)state;
        _cleanup_strv_ struct ctk_strv k = {0};
        assert_int_equal(ctk_strv_push(&k, "amd.com/gpu"), 0);
        assert_true(ctk_config_cdi_kind_allowed(&k, "amd.com/gpu=all"));
        assert_true(ctk_config_cdi_kind_allowed(&k, "amd.com/gpu=0x1234:0"));
        assert_false(ctk_config_cdi_kind_allowed(&k, "nvidia.com/gpu=all"));
        assert_false(ctk_config_cdi_kind_allowed(&k, "amd.com/gpux=0"));
        assert_false(ctk_config_cdi_kind_allowed(&k, "amd.com/gp=0"));
        assert_false(ctk_config_cdi_kind_allowed(&k, "AMD.com/gpu=0")); /* kinds are case-sensitive, as CDI's */
        assert_int_equal(ctk_strv_push(&k, "*"), 0);
        assert_true(ctk_config_cdi_kind_allowed(&k, "nvidia.com/gpu=all"));
}

static void test_blank_and_empty(void **state)
{
        (void)state;
        const char *texts[] = {"", "  \n\t\r\n", "{}", "{ }\n"};
        for (size_t i = 0; i < 4; i++) {
                struct ctk_config c;
                struct ctk_error *err = NULL;
                assert_int_equal(parse(texts[i], &c, &err), 0);
                assert_defaults(&c);
                ctk_config_clear(&c);
        }
}

static void test_every_key(void **state)
{
        (void)state;
        const char *text = "{\n"
                           "  \"profile\": \"/srv/sim/mi300x.json\",\n"
                           "  \"runtime-path\": \"crun\",\n"
                           "  \"log-file\": \"/tmp/rt.log\",\n"
                           "  \"log-level\": \"debug\",\n"
                           "  \"state-dir\": \"/run/amd\",\n"
                           "  \"resource-kinds\": [\"gpu\", \"AMD.GPU-2\"],\n"
                           "  \"seccomp-numa\": false,\n"
                           "  \"ctk-path\": \"/usr/bin/amd-ctk\",\n"
                           "  \"cdi-spec-dirs\": [\"/etc/cdi\"],\n"
                           "  \"mode\": \"cdi\",\n"
                           "  \"cdi-refresh-on-stale\": true,\n"
                           "  \"accept-visible-devices-envvar-when-unprivileged\": false,\n"
                           "  \"cdi-annotation-prefixes\": [\"example.com/gpu-\", \"cdi.k8s.io/\"],\n"
                           "  \"cdi-kinds\": [\"amd.com/gpu\", \"example.com/nic_2\", \"*\"]\n"
                           "}\n";
        struct ctk_config c;
        struct ctk_error *err = NULL;
        assert_int_equal(parse(text, &c, &err), 0);
        assert_null(c.root);
        assert_string_equal(c.profile, "/srv/sim/mi300x.json");
        assert_string_equal(c.runtime_path, "crun");
        assert_string_equal(c.log_file, "/tmp/rt.log");
        assert_string_equal(c.log_level, "debug");
        assert_string_equal(c.state_dir, "/run/amd");
        assert_int_equal(c.resource_kinds.n, 2);
        assert_string_equal(c.resource_kinds.v[0], "gpu");
        assert_string_equal(c.resource_kinds.v[1], "AMD.GPU-2");
        assert_false(c.seccomp_numa);
        assert_string_equal(c.ctk_path, "/usr/bin/amd-ctk");
        assert_int_equal(c.cdi_spec_dirs.n, 1);
        assert_string_equal(c.cdi_spec_dirs.v[0], "/etc/cdi");
        assert_int_equal(ctk_config_mode_of(&c), CTK_MODE_CDI);
        assert_true(c.cdi_refresh_on_stale);
        assert_false(c.accept_env_unprivileged);
        assert_int_equal(c.cdi_annotation_prefixes.n, 2);
        assert_string_equal(c.cdi_annotation_prefixes.v[0], "example.com/gpu-");
        assert_int_equal(c.cdi_kinds.n, 3);
        assert_string_equal(c.cdi_kinds.v[2], "*");

        /* The dump of a custom config reads back to the same config. */
        char *s = ctk_config_dump(&c);
        struct ctk_config d;
        assert_int_equal(parse(s, &d, &err), 0);
        char *s2 = ctk_config_dump(&d);
        assert_string_equal(s, s2);
        free(s);
        free(s2);
        ctk_config_clear(&c);
        ctk_config_clear(&d);
}

static void test_partial_keeps_other_defaults(void **state)
{
        (void)state;
        struct ctk_config c;
        struct ctk_error *err = NULL;
        assert_int_equal(parse("{\"root\": \"/mnt/fake\", \"runtime-path\": \"/usr/local/sbin/runc\"}", &c, &err), 0);
        assert_string_equal(c.root, "/mnt/fake");
        assert_string_equal(c.runtime_path, "/usr/local/sbin/runc");
        assert_string_equal(c.log_level, "info");
        assert_int_equal(c.resource_kinds.n, 2);
        ctk_config_clear(&c);

        /* null resets a nullable key; an empty kinds list is allowed. */
        assert_int_equal(parse("{\"root\": null, \"resource-kinds\": []}", &c, &err), 0);
        assert_null(c.root);
        assert_int_equal(c.resource_kinds.n, 0);
        ctk_config_clear(&c);
}

static void test_syntax_errors(void **state)
{
        (void)state;
        check_error("{\n  \"root\": x\n}", "config.json:2:11: invalid token near 'x'");
        check_error("{\"root\": \"/\",}", "config.json:1:14: string or '}' expected near '}'");
        check_error("{\"log-level\": \"info\"} {}", "config.json:1:23: end of file expected near '{'");
        check_error("{\"log-level\": \"info\",\n \"log-level\": \"debug\"}",
                    "config.json:2:12: duplicate object key near '\"log-level\"'");
}

static void test_not_an_object(void **state)
{
        (void)state;
        check_error("[]", "config.json:1:1: the configuration must be a JSON object, not an array");
        check_error("\n  null", "config.json:2:3: the configuration must be a JSON object, not null");
        check_error("\"root\"", "config.json:1:1: the configuration must be a JSON object, not a string");
}

static void test_unknown_key(void **state)
{
        (void)state;
        check_error("{\n    \"root\": null,\n    \"rot\": \"/\"\n}",
                    "config.json:3:5: unknown key \"rot\" (known keys: root, profile, runtime-path, log-file, "
                    "log-level, state-dir, resource-kinds, seccomp-numa, ctk-path, cdi-spec-dirs, cdi-refresh, mode, "
                    "cdi-refresh-on-stale, accept-visible-devices-envvar-when-unprivileged, cdi-annotation-prefixes, "
                    "cdi-kinds)");
        /* Keys are case-sensitive and use dashes. */
        check_error("{\"log_level\": \"info\"}",
                    "config.json:1:2: unknown key \"log_level\" (known keys: root, profile, runtime-path, log-file, "
                    "log-level, state-dir, resource-kinds, seccomp-numa, ctk-path, cdi-spec-dirs, cdi-refresh, mode, "
                    "cdi-refresh-on-stale, accept-visible-devices-envvar-when-unprivileged, cdi-annotation-prefixes, "
                    "cdi-kinds)");
}

static void test_wrong_types(void **state)
{
        (void)state;
        check_error("{\"seccomp-numa\": \"yes\"}",
                    "config.json:1:2: \"seccomp-numa\" must be true or false, not a string");
        check_error("{\"seccomp-numa\": null}", "config.json:1:2: \"seccomp-numa\" must be true or false, not null");
        check_error("{\n \"log-file\": 1}", "config.json:2:2: \"log-file\" must be a string, not a number");
        check_error("{\"log-file\": null}", "config.json:1:2: \"log-file\" must be a string, not null");
        check_error("{\"root\": true}", "config.json:1:2: \"root\" must be a string or null, not a boolean");
        check_error("{\"profile\": {}}", "config.json:1:2: \"profile\" must be a string or null, not an object");
        check_error("{\"runtime-path\": [\"runc\"]}",
                    "config.json:1:2: \"runtime-path\" must be a string or null, not an array");
        check_error("{\"resource-kinds\": \"GPU\"}",
                    "config.json:1:2: \"resource-kinds\" must be an array of strings, not a string");
        check_error("{\"cdi-spec-dirs\": null}",
                    "config.json:1:2: \"cdi-spec-dirs\" must be an array of strings, not null");
        check_error("{\"resource-kinds\": [\"GPU\",\n  3]}",
                    "config.json:2:3: \"resource-kinds\" must be an array of strings, not contain a number");
        check_error("{\"state-dir\": 1.5}", "config.json:1:2: \"state-dir\" must be a string, not a number");
}

static void test_bad_values(void **state)
{
        (void)state;
        check_error("{\"root\": \"\"}", "config.json:1:2: \"root\" must not be empty");
        check_error("{\"root\": \"sys\"}", "config.json:1:2: \"root\" must be an absolute path (got \"sys\")");
        check_error("{\"log-file\": \"log/rt.log\"}",
                    "config.json:1:2: \"log-file\" must be an absolute path (got \"log/rt.log\")");
        check_error("{\"runtime-path\": \"bin/runc\"}",
                    "config.json:1:2: \"runtime-path\" must be an absolute path or a command name (got \"bin/runc\")");
        check_error("{\"log-level\": \"verbose\"}",
                    "config.json:1:2: \"log-level\" must be one of \"error\", \"warning\", \"info\", \"debug\" (got "
                    "\"verbose\")");
        check_error("{\"log-level\": \"INFO\"}",
                    "config.json:1:2: \"log-level\" must be one of \"error\", \"warning\", \"info\", \"debug\" (got "
                    "\"INFO\")");
        check_error("{\"resource-kinds\": [\"GPU\", \"\"]}", "config.json:1:28: \"resource-kinds\" must not be empty");
        check_error("{\"resource-kinds\": [\"A=B\"]}",
                    "config.json:1:21: \"resource-kinds\" entries may only contain letters, digits, '_', '-' and '.' "
                    "(got \"A=B\")");
        check_error("{\"cdi-spec-dirs\": []}", "config.json:1:2: \"cdi-spec-dirs\" must name at least one directory");
        check_error("{\"cdi-spec-dirs\": [\"/etc/cdi\", \"cdi\"]}",
                    "config.json:1:32: \"cdi-spec-dirs\" must be an absolute path (got \"cdi\")");
        check_error("{\"mode\": \"CDI\"}",
                    "config.json:1:2: \"mode\" must be one of \"auto\", \"cdi\", \"legacy\" (got \"CDI\")");
        check_error("{\"mode\": null}", "config.json:1:2: \"mode\" must be a string, not null");
        check_error("{\"cdi-refresh-on-stale\": \"true\"}",
                    "config.json:1:2: \"cdi-refresh-on-stale\" must be true or false, not a string");
        check_error("{\"root\": \"/a\", \"profile\": \"/b.json\"}",
                    "config.json:1:16: \"root\" and \"profile\" cannot both be set");
}

/* A configuration with three more keys than the file's: what a key added to
 * the table of fields.c gets without any other change. */
struct wider {
        struct ctk_config base;
        char *extra_path;
        struct ctk_strv extra_kinds;
        bool extra_flag;
};

static struct ctk_config_field wider_fields[40];

static struct ctk_config_table wider_table(void)
{
        size_t n = ctk_config_keys.n;
        assert_true(n + 3 <= sizeof(wider_fields) / sizeof(wider_fields[0]));
        memcpy(wider_fields, ctk_config_keys.fields, n * sizeof(wider_fields[0]));
        wider_fields[n] = (struct ctk_config_field){.key = "extra-path",
                                                    .kind = CTK_CONFIG_F_PATH,
                                                    .offset = offsetof(struct wider, extra_path),
                                                    .def = "/srv/x"};
        static const char *const kinds[] = {"X", "Y", NULL};
        wider_fields[n + 1] = (struct ctk_config_field){.key = "extra-kinds",
                                                        .kind = CTK_CONFIG_F_KINDS,
                                                        .offset = offsetof(struct wider, extra_kinds),
                                                        .def_list = kinds};
        wider_fields[n + 2] = (struct ctk_config_field){.key = "extra-flag",
                                                        .kind = CTK_CONFIG_F_BOOL,
                                                        .offset = offsetof(struct wider, extra_flag),
                                                        .def_bool = true};
        return (struct ctk_config_table){wider_fields, n + 3};
}

/* Defaults, `config default` (the dump), reading, the checks of its kind,
 * the known keys of the unknown-key message and clearing follow the table. */
static void test_a_new_key_follows_the_table(void **state)
{
        (void)state;
        const struct ctk_config_table t = wider_table();
        struct wider w;
        struct ctk_error *err = NULL;
        assert_int_equal(ctk_config_table_defaults(&t, &w.base, &err), 0);
        assert_defaults(&w.base);
        assert_string_equal(w.extra_path, "/srv/x");
        assert_int_equal(w.extra_kinds.n, 2);
        assert_string_equal(w.extra_kinds.v[1], "Y");
        assert_true(w.extra_flag);

        char *want = NULL;
        assert_true(asprintf(&want,
                             "%.*s,\n    \"extra-path\": \"/srv/x\",\n    \"extra-kinds\": [\n        \"X\",\n"
                             "        \"Y\"\n    ],\n    \"extra-flag\": true\n}\n",
                             (int)(sizeof(default_dump) - 1 - strlen("\n}\n")), default_dump) > 0);
        char *dump = ctk_config_table_dump(&t, &w.base);
        assert_string_equal(dump, want);
        free(dump);
        free(want);

        ctk_config_table_clear(&t, &w.base);
        assert_null(w.extra_path);
        assert_null(w.extra_kinds.v);
        assert_false(w.extra_flag);
        assert_null(w.base.log_file);

        const char *text =
            "{\"extra-path\": \"/y\", \"extra-kinds\": [\"Z\"], \"extra-flag\": false, \"mode\": \"cdi\"}";
        assert_int_equal(ctk_config_table_parse(&t, text, strlen(text), "config.json", &w.base, &err), 0);
        assert_string_equal(w.extra_path, "/y");
        assert_int_equal(w.extra_kinds.n, 1);
        assert_false(w.extra_flag);
        assert_int_equal(ctk_config_mode_of(&w.base), CTK_MODE_CDI);
        assert_string_equal(w.base.log_level, "info");
        ctk_config_table_clear(&t, &w.base);

        text = "{\"extra-path\": \"y\"}";
        assert_int_equal(ctk_config_table_parse(&t, text, strlen(text), "config.json", &w.base, &err), -1);
        assert_string_equal(err->msg, "config.json:1:2: \"extra-path\" must be an absolute path (got \"y\")");
        assert_null(w.base.log_file); /* cleared */
        ctk_error_free(err);
        err = NULL;
        text = "{\"extra\": 1}";
        assert_int_equal(ctk_config_table_parse(&t, text, strlen(text), "config.json", &w.base, &err), -1);
        assert_non_null(strstr(err->msg, " cdi-kinds, extra-path, extra-kinds, extra-flag)"));
        ctk_error_free(err);
}

/* --- files --- */

static char dir[] = "/tmp/ctk-config-test-XXXXXX";

static int setup_dir(void **state)
{
        (void)state;
        return scratch_dir_make(dir) == NULL ? -1 : 0;
}

static int teardown_dir(void **state)
{
        (void)state;
        return scratch_dir_remove(dir);
}

static void write_text(const char *path, const char *text)
{
        FILE *f = fopen(path, "we");
        assert_non_null(f);
        assert_int_equal(fputs(text, f) >= 0, 1);
        assert_int_equal(fclose(f), 0);
}

static void test_load_missing(void **state)
{
        (void)state;
        char *p = scratch_path(dir, "absent.json");
        struct ctk_config c;
        struct ctk_error *err = NULL;
        assert_int_equal(ctk_config_load(p, true, &c, &err), 0);
        assert_defaults(&c);
        ctk_config_clear(&c);

        assert_int_equal(ctk_config_load(p, false, &c, &err), -1);
        assert_int_equal(err->code, ENOENT);
        assert_non_null(strstr(err->msg, p));
        assert_non_null(strstr(err->msg, "No such file or directory"));
        ctk_error_free(err);
        free(p);
}

static void test_load_file(void **state)
{
        (void)state;
        char *p = scratch_path(dir, "config.json");
        write_text(p, "{\n  \"log-level\": \"warning\"\n}\n");
        struct ctk_config c;
        struct ctk_error *err = NULL;
        assert_int_equal(ctk_config_load(p, false, &c, &err), 0);
        assert_string_equal(c.log_level, "warning");
        ctk_config_clear(&c);

        /* Errors are named after the file, even when missing_ok. */
        write_text(p, "{\n  \"log-level\": \"warning\",\n  \"debug\": true\n}\n");
        assert_int_equal(ctk_config_load(p, true, &c, &err), -1);
        char *want = NULL;
        assert_true(asprintf(&want, "%s:3:3: unknown key \"debug\"", p) > 0);
        assert_memory_equal(err->msg, want, strlen(want));
        free(want);
        ctk_error_free(err);
        free(p);
}

static void test_load_directory(void **state)
{
        (void)state;
        struct ctk_config c;
        struct ctk_error *err = NULL;
        assert_int_equal(ctk_config_load(dir, true, &c, &err), -1);
        assert_int_equal(err->code, EISDIR);
        assert_non_null(strstr(err->msg, dir));
        ctk_error_free(err);
}

static void test_default_dump_loads(void **state)
{
        (void)state;
        /* What `amd-ctk config default` prints is valid input for ctk_config_load. */
        struct ctk_config d;
        struct ctk_error *err = NULL;
        assert_int_equal(ctk_config_defaults(&d, &err), 0);
        char *s = ctk_config_dump(&d);
        char *p = scratch_path(dir, "default.json");
        write_text(p, s);
        struct ctk_config c;
        assert_int_equal(ctk_config_load(p, false, &c, &err), 0);
        assert_defaults(&c);
        free(s);
        free(p);
        ctk_config_clear(&c);
        ctk_config_clear(&d);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_cdi_policy_keys),    cmocka_unit_test(test_cdi_kind_allowed),
            cmocka_unit_test(test_defaults),           cmocka_unit_test(test_given),
            cmocka_unit_test(test_default_round_trip), cmocka_unit_test(test_blank_and_empty),
            cmocka_unit_test(test_every_key),          cmocka_unit_test(test_partial_keeps_other_defaults),
            cmocka_unit_test(test_syntax_errors),      cmocka_unit_test(test_not_an_object),
            cmocka_unit_test(test_unknown_key),        cmocka_unit_test(test_wrong_types),
            cmocka_unit_test(test_bad_values),         cmocka_unit_test(test_load_missing),
            cmocka_unit_test(test_load_file),          cmocka_unit_test(test_load_directory),
            cmocka_unit_test(test_default_dump_loads), cmocka_unit_test(test_a_new_key_follows_the_table),
        };
        return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
