/* Unit tests of runtime/policy.c: who may have GPUs, decided over a parsed
 * spec and the configuration. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/base.h"
#include "core/config/config.h"
#include "core/json/json.h"
#include "runtime/policy.h"

static json_t *spec(const char *text)
{
        json_error_t e;
        json_t *j = json_loads(text, 0, &e);
        if (j == NULL)
                fail_msg("bad test spec: %s", e.text);
        return j;
}

static void test_privileged(void **state)
{
        (void)state;
        _cleanup_json_ json_t *priv = spec("{\"process\": {\"capabilities\": {\"bounding\": [\"CAP_CHOWN\", "
                                           "\"CAP_SYS_ADMIN\"], \"effective\": []}}}");
        _cleanup_json_ json_t *docker_default =
            spec("{\"process\": {\"capabilities\": {\"bounding\": [\"CAP_CHOWN\", \"CAP_NET_RAW\"], "
                 "\"effective\": [\"CAP_SYS_ADMIN\"], \"permitted\": [\"CAP_SYS_ADMIN\"]}}}");
        _cleanup_json_ json_t *none = spec("{\"process\": {\"env\": []}}");
        _cleanup_json_ json_t *odd = spec("{\"process\": {\"capabilities\": {\"bounding\": \"CAP_SYS_ADMIN\"}}}");
        _cleanup_json_ json_t *lower =
            spec("{\"process\": {\"capabilities\": {\"bounding\": [\"cap_sys_admin\", 1]}}}");
        assert_int_equal(rt_policy_privilege(priv), RT_PRIVILEGED);
        /* only the bounding set counts */
        assert_int_equal(rt_policy_privilege(docker_default), RT_UNPRIVILEGED_CAPS);
        assert_int_equal(rt_policy_privilege(none), RT_UNPRIVILEGED_CAPS);
        assert_int_equal(rt_policy_privilege(odd), RT_UNPRIVILEGED_CAPS);
        assert_int_equal(rt_policy_privilege(lower), RT_UNPRIVILEGED_CAPS);
}

/* CAP_SYS_ADMIN in a user namespace of the container's own is that
 * namespace's: unprivileged on the host (podman --userns=auto --cap-add
 * SYS_ADMIN, a pod with hostUsers: false, Docker with userns-remap). */
static void test_user_namespace(void **state)
{
        (void)state;
#define SYS_ADMIN "\"process\": {\"capabilities\": {\"bounding\": [\"CAP_SYS_ADMIN\"]}}"
        _cleanup_json_ json_t *userns = spec("{" SYS_ADMIN ", \"linux\": {\"namespaces\": [{\"type\": \"pid\"}, "
                                             "{\"type\": \"user\"}, {\"type\": \"mount\"}]}}");
        _cleanup_json_ json_t *joined = spec(
            "{" SYS_ADMIN ", \"linux\": {\"namespaces\": [{\"type\": \"user\", \"path\": \"/proc/42/ns/user\"}]}}");
        _cleanup_json_ json_t *uid_maps = spec("{" SYS_ADMIN ", \"linux\": {\"uidMappings\": [{\"containerID\": 0, "
                                               "\"hostID\": 100000, \"size\": 65536}]}}");
        _cleanup_json_ json_t *gid_maps = spec("{" SYS_ADMIN ", \"linux\": {\"gidMappings\": [{\"containerID\": 0, "
                                               "\"hostID\": 100000, \"size\": 65536}]}}");
        _cleanup_json_ json_t *host = spec("{" SYS_ADMIN ", \"linux\": {\"namespaces\": [{\"type\": \"pid\"}, "
                                           "{\"type\": \"mount\"}], \"uidMappings\": []}}");
        _cleanup_json_ json_t *odd = spec("{" SYS_ADMIN ", \"linux\": {\"namespaces\": {\"type\": \"user\"}}}");
#undef SYS_ADMIN
        assert_int_equal(rt_policy_privilege(userns), RT_UNPRIVILEGED_USERNS);
        assert_int_equal(rt_policy_privilege(joined), RT_UNPRIVILEGED_USERNS);
        assert_int_equal(rt_policy_privilege(uid_maps), RT_UNPRIVILEGED_USERNS);
        assert_int_equal(rt_policy_privilege(gid_maps), RT_UNPRIVILEGED_USERNS);
        assert_int_equal(rt_policy_privilege(host), RT_PRIVILEGED);
        assert_int_equal(rt_policy_privilege(odd), RT_PRIVILEGED); /* (not a list: runc refuses it) */
        assert_string_equal(rt_policy_privilege_why(RT_UNPRIVILEGED_USERNS),
                            "unprivileged: user namespace (its CAP_SYS_ADMIN is not the host's)");
        /* for every policy key: the variables are refused when the key says so */
        _cleanup_config_ struct ctk_config c = {0};
        assert_int_equal(ctk_config_defaults(&c, NULL), 0);
        c.accept_env_unprivileged = false;
        assert_false(rt_policy_env_accepted(&c, userns));
        assert_false(rt_policy_env_accepted(&c, uid_maps));
        assert_true(rt_policy_env_accepted(&c, host));
}

static void test_env_accepted(void **state)
{
        (void)state;
        _cleanup_config_ struct ctk_config c = {0};
        assert_int_equal(ctk_config_defaults(&c, NULL), 0);
        _cleanup_json_ json_t *priv = spec("{\"process\": {\"capabilities\": {\"bounding\": [\"CAP_SYS_ADMIN\"]}}}");
        _cleanup_json_ json_t *unpriv = spec("{\"process\": {\"capabilities\": {\"bounding\": [\"CAP_KILL\"]}}}");
        /* the default: today's behaviour, Docker's documented way */
        assert_true(rt_policy_env_accepted(&c, unpriv));
        assert_true(rt_policy_env_accepted(&c, priv));
        c.accept_env_unprivileged = false;
        assert_false(rt_policy_env_accepted(&c, unpriv));
        assert_true(rt_policy_env_accepted(&c, priv));
}

static void test_kinds(void **state)
{
        (void)state;
        _cleanup_config_ struct ctk_config c = {0};
        assert_int_equal(ctk_config_defaults(&c, NULL), 0);
        struct ctk_strv names _cleanup_strv_ = {0}, sources _cleanup_strv_ = {0};
        assert_int_equal(ctk_strv_push(&names, "amd.com/gpu=0"), 0);
        assert_int_equal(ctk_strv_push(&sources, "AMD_VISIBLE_DEVICES"), 0);
        assert_int_equal(rt_policy_check_kinds(&c, &names, &sources, NULL), 0);
        assert_int_equal(ctk_strv_push(&names, "nvidia.com/gpu=all"), 0);
        assert_int_equal(ctk_strv_push(&sources, "AMD_VISIBLE_DEVICES"), 0);
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(rt_policy_check_kinds(&c, &names, &sources, &err), -1);
        assert_string_equal(err->msg,
                            "AMD_VISIBLE_DEVICES: 'nvidia.com/gpu=all' is a CDI device of kind nvidia.com/gpu, "
                            "which this runtime does not resolve (config key cdi-kinds: amd.com/gpu); add the "
                            "kind to cdi-kinds, or [\"*\"] for any kind");
        /* "*": any vendor, as before the key */
        assert_int_equal(ctk_strv_push(&c.cdi_kinds, "*"), 0);
        assert_int_equal(rt_policy_check_kinds(&c, &names, &sources, NULL), 0);
        /* none at all: every name is refused, the message says so */
        ctk_strv_clear(&c.cdi_kinds);
        ctk_error_free(ctk_steal(&err));
        assert_int_equal(rt_policy_check_kinds(&c, &names, NULL, &err), -1);
        assert_string_equal(err->msg,
                            "'amd.com/gpu=0' is a CDI device of kind amd.com/gpu, which this runtime does not "
                            "resolve (config key cdi-kinds: none); add the kind to cdi-kinds, or [\"*\"] for "
                            "any kind");
        /* a name that is not qualified is left to the resolution's message */
        struct ctk_strv bad _cleanup_strv_ = {0};
        assert_int_equal(ctk_strv_push(&bad, "no kind"), 0);
        assert_int_equal(rt_policy_check_kinds(&c, &bad, NULL, NULL), 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_privileged),
            cmocka_unit_test(test_user_namespace),
            cmocka_unit_test(test_env_accepted),
            cmocka_unit_test(test_kinds),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
