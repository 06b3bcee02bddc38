/* Unit tests of Docker's default profile (core/oci/seccomp_docker_default.c) and
 * of the NUMA edit on it.
 *
 * The Docker-format profile is rendered into an OCI linux.seccomp section the
 * way dockerd does for a container (the archMap entry of the native
 * architecture, rules filtered by the container's capabilities, architecture
 * and kernel), then compiled and tried with libseccomp (seccomp_oracle.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/utsname.h>

#include <cmocka.h>

#include "core/base/base.h"
#include "core/json/json.h"
#include "core/oci/seccomp_docker_default.h"
#include "core/oci/seccomp_numa.h"
#include "seccomp_oracle.h"

/* The capabilities Docker gives a container by default. */
static const char *const docker_caps[] = {"CAP_CHOWN",
                                          "CAP_DAC_OVERRIDE",
                                          "CAP_FSETID",
                                          "CAP_FOWNER",
                                          "CAP_MKNOD",
                                          "CAP_NET_RAW",
                                          "CAP_SETGID",
                                          "CAP_SETUID",
                                          "CAP_SETFCAP",
                                          "CAP_SETPCAP",
                                          "CAP_NET_BIND_SERVICE",
                                          "CAP_SYS_CHROOT",
                                          "CAP_KILL",
                                          "CAP_AUDIT_WRITE",
                                          NULL};

static bool in_list(const char *const *list, const char *s)
{
        for (size_t i = 0; list[i] != NULL; i++)
                if (strcmp(list[i], s) == 0)
                        return true;
        return false;
}

static bool json_has_string(const json_t *arr, const char *s)
{
        size_t i;
        const json_t *v;
        json_array_foreach(arr, i, v) if (json_is_string(v) && strcmp(json_string_value(v), s) == 0) return true;
        return false;
}

/* Go's name for the native architecture and libseccomp's OCI name for it. */
static void native_arch(const char **goarch, const char **oci)
{
        uint32_t a = seccomp_arch_native();
        *goarch = *oci = NULL;
        if (a == SCMP_ARCH_X86_64) {
                *goarch = "amd64";
                *oci = "SCMP_ARCH_X86_64";
        } else if (a == SCMP_ARCH_AARCH64) {
                *goarch = "arm64";
                *oci = "SCMP_ARCH_AARCH64";
        } else {
                fail_msg("native architecture %#x is not mapped in this test", a);
        }
        assert_non_null(*goarch);
}

static int kernel_at_least(const char *min)
{
        struct utsname u;
        assert_int_equal(uname(&u), 0);
        unsigned have_major = 0, have_minor = 0, want_major = 0, want_minor = 0;
        // NOLINTNEXTLINE(cert-err34-c): both numbers read is checked, all this needs
        assert_int_equal(sscanf(min, "%u.%u", &want_major, &want_minor), 2);
        // NOLINTNEXTLINE(cert-err34-c): a kernel release starts with two numbers, both read is checked
        assert_true(sscanf(u.release, "%u.%u", &have_major, &have_minor) == 2);
        return have_major > want_major || (have_major == want_major && have_minor >= want_minor);
}

/* Whether Docker keeps a rule for this container (moby's filter semantics:
 * every included capability held, no excluded one held, architecture listed
 * in includes and not in excludes, kernel at least minKernel). */
static bool docker_keeps(const json_t *rule, const char *goarch, const char *const *caps)
{
        const json_t *inc = json_object_get(rule, "includes"), *exc = json_object_get(rule, "excludes");
        size_t i;
        const json_t *v;
        json_array_foreach(json_object_get(inc, "caps"), i, v) if (!in_list(caps, json_string_value(v))) return false;
        const json_t *arches = json_object_get(inc, "arches");
        if (json_array_size(arches) > 0 && !json_has_string(arches, goarch))
                return false;
        const char *min = json_string_value(json_object_get(inc, "minKernel"));
        if (min != NULL && min[0] != '\0' && !kernel_at_least(min))
                return false;
        json_array_foreach(json_object_get(exc, "caps"), i, v) if (in_list(caps, json_string_value(v))) return false;
        return !json_has_string(json_object_get(exc, "arches"), goarch);
}

/* The linux.seccomp section Docker would write into config.json. */
static json_t *docker_render(const json_t *profile, const char *const *caps)
{
        const char *goarch = NULL, *oci = NULL;
        native_arch(&goarch, &oci);
        assert_non_null(oci);
        json_t *arches = json_array();
        size_t i;
        const json_t *entry;
        json_array_foreach(json_object_get(profile, "archMap"), i, entry)
        {
                if (strcmp(json_string_value(json_object_get(entry, "architecture")), oci) != 0)
                        continue;
                json_array_append(arches, json_object_get(entry, "architecture"));
                size_t k;
                json_t *sub;
                json_array_foreach(json_object_get(entry, "subArchitectures"), k, sub) json_array_append(arches, sub);
        }
        json_t *calls = json_array();
        const json_t *rule;
        json_array_foreach(json_object_get(profile, "syscalls"), i, rule)
        {
                if (!docker_keeps(rule, goarch, caps))
                        continue;
                json_t *r = json_pack("{s:O, s:O}", "names", json_object_get(rule, "names"), "action",
                                      json_object_get(rule, "action"));
                if (json_object_get(rule, "errnoRet") != NULL)
                        json_object_set(r, "errnoRet", json_object_get(rule, "errnoRet"));
                if (json_array_size(json_object_get(rule, "args")) > 0)
                        json_object_set(r, "args", json_object_get(rule, "args"));
                json_array_append_new(calls, r);
        }
        return json_pack("{s:O, s:O, s:o, s:o}", "defaultAction", json_object_get(profile, "defaultAction"),
                         "defaultErrnoRet", json_object_get(profile, "defaultErrnoRet"), "architectures", arches,
                         "syscalls", calls);
}

static int run_under(const json_t *section, const char *name)
{
        scmp_filter_ctx ctx = NULL;
        _cleanup_free_ char *why = NULL;
        if (oracle_compile(section, &ctx, &why) < 0)
                fail_msg("libseccomp rejects the rendered profile: %s", why != NULL ? why : "?");
        int r = oracle_call(ctx, name);
        seccomp_release(ctx);
        assert_int_not_equal(r, -1000);
        return r;
}

static const char *const numa[] = {"get_mempolicy", "mbind", "set_mempolicy", "set_mempolicy_home_node", NULL};

static void default_profile_shape(void **state)
{
        (void)state;
        _cleanup_json_ json_t *p = ctk_seccomp_docker_default_profile();
        assert_non_null(p);
        assert_string_equal(json_string_value(json_object_get(p, "defaultAction")), "SCMP_ACT_ERRNO");
        assert_int_equal(json_integer_value(json_object_get(p, "defaultErrnoRet")), 1);
        const json_t *first = json_array_get(json_object_get(p, "syscalls"), 0);
        assert_true(json_has_string(json_object_get(first, "names"), "read"));
        assert_false(json_has_string(json_object_get(first, "names"), "mount"));
        assert_false(json_has_string(json_object_get(first, "names"), "get_mempolicy"));
        /* The NUMA calls are in Docker's CAP_SYS_NICE rule only. */
        size_t i, hits = 0;
        const json_t *rule;
        json_array_foreach(json_object_get(p, "syscalls"), i, rule)
        {
                if (!json_has_string(json_object_get(rule, "names"), "mbind"))
                        continue;
                hits++;
                assert_true(
                    json_has_string(json_object_get(json_object_get(rule, "includes"), "caps"), "CAP_SYS_NICE"));
        }
        assert_int_equal(hits, 1);
}

static void docker_renders_default_profile_denying_numa(void **state)
{
        (void)state;
        _cleanup_json_ json_t *p = ctk_seccomp_docker_default_profile();
        _cleanup_json_ json_t *section = docker_render(p, docker_caps);
        for (size_t i = 0; numa[i] != NULL; i++)
                assert_int_equal(run_under(section, numa[i]), EPERM);
        assert_int_equal(run_under(section, "unshare"), EPERM);
        assert_int_equal(run_under(section, "mount"), EPERM);
        assert_int_equal(run_under(section, "getpid"), 0);

        /* CAP_SYS_NICE opens them: the oracle does see the difference. */
        static const char *const nice_caps[] = {"CAP_SYS_NICE", NULL};
        _cleanup_json_ json_t *nice = docker_render(p, nice_caps);
        assert_int_equal(run_under(nice, "get_mempolicy"), 0);
}

static void numa_edit_of_default_profile(void **state)
{
        (void)state;
        _cleanup_json_ json_t *p = ctk_seccomp_docker_default_profile();
        _cleanup_json_ json_t *before = json_deep_copy(p);
        _cleanup_error_ struct ctk_error *err = NULL;
        bool changed = false;
        assert_int_equal(ctk_seccomp_numa_edit_docker_profile(p, &changed, &err), 0);
        assert_true(changed);
        json_t *calls = json_object_get(p, "syscalls");
        assert_int_equal(json_array_size(calls), json_array_size(json_object_get(before, "syscalls")) + 1);
        const json_t *added = json_array_get(calls, json_array_size(calls) - 1);
        assert_null(json_object_get(added, "includes"));
        assert_null(json_object_get(added, "args"));
        for (size_t i = 0; numa[i] != NULL; i++)
                assert_true(json_has_string(json_object_get(added, "names"), numa[i]));

        _cleanup_json_ json_t *section = docker_render(p, docker_caps);
        for (size_t i = 0; numa[i] != NULL; i++) {
                int unfiltered = oracle_call(NULL, numa[i]);
                assert_int_not_equal(unfiltered, EPERM);
                assert_int_equal(run_under(section, numa[i]), unfiltered);
        }
        assert_int_equal(run_under(section, "unshare"), EPERM);
        assert_int_equal(run_under(section, "mount"), EPERM);

        /* Second edit: nothing left to add. */
        assert_int_equal(ctk_seccomp_numa_edit_docker_profile(p, &changed, &err), 0);
        assert_false(changed);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(default_profile_shape),
            cmocka_unit_test(docker_renders_default_profile_denying_numa),
            cmocka_unit_test(numa_edit_of_default_profile),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
