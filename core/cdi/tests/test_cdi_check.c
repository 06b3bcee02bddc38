/* The CDI validator: one accepted and one rejected case per rule, and the
 * file:line:column of what is reported. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/cdi/cdi.h"

struct outcome {
        struct ctk_cdi_report rep;
};

static void run(const char *text, struct ctk_cdi_report *rep)
{
        struct ctk_cdi_doc doc;
        struct ctk_error *err = NULL;
        assert_int_equal(ctk_cdi_parse("t.json", text, strlen(text), &doc, rep, &err), 0);
        if (doc.root != NULL) {
                struct ctk_cdi_source src = {.file = doc.path, .text = doc.text, .len = doc.len};
                ctk_cdi_check(doc.root, &src, rep);
        }
        ctk_cdi_doc_clear(&doc);
}

static void dump(const struct ctk_cdi_report *rep)
{
        for (size_t i = 0; i < rep->errors.n; i++)
                fprintf(stderr, "  error: %s\n", rep->errors.v[i]);
        for (size_t i = 0; i < rep->warnings.n; i++)
                fprintf(stderr, "  warning: %s\n", rep->warnings.v[i]);
}

static void expect_ok(const char *text)
{
        struct ctk_cdi_report rep = {0};
        run(text, &rep);
        if (rep.errors.n != 0)
                dump(&rep);
        assert_int_equal(rep.errors.n, 0);
        ctk_cdi_report_clear(&rep);
}

/* Exactly one error, containing `want`. */
static void expect_error(const char *text, const char *want)
{
        struct ctk_cdi_report rep = {0};
        run(text, &rep);
        if (rep.errors.n != 1 || strstr(rep.errors.v[0], want) == NULL) {
                fprintf(stderr, "expected one error containing: %s\n", want);
                dump(&rep);
        }
        assert_int_equal(rep.errors.n, 1);
        assert_non_null(strstr(rep.errors.v[0], want));
        ctk_cdi_report_clear(&rep);
}

static void expect_warning(const char *text, const char *want)
{
        struct ctk_cdi_report rep = {0};
        run(text, &rep);
        if (rep.errors.n != 0 || rep.warnings.n != 1 || strstr(rep.warnings.v[0], want) == NULL) {
                fprintf(stderr, "expected one warning containing: %s\n", want);
                dump(&rep);
        }
        assert_int_equal(rep.errors.n, 0);
        assert_int_equal(rep.warnings.n, 1);
        assert_non_null(strstr(rep.warnings.v[0], want));
        ctk_cdi_report_clear(&rep);
}

/* A valid spec whose single device "0" has these edits. */
static const char *with_edits(const char *edits)
{
        static char buf[4096];
        snprintf(buf, sizeof(buf),
                 "{\"cdiVersion\": \"1.1.0\", \"kind\": \"amd.com/gpu\",\n"
                 " \"devices\": [{\"name\": \"0\", \"containerEdits\": {%s}}]}",
                 edits);
        return buf;
}

/* A valid spec with these top-level values (version, kind, devices). */
static const char *spec(const char *version, const char *kind, const char *devices)
{
        static char buf[4096];
        snprintf(buf, sizeof(buf), "{\"cdiVersion\": \"%s\", \"kind\": \"%s\", \"devices\": [%s]}", version, kind,
                 devices);
        return buf;
}

#define NODE "\"deviceNodes\": [{\"path\": \"/dev/kfd\"}]"

static void test_syntax_error_has_position(void **state)
{
        (void)state;
        expect_error("{\"cdiVersion\": \"0.3.0\",\n  \"kind\": }", "t.json:2:11: ");
        expect_error("", "t.json:1:1: ");
}

static void test_duplicate_key(void **state)
{
        (void)state;
        expect_ok(with_edits(NODE));
        expect_error("{\"cdiVersion\": \"0.5.0\",\n \"cdiVersion\": \"0.5.0\"}", "t.json:2:");
        expect_error("{\"cdiVersion\": \"0.5.0\",\n \"cdiVersion\": \"0.5.0\"}", "duplicate object key");
}

static void test_unknown_key(void **state)
{
        (void)state;
        expect_error(with_edits("\"deviceNodes\": [{\"path\": \"/dev/kfd\", \"mode\": 1}]"),
                     "t.json:2:84: devices[0].containerEdits.deviceNodes[0].mode: unknown key \"mode\"");
        expect_error("{\"cdiVersion\": \"0.5.0\", \"kind\": \"amd.com/gpu\", \"intelGpus\": [],"
                     " \"devices\": [{\"name\": \"0\", \"containerEdits\": {" NODE "}}]}",
                     "unknown key \"intelGpus\"");
}

static void test_key_case_variant(void **state)
{
        (void)state;
        /* Go's decoder accepts it: a warning, and the value is still checked */
        expect_warning(with_edits("\"DeviceNodes\": [{\"path\": \"/dev/kfd\"}]"),
                       "key \"DeviceNodes\" is read as \"deviceNodes\"");
        expect_error(with_edits("\"DeviceNodes\": [{\"path\": \"dev/kfd\"}]"), "must be an absolute path");
        expect_error(with_edits(NODE ", \"DEVICENODES\": []"), "duplicates \"deviceNodes\"");
}

static void test_value_types(void **state)
{
        (void)state;
        expect_ok(with_edits("\"deviceNodes\": [{\"path\": \"/dev/kfd\", \"major\": 235, \"minor\": 0, "
                             "\"fileMode\": 432, \"uid\": 0, \"gid\": 4294967295}]"));
        expect_error(with_edits("\"deviceNodes\": [{\"path\": \"/dev/kfd\", \"major\": \"235\"}]"),
                     "major: must be an integer, not a string");
        expect_error(with_edits("\"deviceNodes\": [{\"path\": \"/dev/kfd\", \"gid\": -1}]"),
                     "gid: must be an integer from 0 to 4294967295");
        expect_error(with_edits("\"deviceNodes\": [{\"path\": \"/dev/kfd\", \"fileMode\": 432.0}]"),
                     "fileMode: must be an integer");
        expect_error(with_edits(NODE ", \"env\": null"), "env: must be an array, not null");
        expect_error(with_edits(NODE ", \"env\": [1]"), "env[0]: must be a string");
        expect_error(with_edits(NODE ", \"additionalGids\": [4294967296]"), "out of range");
        expect_error(with_edits(NODE ", \"intelRdt\": {\"enableMonitoring\": 1}"), "must be true or false");
        expect_error("[]", "a CDI spec must be a JSON object");
}

static void test_required_keys(void **state)
{
        (void)state;
        expect_error("{\"kind\": \"amd.com/gpu\", \"devices\": [{\"name\": \"a\", \"containerEdits\": {" NODE "}}]}",
                     "missing required key \"cdiVersion\"");
        expect_error("{\"cdiVersion\": \"0.3.0\", \"devices\": [{\"name\": \"a\", \"containerEdits\": {" NODE "}}]}",
                     "missing required key \"kind\"");
        expect_error("{\"cdiVersion\": \"0.3.0\", \"kind\": \"amd.com/gpu\"}", "missing required key \"devices\"");
        expect_error(spec("0.3.0", "amd.com/gpu", "{\"containerEdits\": {" NODE "}}"),
                     "devices[0]: missing required key \"name\"");
        expect_error(spec("0.3.0", "amd.com/gpu", "{\"name\": \"a\"}"), "missing required key \"containerEdits\"");
        expect_error(with_edits("\"deviceNodes\": [{\"type\": \"c\"}]"), "missing required key \"path\"");
        expect_error(with_edits("\"mounts\": [{\"containerPath\": \"/a\"}]"), "missing required key \"hostPath\"");
        expect_error(with_edits("\"hooks\": [{\"path\": \"/bin/h\"}]"), "missing required key \"hookName\"");
        expect_error(with_edits("\"netDevices\": [{\"name\": \"n\"}]"), "missing required key \"hostInterfaceName\"");
}

static void test_version_known(void **state)
{
        (void)state;
        const char *dev = "{\"name\": \"a\", \"containerEdits\": {" NODE "}}";
        expect_ok(spec("0.3.0", "amd.com/gpu", dev));
        expect_ok(spec("v1.1.0", "amd.com/gpu", dev));
        expect_error(spec("1.2.0", "amd.com/gpu", dev), "cdiVersion: unknown CDI version \"1.2.0\"");
        expect_error(spec("0.1.0", "amd.com/gpu", dev), "the earliest usable version is 0.3.0");
}

static void test_version_minimum(void **state)
{
        (void)state;
        const char *dev = "{\"name\": \"0\", \"containerEdits\": {" NODE "}}";
        expect_ok(spec("0.5.0", "amd.com/gpu", dev));
        expect_error(spec("0.4.0", "amd.com/gpu", dev),
                     "version 0.4.0 is too old: a device name that does not start with a letter needs 0.5.0");
}

static void test_kind(void **state)
{
        (void)state;
        const char *dev = "{\"name\": \"a\", \"containerEdits\": {" NODE "}}";
        expect_ok(spec("0.3.0", "vendor.com/foo-bar123_B", dev));
        expect_error(spec("0.3.0", "amd.com", dev), "invalid kind \"amd.com\"");
        expect_error(spec("0.3.0", "/gpu", dev), "invalid kind");
        expect_error(spec("0.3.0", "1amd.com/gpu", dev), "invalid vendor \"1amd.com\"");
        expect_error(spec("0.3.0", "amd.com/gpu/x", dev), "invalid class \"gpu/x\"");
        expect_error(spec("0.3.0", "amd.com/gpu-", dev), "invalid class \"gpu-\"");
}

static void test_devices_not_empty(void **state)
{
        (void)state;
        expect_ok(spec("0.3.0", "amd.com/gpu", "{\"name\": \"a\", \"containerEdits\": {" NODE "}}"));
        expect_error(spec("0.3.0", "amd.com/gpu", ""), "devices: a spec needs at least one device");
}

static void test_device_name(void **state)
{
        (void)state;
        expect_ok(spec("0.5.0", "amd.com/gpu", "{\"name\": \"0:1\", \"containerEdits\": {" NODE "}}"));
        expect_ok(spec("0.5.0", "amd.com/gpu", "{\"name\": \"0xEA35F57CC80DEB35\", \"containerEdits\": {" NODE "}}"));
        expect_ok(spec("0.3.0", "amd.com/gpu", "{\"name\": \"a_b.c-d\", \"containerEdits\": {" NODE "}}"));
        expect_error(spec("0.3.0", "amd.com/gpu", "{\"name\": \"gpu-\", \"containerEdits\": {" NODE "}}"),
                     "devices[0].name: invalid device name \"gpu-\"");
        expect_error(spec("0.3.0", "amd.com/gpu", "{\"name\": \"a/b\", \"containerEdits\": {" NODE "}}"),
                     "invalid device name \"a/b\"");
        expect_error(spec("0.3.0", "amd.com/gpu", "{\"name\": \"\", \"containerEdits\": {" NODE "}}"),
                     "invalid device name \"\"");
}

static void test_unique_names(void **state)
{
        (void)state;
        expect_ok(spec("0.3.0", "amd.com/gpu",
                       "{\"name\": \"a\", \"containerEdits\": {" NODE "}}, {\"name\": \"b\", \"containerEdits\": {" NODE
                       "}}"));
        expect_error(spec("0.3.0", "amd.com/gpu",
                          "{\"name\": \"a\", \"containerEdits\": {" NODE
                          "}}, {\"name\": \"a\", \"containerEdits\": {" NODE "}}"),
                     "devices[1].name: device name \"a\" is already used by devices[0]");
}

static void test_device_edits_not_empty(void **state)
{
        (void)state;
        expect_ok(with_edits("\"env\": [\"A=1\"]"));
        expect_ok(with_edits("\"intelRdt\": {}, \"additionalGids\": []"));
        expect_error(with_edits(""), "devices[0].containerEdits: a device needs at least one edit");
        expect_error(with_edits("\"env\": [], \"mounts\": []"), "a device needs at least one edit");
        /* spec-level edits may be empty */
        expect_ok("{\"cdiVersion\": \"0.5.0\", \"kind\": \"amd.com/gpu\", \"containerEdits\": {},"
                  " \"devices\": [{\"name\": \"0\", \"containerEdits\": {" NODE "}}]}");
}

static void test_env(void **state)
{
        (void)state;
        expect_ok(with_edits("\"env\": [\"A=\", \"B=x=y\"]"));
        expect_error(with_edits("\"env\": [\"A=1\", \"NOVALUE\"]"),
                     "env[1]: invalid environment variable \"NOVALUE\": must be NAME=value");
        expect_error(with_edits("\"env\": [\"=x\"]"), "invalid environment variable \"=x\"");
        expect_error("{\"cdiVersion\": \"0.5.0\", \"kind\": \"amd.com/gpu\", \"containerEdits\": {\"env\": [\"X\"]},"
                     " \"devices\": [{\"name\": \"0\", \"containerEdits\": {" NODE "}}]}",
                     "containerEdits.env[0]: invalid environment variable");
}

static void test_device_node_type(void **state)
{
        (void)state;
        expect_ok(with_edits("\"deviceNodes\": [{\"path\": \"/dev/a\", \"type\": \"c\"}, {\"path\": \"/dev/b\", "
                             "\"type\": \"b\"}, {\"path\": \"/dev/c\", \"type\": \"p\"}, {\"path\": \"/dev/d\", "
                             "\"type\": \"u\"}, {\"path\": \"/dev/e\", \"type\": \"\"}]"));
        expect_error(with_edits("\"deviceNodes\": [{\"path\": \"/dev/a\", \"type\": \"char\"}]"),
                     "invalid device type \"char\"");
}

static void test_device_node_permissions(void **state)
{
        (void)state;
        expect_ok(with_edits("\"deviceNodes\": [{\"path\": \"/dev/a\", \"permissions\": \"rwm\"}, {\"path\": "
                             "\"/dev/b\", \"permissions\": \"r\"}, {\"path\": \"/dev/c\", \"permissions\": \"none\"}, "
                             "{\"path\": \"/dev/d\", \"permissions\": \"\"}]"));
        expect_error(with_edits("\"deviceNodes\": [{\"path\": \"/dev/a\", \"permissions\": \"rwx\"}]"),
                     "deviceNodes[0].permissions: invalid permissions \"rwx\"");
}

static void test_device_node_paths(void **state)
{
        (void)state;
        expect_ok(with_edits("\"deviceNodes\": [{\"path\": \"/dev/a\", \"hostPath\": \"/host/dev/a\"}]"));
        expect_ok(with_edits("\"deviceNodes\": [{\"path\": \"/dev/a\", \"hostPath\": \"\"}]"));
        expect_error(with_edits("\"deviceNodes\": [{\"path\": \"dev/a\"}]"),
                     "deviceNodes[0].path: \"dev/a\" must be an absolute path");
        expect_error(with_edits("\"deviceNodes\": [{\"path\": \"\"}]"), "path: must not be empty");
        expect_error(with_edits("\"deviceNodes\": [{\"path\": \"/dev/a\", \"hostPath\": \"a\"}]"),
                     "hostPath: \"a\" must be an absolute path");
}

static void test_hooks(void **state)
{
        (void)state;
        expect_ok(with_edits("\"hooks\": [{\"hookName\": \"createContainer\", \"path\": \"/bin/h\", \"args\": "
                             "[\"h\"], \"env\": [\"A=1\"], \"timeout\": 5}, {\"hookName\": \"prestart\", \"path\": "
                             "\"/bin/h\"}]"));
        expect_error(with_edits("\"hooks\": [{\"hookName\": \"preStart\", \"path\": \"/bin/h\"}]"),
                     "hooks[0].hookName: invalid hook name \"preStart\"");
        expect_error(with_edits("\"hooks\": [{\"hookName\": \"poststop\", \"path\": \"\"}]"),
                     "hooks[0].path: must not be empty");
        expect_error(with_edits("\"hooks\": [{\"hookName\": \"poststop\", \"path\": \"bin/h\"}]"),
                     "must be an absolute path");
        expect_error(with_edits("\"hooks\": [{\"hookName\": \"poststop\", \"path\": \"/h\", \"env\": [\"A\"]}]"),
                     "hooks[0].env[0]: invalid environment variable");
        expect_error(with_edits("\"hooks\": [{\"hookName\": \"poststop\", \"path\": \"/h\", \"timeout\": 0}]"),
                     "timeout must be greater than zero");
}

static void test_mounts(void **state)
{
        (void)state;
        expect_ok(with_edits("\"mounts\": [{\"hostPath\": \"/a\", \"containerPath\": \"/b\", \"options\": "
                             "[\"ro\"]}, {\"hostPath\": \"tmpfs\", \"containerPath\": \"/t\", \"type\": \"tmpfs\"}]"));
        expect_error(with_edits("\"mounts\": [{\"hostPath\": \"\", \"containerPath\": \"/b\"}]"),
                     "mounts[0].hostPath: must not be empty");
        expect_error(with_edits("\"mounts\": [{\"hostPath\": \"/a\", \"containerPath\": \"\"}]"),
                     "mounts[0].containerPath: must not be empty");
        /* a container path relative or with "..", a host path with "..": refused */
        expect_error(with_edits("\"mounts\": [{\"hostPath\": \"/a\", \"containerPath\": \"b\"}]"),
                     "mounts[0].containerPath: \"b\" must be an absolute path");
        expect_error(with_edits("\"mounts\": [{\"hostPath\": \"/a\", \"containerPath\": \"/usr/../etc\"}]"),
                     "mounts[0].containerPath: \"/usr/../etc\" must not have a \"..\" component");
        expect_error(with_edits("\"mounts\": [{\"hostPath\": \"/a\", \"containerPath\": \"/x/..\"}]"),
                     "must not have a \"..\" component");
        expect_error(with_edits("\"mounts\": [{\"hostPath\": \"/opt/../../etc/shadow\", \"containerPath\": \"/s\"}]"),
                     "mounts[0].hostPath: \"/opt/../../etc/shadow\" must not have a \"..\" component");
        expect_error(with_edits("\"mounts\": [{\"hostPath\": \"..\", \"containerPath\": \"/s\"}]"),
                     "must not have a \"..\" component");
        /* names with dots are not ".." */
        expect_ok(with_edits("\"mounts\": [{\"hostPath\": \"/a..b/...\", \"containerPath\": \"/x/.y/..z\"}]"));
        /* hooks: absolute paths */
        expect_error(with_edits("\"hooks\": [{\"hookName\": \"createRuntime\", \"path\": \"bin/id\"}]"),
                     "hooks[0].path: \"bin/id\" must be an absolute path");
}

static void test_intel_rdt(void **state)
{
        (void)state;
        expect_ok(with_edits("\"intelRdt\": {\"closID\": \"clos1\", \"l3CacheSchema\": \"L3:0=f\"}"));
        expect_error(with_edits("\"intelRdt\": {\"closID\": \"..\"}"), "intelRdt.closID: invalid closID \"..\"");
        expect_error(with_edits("\"intelRdt\": {\"closID\": \"a/b\"}"), "invalid closID");
}

static void test_net_devices(void **state)
{
        (void)state;
        expect_ok(spec("1.1.0", "amd.com/gpu",
                       "{\"name\": \"a\", \"containerEdits\": {\"netDevices\": [{\"hostInterfaceName\": \"eth1\", "
                       "\"name\": \"n1\"}, {\"hostInterfaceName\": \"eth2\", \"name\": \"n2\"}]}}"));
        expect_error(spec("1.1.0", "amd.com/gpu",
                          "{\"name\": \"a\", \"containerEdits\": {\"netDevices\": [{\"hostInterfaceName\": \"eth1\", "
                          "\"name\": \"n1\"}, {\"hostInterfaceName\": \"eth1\", \"name\": \"n2\"}]}}"),
                     "netDevices[1].hostInterfaceName: \"eth1\" is already used by netDevices[0]");
        expect_error(spec("1.1.0", "amd.com/gpu",
                          "{\"name\": \"a\", \"containerEdits\": {\"netDevices\": [{\"hostInterfaceName\": \"eth1\", "
                          "\"name\": \"\"}]}}"),
                     "netDevices[0].name: must not be empty");
}

static void test_annotations(void **state)
{
        (void)state;
        expect_ok("{\"cdiVersion\": \"0.6.0\", \"kind\": \"amd.com/gpu\", \"annotations\": {\"amd.com/x\": \"y\"},"
                  " \"devices\": [{\"name\": \"0\", \"containerEdits\": {" NODE "}}]}");
        expect_warning("{\"cdiVersion\": \"0.6.0\", \"kind\": \"amd.com/gpu\", \"annotations\": {\"a/b/c\": \"y\"},"
                       " \"devices\": [{\"name\": \"0\", \"containerEdits\": {" NODE "}}]}",
                       "annotation key \"a/b/c\" is not a qualified name");
        expect_error("{\"cdiVersion\": \"0.6.0\", \"kind\": \"amd.com/gpu\", \"annotations\": {\"k\": 1},"
                     " \"devices\": [{\"name\": \"0\", \"containerEdits\": {" NODE "}}]}",
                     "annotations.k: must be a string");
}

static void test_reports_everything(void **state)
{
        (void)state;
        struct ctk_cdi_report rep = {0};
        run("{\"cdiVersion\": \"9\", \"kind\": \"x\", \"devices\": [{\"name\": \"-\", \"containerEdits\": {}}]}", &rep);
        assert_int_equal(rep.errors.n, 4);
        ctk_cdi_report_clear(&rep);
}

/* n devices "d<i % distinct>" with an env edit. */
static char *many_devices(size_t n, size_t distinct)
{
        char *s = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&s, &len);
        assert_non_null(f);
        fputs("{\"cdiVersion\": \"0.5.0\", \"kind\": \"v.com/c\", \"devices\": [", f);
        for (size_t i = 0; i < n; i++)
                fprintf(f, "%s{\"name\": \"d%zu\", \"containerEdits\": {\"env\": [\"A=1\"]}}", i > 0 ? "," : "",
                        i % distinct);
        fputs("]}", f);
        assert_int_equal(fclose(f), 0);
        return s;
}

/* Names used twice are found by sorting (each reported once, naming the
 * first user); the lines kept are capped, the rest counted; a spec over
 * the device cap is one error. */
static void test_many_devices(void **state)
{
        (void)state;
        struct ctk_cdi_report rep = {0};
        char *text = many_devices(7, 3); /* d0 d1 d2 d0 d1 d2 d0 */
        run(text, &rep);
        free(text);
        assert_int_equal(rep.errors.n, 4);
        assert_non_null(strstr(rep.errors.v[0], "devices[3].name: device name \"d0\" is already used by devices[0]"));
        assert_non_null(strstr(rep.errors.v[1], "devices[4].name: device name \"d1\" is already used by devices[1]"));
        assert_non_null(strstr(rep.errors.v[3], "devices[6].name: device name \"d0\" is already used by devices[0]"));
        ctk_cdi_report_clear(&rep);
        text = many_devices(40000, 20000);
        run(text, &rep);
        free(text);
        assert_int_equal(rep.errors.n, CTK_CDI_REPORT_MAX);
        assert_int_equal(rep.more_errors, 20000 - CTK_CDI_REPORT_MAX);
        assert_non_null(strstr(rep.errors.v[0], "devices[20000].name: device name \"d0\" is already used by "
                                                "devices[0]"));
        ctk_cdi_report_clear(&rep);
        text = many_devices(CTK_CDI_MAX_DEVICES + 1, CTK_CDI_MAX_DEVICES + 1);
        run(text, &rep);
        free(text);
        assert_int_equal(rep.errors.n, 1);
        assert_non_null(strstr(rep.errors.v[0], "devices: 65537 devices, more than the 65536 a spec may have"));
        ctk_cdi_report_clear(&rep);
}

static void test_without_source(void **state)
{
        (void)state;
        json_t *j = json_loads("{\"cdiVersion\": \"0.3.0\", \"kind\": \"a.com/b\", \"devices\": [{\"name\": \"x\", "
                               "\"containerEdits\": {\"env\": [\"E\"]}}]}",
                               0, NULL);
        struct ctk_cdi_report rep = {0};
        assert_int_equal(ctk_cdi_check(j, NULL, &rep), 1);
        assert_string_equal(rep.errors.v[0], "devices[0].containerEdits.env[0]: invalid environment variable \"E\": "
                                             "must be NAME=value");
        ctk_cdi_report_clear(&rep);
        json_decref(j);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_syntax_error_has_position),
            cmocka_unit_test(test_duplicate_key),
            cmocka_unit_test(test_unknown_key),
            cmocka_unit_test(test_key_case_variant),
            cmocka_unit_test(test_value_types),
            cmocka_unit_test(test_required_keys),
            cmocka_unit_test(test_version_known),
            cmocka_unit_test(test_version_minimum),
            cmocka_unit_test(test_kind),
            cmocka_unit_test(test_devices_not_empty),
            cmocka_unit_test(test_device_name),
            cmocka_unit_test(test_unique_names),
            cmocka_unit_test(test_device_edits_not_empty),
            cmocka_unit_test(test_env),
            cmocka_unit_test(test_device_node_type),
            cmocka_unit_test(test_device_node_permissions),
            cmocka_unit_test(test_device_node_paths),
            cmocka_unit_test(test_hooks),
            cmocka_unit_test(test_mounts),
            cmocka_unit_test(test_intel_rdt),
            cmocka_unit_test(test_net_devices),
            cmocka_unit_test(test_annotations),
            cmocka_unit_test(test_reports_everything),
            cmocka_unit_test(test_without_source),
            cmocka_unit_test(test_many_devices),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
