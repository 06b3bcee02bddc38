/* The members container edits put: env, mounts (depth order), hooks,
 * intelRdt, net devices; the check of the members an edit touches. */
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
#include "core/oci/oci.h"

static void test_env_put(void **state)
{
        (void)state;
        _cleanup_json_ json_t *spec = test_json("{\"process\":{\"env\":[\"A=1\",\"AB=2\"]}}");
        bool changed;
        assert_int_equal(ctk_oci_env_put(spec, "A=3", &changed, NULL), 0);
        assert_true(changed);
        assert_int_equal(ctk_oci_env_put(spec, "A=3", &changed, NULL), 0);
        assert_false(changed);
        assert_int_equal(ctk_oci_env_put(spec, "B=", &changed, NULL), 0);
        assert_json_is(spec, "{\"process\":{\"env\":[\"A=3\",\"AB=2\",\"B=\"]}}");
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(ctk_oci_env_put(spec, "=x", &changed, &err), -1);
        assert_string_equal(err->msg, "invalid environment entry \"=x\": must be NAME=value");
}

/* Mounts sorted by the depth of the cleaned destination, stably. */
static void test_mount_depth(void **state)
{
        (void)state;
        _cleanup_json_ json_t *spec = test_json("{\"mounts\":[{\"destination\":\"/a/b/c\"},{\"destination\":\"/x\"}]}");
        const char *dsts[] = {"/a/../b/./c/", "//z", "/a/b/../../..", "rel/x", "/y", "../up/x"};
        json_t *add[6];
        for (size_t i = 0; i < 6; i++)
                add[i] = json_pack("{s:s}", "destination", dsts[i]);
        assert_int_equal(ctk_oci_put_mounts(spec, add, 6, NULL), 0);
        /* depths: /a/b/c 3, /x 1, /b/c 2, /z 1, / 0, rel/x 1, /y 1, ../up/x 2 */
        assert_json_is(json_object_get(spec, "mounts"),
                       "[{\"destination\":\"/a/b/../../..\"},{\"destination\":\"/x\"},{\"destination\":\"//z\"},"
                       "{\"destination\":\"rel/x\"},{\"destination\":\"/y\"},{\"destination\":\"/a/../b/./c/\"},"
                       "{\"destination\":\"../up/x\"},{\"destination\":\"/a/b/c\"}]");
}

static void test_hooks_rdt_netdevs(void **state)
{
        (void)state;
        _cleanup_json_ json_t *spec = test_json("{\"linux\":{\"intelRdt\":{\"closID\":\"old\"}}}");
        assert_int_equal(ctk_oci_add_hook(spec, "poststop", json_pack("{s:s}", "path", "/bin/a"), NULL, NULL), 0);
        assert_int_equal(ctk_oci_add_hook(spec, "poststop", json_pack("{s:s}", "path", "/bin/b"), NULL, NULL), 0);
        bool added = true; /* the same hook again, with empty members: not added */
        assert_int_equal(ctk_oci_add_hook(spec, "poststop",
                                          json_pack("{s:s,s:[],s:n}", "path", "/bin/a", "env", "timeout"), &added,
                                          NULL),
                         0);
        assert_false(added);
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(ctk_oci_add_hook(spec, "prestop", json_pack("{s:s}", "path", "/bin/c"), NULL, &err), -1);
        assert_string_equal(err->msg, "unknown hook kind \"prestop\"");
        assert_int_equal(ctk_oci_set_intel_rdt(spec, json_pack("{s:s}", "closID", "new"), NULL), 0);
        assert_int_equal(ctk_oci_set_net_device(spec, "eth0", "nic0", NULL), 0);
        assert_int_equal(ctk_oci_set_net_device(spec, "eth0", "nic1", NULL), 0);
        assert_json_is(spec,
                       "{\"linux\":{\"intelRdt\":{\"closID\":\"new\"},\"netDevices\":{\"eth0\":{\"name\":\"nic1\"}}},"
                       "\"hooks\":{\"poststop\":[{\"path\":\"/bin/a\"},{\"path\":\"/bin/b\"}]}}");
}

static void test_check_editable(void **state)
{
        (void)state;
        const char *ok[] = {"{}", "{\"process\":{\"user\":{\"uid\":0}},\"mounts\":[],\"hooks\":{}}"};
        for (size_t i = 0; i < 2; i++) {
                _cleanup_json_ json_t *spec = test_json(ok[i]);
                assert_int_equal(ctk_oci_check_editable(spec, NULL), 0);
        }
        const char *bad[][2] = {
            {"{\"process\":{\"user\":{\"uid\":\"0\"}}}", "process.user.uid is not an integer"},
            {"{\"linux\":{\"namespaces\":{}}}", "linux.namespaces is not an array"},
            {"{\"linux\":{\"netDevices\":[]}}", "linux.netDevices is not an object"},
            {"{\"linux\":{\"resources\":{\"devices\":[[]]}}}", "linux.resources.devices[0] is not an object"},
            {"{\"mounts\":{}}", "mounts is not an array"},
            {"{\"hooks\":[]}", "hooks is not an object"},
            {"{\"hooks\":{\"createRuntime\":7}}", "hooks.createRuntime is not an array"},
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                _cleanup_json_ json_t *spec = test_json(bad[i][0]);
                _cleanup_error_ struct ctk_error *err = NULL;
                assert_int_equal(ctk_oci_check_editable(spec, &err), -1);
                assert_string_equal(err->msg, bad[i][1]);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_env_put),
            cmocka_unit_test(test_mount_depth),
            cmocka_unit_test(test_hooks_rdt_netdevs),
            cmocka_unit_test(test_check_editable),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
