/* Editing OCI specs as generic JSON: devices, cgroup rules, groups. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/base/base.h"
#include "core/json/json.h"
#include "core/json/tests/json_test.h"
#include "core/oci/edit.h"
#include "core/oci/spec.h"

static struct ctk_devnode node(const char *path, unsigned major, unsigned minor, mode_t mode, gid_t gid)
{
        return (struct ctk_devnode){
            .path = (char *)path, .type = 'c', .major = major, .minor = minor, .mode = mode, .uid = 0, .gid = gid};
}

/* The linux.devices entry of a node (mode, owner), allowed rwm. */
static struct ctk_oci_device dev(const struct ctk_devnode *n)
{
        return (struct ctk_oci_device){.path = n->path,
                                       .type = n->type,
                                       .major = n->major,
                                       .minor = n->minor,
                                       .has_mode = true,
                                       .mode = (uint32_t)(n->mode & 07777),
                                       .has_uid = true,
                                       .uid = (uint32_t)n->uid,
                                       .has_gid = true,
                                       .gid = (uint32_t)n->gid,
                                       .access = "rwm"};
}

/* Puts the nodes, and the groups of those that need them (what the runtime did before CDI's applier). */
static int put_nodes(json_t *spec, const struct ctk_devnode *nodes, size_t n, struct ctk_oci_edit_stats *st,
                     struct ctk_error **err)
{
        struct ctk_oci_device *d = calloc(n + 1, sizeof(*d));
        assert_non_null(d);
        for (size_t i = 0; i < n; i++)
                d[i] = dev(&nodes[i]);
        struct ctk_oci_edit_stats s = {0};
        int r = ctk_oci_put_devices(spec, d, n, &s, err);
        free(d);
        for (size_t i = 0; r == 0 && i < n; i++) {
                bool added = false;
                if (ctk_oci_devnode_needs_group(&nodes[i]))
                        r = ctk_oci_add_additional_gid(spec, nodes[i].gid, &added, err);
                s.gids += added;
        }
        if (st != NULL)
                *st = s;
        return r;
}

static int put_node(json_t *spec, const struct ctk_devnode *n, bool *changed, struct ctk_error **err)
{
        struct ctk_oci_edit_stats st;
        struct ctk_oci_device d = dev(n);
        int r = ctk_oci_put_devices(spec, &d, 1, &st, err);
        *changed = st.devices + st.rules > 0;
        return r;
}

static void test_adds_device_and_rule(void **state)
{
        (void)state;
        _cleanup_json_ json_t *spec =
            test_json("{\"ociVersion\":\"1.0.2\",\"process\":{\"user\":{\"uid\":0,\"gid\":0}}}");
        struct ctk_devnode d = node("/dev/dri/renderD128", 226, 128, 0660, 109);
        bool changed = false;
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(put_node(spec, &d, &changed, &err), 0);
        assert_true(changed);
        assert_json_is(json_object_get(spec, "linux"),
                       "{\"devices\":[{\"path\":\"/dev/dri/renderD128\",\"type\":\"c\",\"major\":226,\"minor\":128,"
                       "\"fileMode\":432,\"uid\":0,\"gid\":109}],"
                       "\"resources\":{\"devices\":[{\"allow\":true,\"type\":\"c\",\"major\":226,\"minor\":128,"
                       "\"access\":\"rwm\"}]}}");
        /* The device fields come in the order runc and the Go shim use. */
        _cleanup_free_ char *text = json_dumps(json_object_get(spec, "linux"), JSON_COMPACT);
        assert_non_null(strstr(text, "{\"path\":\"/dev/dri/renderD128\",\"type\":\"c\",\"major\":226,\"minor\":128,"
                                     "\"fileMode\":432,\"uid\":0,\"gid\":109}"));
}

static void test_no_duplicates(void **state)
{
        (void)state;
        _cleanup_json_ json_t *spec = test_json("{}");
        struct ctk_devnode d = node("/dev/kfd", 235, 0, 0660, 110);
        bool changed;
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(put_node(spec, &d, &changed, &err), 0);
        assert_true(changed);
        assert_int_equal(put_node(spec, &d, &changed, &err), 0);
        assert_false(changed);
        json_t *linux_ = json_object_get(spec, "linux");
        assert_int_equal(json_array_size(json_object_get(linux_, "devices")), 1);
        assert_int_equal(json_array_size(json_object_get(json_object_get(linux_, "resources"), "devices")), 1);
}

static void test_existing_entry_replaced(void **state)
{
        (void)state;
        /* docker --device /dev/kfd already put the node there, with a deny-all
         * rule first and an allow rule for it: the entry of the path is
         * replaced in place (CDI's rule), the rule that allows it kept. */
        const char *before = "{\"linux\":{\"devices\":[{\"path\":\"/dev/null\"},{\"path\":\"/dev/kfd\",\"type\":\"c\","
                             "\"major\":235,\"minor\":0,\"fileMode\":438,\"uid\":0,\"gid\":0,\"x-extra\":1}],"
                             "\"resources\":{\"devices\":[{\"allow\":false,\"access\":\"rwm\"},"
                             "{\"allow\":true,\"type\":\"c\",\"major\":235,\"minor\":0,\"access\":\"rwm\"}]}}}";
        _cleanup_json_ json_t *spec = test_json(before);
        struct ctk_devnode d = node("/dev/kfd", 235, 0, 0660, 110);
        bool changed = false;
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(put_node(spec, &d, &changed, &err), 0);
        assert_true(changed);
        assert_json_is(spec, "{\"linux\":{\"devices\":[{\"path\":\"/dev/null\"},{\"path\":\"/dev/kfd\",\"type\":\"c\","
                             "\"major\":235,\"minor\":0,\"fileMode\":432,\"uid\":0,\"gid\":110}],"
                             "\"resources\":{\"devices\":[{\"allow\":false,\"access\":\"rwm\"},"
                             "{\"allow\":true,\"type\":\"c\",\"major\":235,\"minor\":0,\"access\":\"rwm\"}]}}}");
        /* the same entry again: nothing changes */
        assert_int_equal(put_node(spec, &d, &changed, &err), 0);
        assert_false(changed);
}

/* An access other than rwm: granted by a rule with at least those letters. */
static void test_partial_access(void **state)
{
        (void)state;
        _cleanup_json_ json_t *spec =
            test_json("{\"linux\":{\"resources\":{\"devices\":[{\"allow\":true,\"type\":\"c\","
                      "\"major\":1,\"minor\":3,\"access\":\"rw\"}]}}}");
        struct ctk_oci_device d = {.path = "/dev/null", .type = 'c', .major = 1, .minor = 3, .access = "r"};
        struct ctk_oci_edit_stats st;
        assert_int_equal(ctk_oci_put_devices(spec, &d, 1, &st, NULL), 0);
        assert_int_equal(st.rules, 0);
        d.access = "rm";
        assert_int_equal(ctk_oci_put_devices(spec, &d, 1, &st, NULL), 0);
        assert_int_equal(st.rules, 1);
        d.access = "";
        d.path = "/dev/zero";
        assert_int_equal(ctk_oci_put_devices(spec, &d, 1, &st, NULL), 0);
        assert_int_equal(st.rules, 0); /* "none": no rule */
        assert_int_equal(st.devices, 1);
        d.type = 'p';
        d.path = "/dev/fifo";
        d.access = "rwm";
        assert_int_equal(ctk_oci_put_devices(spec, &d, 1, &st, NULL), 0);
        assert_int_equal(st.rules, 0); /* no cgroup rule for a FIFO */
}

static void test_rule_added_when_access_incomplete_or_denied_later(void **state)
{
        (void)state;
        struct ctk_devnode d = node("/dev/dri/card0", 226, 0, 0660, 44);
        const char *specs[] = {
            /* only read access */
            "{\"linux\":{\"resources\":{\"devices\":[{\"allow\":true,\"type\":\"c\",\"major\":226,\"minor\":0,"
            "\"access\":\"r\"}]}}}",
            /* allowed, then denied again by a wildcard rule */
            "{\"linux\":{\"resources\":{\"devices\":[{\"allow\":true,\"type\":\"c\",\"major\":226,\"minor\":0,"
            "\"access\":\"rwm\"},{\"allow\":false,\"type\":\"c\",\"major\":226,\"access\":\"rwm\"}]}}}",
            /* allowed, then everything denied (type absent = all) */
            "{\"linux\":{\"resources\":{\"devices\":[{\"allow\":true,\"type\":\"c\",\"major\":226,\"minor\":0,"
            "\"access\":\"rwm\"},{\"allow\":false,\"access\":\"rwm\"}]}}}",
            /* allowed, then denied by type "a" with null numbers */
            "{\"linux\":{\"resources\":{\"devices\":[{\"allow\":true,\"type\":\"c\",\"major\":226,\"minor\":0,"
            "\"access\":\"rwm\"},{\"allow\":false,\"type\":\"a\",\"major\":null,\"minor\":null}]}}}",
            /* a block device with the same numbers */
            "{\"linux\":{\"resources\":{\"devices\":[{\"allow\":true,\"type\":\"b\",\"major\":226,\"minor\":0,"
            "\"access\":\"rwm\"}]}}}",
        };
        for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
                _cleanup_json_ json_t *spec = test_json(specs[i]);
                _cleanup_error_ struct ctk_error *err = NULL;
                bool changed = false;
                assert_int_equal(put_node(spec, &d, &changed, &err), 0);
                assert_true(changed);
                json_t *rules =
                    json_object_get(json_object_get(json_object_get(spec, "linux"), "resources"), "devices");
                assert_json_is(json_array_get(rules, json_array_size(rules) - 1),
                               "{\"allow\":true,\"type\":\"c\",\"major\":226,\"minor\":0,\"access\":\"rwm\"}");
        }
}

static void test_unrelated_deny_keeps_rule(void **state)
{
        (void)state;
        /* A later deny of another minor, or of block devices, does not undo the allow rule. */
        const char *before = "{\"linux\":{\"devices\":[],\"resources\":{\"devices\":["
                             "{\"allow\":true,\"type\":\"c\",\"major\":226,\"minor\":0,\"access\":\"rwm\"},"
                             "{\"allow\":false,\"type\":\"c\",\"major\":226,\"minor\":1,\"access\":\"rwm\"},"
                             "{\"allow\":false,\"type\":\"b\",\"access\":\"rwm\"}]}}}";
        _cleanup_json_ json_t *spec = test_json(before);
        struct ctk_devnode d = node("/dev/dri/card0", 226, 0, 0660, 44);
        struct ctk_oci_edit_stats st;
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(put_nodes(spec, &d, 1, &st, &err), 0);
        assert_int_equal(st.devices, 1);
        assert_int_equal(st.rules, 0);
}

static void test_many_nodes_once(void **state)
{
        (void)state;
        /* 63 partitions: 126 DRM nodes and /dev/kfd, twice in the list. */
        enum { N = 127 };
        struct ctk_devnode nodes[2 * N];
        char paths[N][32];
        for (int i = 0; i < N; i++) {
                if (i == N - 1)
                        snprintf(paths[i], sizeof(paths[i]), "/dev/kfd");
                else if (i % 2 == 0)
                        snprintf(paths[i], sizeof(paths[i]), "/dev/dri/card%d", i / 2);
                else
                        snprintf(paths[i], sizeof(paths[i]), "/dev/dri/renderD%d", 128 + i / 2);
                nodes[i] = node(paths[i], i == N - 1 ? 235 : 226,
                                i == N - 1 ? 0 : (unsigned)(i % 2 ? 128 + i / 2 : i / 2), 0660, i % 2 ? 109 : 44);
                nodes[N + i] = nodes[i];
        }
        _cleanup_json_ json_t *spec =
            test_json("{\"process\":{\"user\":{\"uid\":0,\"gid\":0}},"
                      "\"linux\":{\"resources\":{\"devices\":[{\"allow\":false,\"access\":\"rwm\"}]}}}");
        struct ctk_oci_edit_stats st;
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(put_nodes(spec, nodes, 2 * (size_t)N, &st, &err), 0);
        assert_int_equal(st.devices, N);
        assert_int_equal(st.rules, N);
        assert_int_equal(st.gids, 2);
        json_t *linux_ = json_object_get(spec, "linux");
        assert_int_equal(json_array_size(json_object_get(linux_, "devices")), N);
        assert_int_equal(json_array_size(json_object_get(json_object_get(linux_, "resources"), "devices")), N + 1);
        assert_int_equal(put_nodes(spec, nodes, 2 * (size_t)N, &st, &err), 0);
        assert_int_equal(st.devices + st.rules + st.gids, 0);
}

static void test_needs_group(void **state)
{
        (void)state;
        struct ctk_devnode d = node("/dev/kfd", 235, 0, 0660, 110);
        assert_true(ctk_oci_devnode_needs_group(&d));
        d.mode = 0666;
        assert_false(ctk_oci_devnode_needs_group(&d)); /* world read-write */
        d.mode = 0664;
        assert_true(ctk_oci_devnode_needs_group(&d)); /* world read-only */
        d.mode = 0600;
        assert_false(ctk_oci_devnode_needs_group(&d)); /* the group has no access either */
        d.mode = 0660;
        d.gid = 0;
        assert_false(ctk_oci_devnode_needs_group(&d)); /* never hand out the root group */
}

static void test_additional_gids(void **state)
{
        (void)state;
        _cleanup_json_ json_t *spec =
            test_json("{\"process\":{\"user\":{\"uid\":1000,\"gid\":1000},\"args\":[\"sh\"]}}");
        struct ctk_devnode nodes[] = {
            node("/dev/dri/card0", 226, 0, 0660, 44),
            node("/dev/dri/renderD128", 226, 128, 0660, 109),
            node("/dev/dri/card1", 226, 1, 0660, 44),
            node("/dev/kfd", 235, 0, 0666, 110),
        };
        struct ctk_oci_edit_stats st;
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(put_nodes(spec, nodes, 4, &st, &err), 0);
        assert_int_equal(st.devices, 4);
        assert_int_equal(st.rules, 4);
        assert_int_equal(st.gids, 2);
        assert_json_is(json_object_get(json_object_get(spec, "process"), "user"),
                       "{\"uid\":1000,\"gid\":1000,\"additionalGids\":[44,109]}");
        /* Again: nothing changes. */
        assert_int_equal(put_nodes(spec, nodes, 4, &st, &err), 0);
        assert_int_equal(st.devices + st.rules + st.gids, 0);
}

static void test_additional_gid_cases(void **state)
{
        (void)state;
        bool changed;
        _cleanup_error_ struct ctk_error *err = NULL;
        /* Primary group: not repeated. */
        _cleanup_json_ json_t *a = test_json("{\"process\":{\"user\":{\"uid\":1,\"gid\":109}}}");
        assert_int_equal(ctk_oci_add_additional_gid(a, 109, &changed, &err), 0);
        assert_false(changed);
        assert_json_is(a, "{\"process\":{\"user\":{\"uid\":1,\"gid\":109}}}");
        /* Already there. */
        _cleanup_json_ json_t *b =
            test_json("{\"process\":{\"user\":{\"uid\":0,\"gid\":0,\"additionalGids\":[5,109]}}}");
        assert_int_equal(ctk_oci_add_additional_gid(b, 109, &changed, &err), 0);
        assert_false(changed);
        /* No user object: created. */
        _cleanup_json_ json_t *c = test_json("{\"process\":{\"args\":[\"sh\"]}}");
        assert_int_equal(ctk_oci_add_additional_gid(c, 7, &changed, &err), 0);
        assert_true(changed);
        assert_json_is(c, "{\"process\":{\"args\":[\"sh\"],\"user\":{\"additionalGids\":[7]}}}");
        /* No process: nothing to give groups to. */
        _cleanup_json_ json_t *d = test_json("{\"root\":{\"path\":\"rootfs\"}}");
        assert_int_equal(ctk_oci_add_additional_gid(d, 7, &changed, &err), 0);
        assert_false(changed);
        assert_json_is(d, "{\"root\":{\"path\":\"rootfs\"}}");
}

static void test_unknown_fields_and_order_preserved(void **state)
{
        (void)state;
        const char *text = "{\"ociVersion\":\"1.3.0\",\"zzz\":{\"future\":[1,2,{\"a\":null}]},"
                           "\"process\":{\"user\":{\"uid\":0,\"gid\":0},\"env\":[\"A=1\"],\"x-new\":true},"
                           "\"linux\":{\"netDevices\":{\"eth1\":{}},\"memoryPolicy\":{\"mode\":\"MPOL_BIND\"},"
                           "\"namespaces\":[{\"type\":\"pid\"}]},\"annotations\":{\"b\":\"2\",\"a\":\"1\"}}";
        _cleanup_error_ struct ctk_error *err = NULL;
        _cleanup_json_ json_t *spec = NULL;
        _cleanup_oci_literals_ struct ctk_oci_literals lits = {0};
        assert_int_equal(ctk_oci_spec_parse(text, strlen(text), "config.json", &spec, &lits, &err), 0);
        struct ctk_devnode d = node("/dev/kfd", 235, 0, 0660, 110);
        assert_int_equal(put_nodes(spec, &d, 1, NULL, &err), 0);
        _cleanup_free_ char *out = ctk_oci_spec_encode(spec, NULL, NULL);
        assert_string_equal(out, "{\"ociVersion\":\"1.3.0\",\"zzz\":{\"future\":[1,2,{\"a\":null}]},"
                                 "\"process\":{\"user\":{\"uid\":0,\"gid\":0,\"additionalGids\":[110]},"
                                 "\"env\":[\"A=1\"],\"x-new\":true},"
                                 "\"linux\":{\"netDevices\":{\"eth1\":{}},\"memoryPolicy\":{\"mode\":\"MPOL_BIND\"},"
                                 "\"namespaces\":[{\"type\":\"pid\"}],"
                                 "\"devices\":[{\"path\":\"/dev/kfd\",\"type\":\"c\",\"major\":235,\"minor\":0,"
                                 "\"fileMode\":432,\"uid\":0,\"gid\":110}],"
                                 "\"resources\":{\"devices\":[{\"allow\":true,\"type\":\"c\",\"major\":235,"
                                 "\"minor\":0,\"access\":\"rwm\"}]}},"
                                 "\"annotations\":{\"b\":\"2\",\"a\":\"1\"}}\n");
}

static void test_env(void **state)
{
        (void)state;
        _cleanup_json_ json_t *spec = test_json("{\"process\":{\"env\":[\"PATH=/bin\",\"AMD_VISIBLE_DEVICES=0,1\"]}}");
        const char **env;
        size_t n;
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(ctk_oci_env(spec, &env, &n, &err), 0);
        assert_int_equal(n, 2);
        assert_string_equal(env[1], "AMD_VISIBLE_DEVICES=0,1");
        assert_null(env[2]);
        free(env);
        _cleanup_json_ json_t *empty = test_json("{\"root\":{}}");
        assert_int_equal(ctk_oci_env(empty, &env, &n, &err), 0);
        assert_int_equal(n, 0);
        assert_null(env[0]);
        free(env);
}

static void test_malformed(void **state)
{
        (void)state;
        struct {
                const char *spec;
                const char *want;
        } cases[] = {
            {"[]", "the spec is not a JSON object"},
            {"{\"linux\":[]}", "linux is not an object"},
            {"{\"linux\":{\"devices\":{}}}", "linux.devices is not an array"},
            {"{\"linux\":{\"devices\":[1]}}", "linux.devices[0] is not an object"},
            {"{\"linux\":{\"resources\":\"x\"}}", "linux.resources is not an object"},
            {"{\"linux\":{\"resources\":{\"devices\":null}}}", "linux.resources.devices is not an array"},
            {"{\"linux\":{\"resources\":{\"devices\":[{},\"x\"]}}}", "linux.resources.devices[1] is not an object"},
            {"{\"process\":5}", "process is not an object"},
            {"{\"process\":{\"user\":[]}}", "process.user is not an object"},
            {"{\"process\":{\"user\":{\"gid\":\"0\"}}}", "process.user.gid is not an integer"},
            {"{\"process\":{\"user\":{\"additionalGids\":{}}}}", "process.user.additionalGids is not an array"},
            {"{\"process\":{\"user\":{\"additionalGids\":[1,\"2\"]}}}",
             "process.user.additionalGids[1] is not an integer"},
        };
        struct ctk_devnode d = node("/dev/kfd", 235, 0, 0660, 110);
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                _cleanup_json_ json_t *spec = test_json(cases[i].spec);
                _cleanup_error_ struct ctk_error *err = NULL;
                assert_int_equal(put_nodes(spec, &d, 1, NULL, &err), -1);
                assert_non_null(err);
                if (strcmp(err->msg, cases[i].want) != 0)
                        fail_msg("spec %s: got \"%s\", want \"%s\"", cases[i].spec, err->msg, cases[i].want);
        }
        struct {
                const char *spec;
                const char *want;
        } envs[] = {
            {"{\"process\":{\"env\":\"A=1\"}}", "process.env is not an array"},
            {"{\"process\":{\"env\":[\"A=1\",2]}}", "process.env[1] is not a string"},
            {"{\"process\":[]}", "process is not an object"},
        };
        for (size_t i = 0; i < sizeof(envs) / sizeof(envs[0]); i++) {
                _cleanup_json_ json_t *spec = test_json(envs[i].spec);
                _cleanup_error_ struct ctk_error *err = NULL;
                const char **env = NULL;
                size_t n;
                assert_int_equal(ctk_oci_env(spec, &env, &n, &err), -1);
                assert_null(env);
                assert_string_equal(err->msg, envs[i].want);
        }
}

/* Paths that need escaping are encoded escaped; a path that is not UTF-8
 * is refused with a message naming it, and nothing is added. */
static void test_odd_paths(void **state)
{
        (void)state;
        struct ctk_devnode odd = node("/dev/odd\"\\\n\xc3\xa9", 10, 1, 0600, 0);
        _cleanup_json_ json_t *spec = test_json("{}");
        struct ctk_oci_edit_stats st;
        assert_int_equal(put_nodes(spec, &odd, 1, &st, NULL), 0);
        _cleanup_free_ char *text = ctk_oci_spec_encode(spec, NULL, NULL);
        assert_non_null(strstr(text, "\"path\":\"/dev/odd\\\"\\\\\\n\xc3\xa9\""));
        struct ctk_devnode bad = node("/dev/\xff", 1, 2, 0600, 0);
        _cleanup_json_ json_t *spec2 = test_json("{}");
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(put_nodes(spec2, &bad, 1, &st, &err), -1);
        assert_string_equal(err->msg, "device path /dev/\xff is not valid UTF-8");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_adds_device_and_rule),
            cmocka_unit_test(test_no_duplicates),
            cmocka_unit_test(test_existing_entry_replaced),
            cmocka_unit_test(test_partial_access),
            cmocka_unit_test(test_rule_added_when_access_incomplete_or_denied_later),
            cmocka_unit_test(test_unrelated_deny_keeps_rule),
            cmocka_unit_test(test_many_nodes_once),
            cmocka_unit_test(test_needs_group),
            cmocka_unit_test(test_additional_gids),
            cmocka_unit_test(test_additional_gid_cases),
            cmocka_unit_test(test_unknown_fields_and_order_preserved),
            cmocka_unit_test(test_env),
            cmocka_unit_test(test_malformed),
            cmocka_unit_test(test_odd_paths),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
