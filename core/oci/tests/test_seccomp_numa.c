/* Unit tests of the NUMA seccomp edit (core/oci/seccomp_numa.c).
 *
 * libseccomp is the oracle: the edited linux.seccomp section is compiled the
 * way runc compiles it (seccomp_oracle.h), loaded in a forked child, and the
 * syscalls are tried there.
 *
 * fixtures/docker-default-config.json and fixtures/docker-sys-nice-config.json
 * are config.json files that a real dockerd (20.10.24, Debian 12) rendered for
 * `docker run --network none IMAGE sleep 300`, without and with
 * `--cap-add SYS_NICE`; they were captured from a private dockerd with
 * fixtures/capture-docker-config.sh, which also explains how.  bats/seccomp.bats
 * captures config.json from its own private dockerd and checks that the
 * default one still has exactly this fixture's linux.seccomp section. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/base/base.h"
#include "core/json/json.h"
#include "core/oci/seccomp_numa.h"
#include "seccomp_oracle.h"

static char *fixture_path(const char *name)
{
        const char *file = __FILE__;
        const char *slash = strrchr(file, '/');
        int dirlen = slash != NULL ? (int)(slash - file + 1) : 0;
        char *p = NULL;
        assert_true(asprintf(&p, "%.*sfixtures/%s", dirlen, file, name) >= 0);
        return p;
}

static json_t *load_fixture(const char *name)
{
        _cleanup_free_ char *path = fixture_path(name);
        json_error_t jerr;
        json_t *j = json_load_file(path, 0, &jerr);
        if (j == NULL)
                fail_msg("%s:%d: %s", path, jerr.line, jerr.text);
        return j;
}

static json_t *parse(const char *text)
{
        json_error_t jerr;
        json_t *j = json_loads(text, 0, &jerr);
        if (j == NULL)
                fail_msg("test JSON: %d:%d: %s", jerr.line, jerr.column, jerr.text);
        return j;
}

static json_t *seccomp_of(json_t *spec)
{
        return json_object_get(json_object_get(spec, "linux"), "seccomp");
}

/* What `name` returns under the spec's linux.seccomp (compiled like runc). */
static int outcome(json_t *spec, const char *name)
{
        scmp_filter_ctx ctx = NULL;
        _cleanup_free_ char *why = NULL;
        if (oracle_compile(seccomp_of(spec), &ctx, &why) < 0)
                fail_msg("libseccomp rejects the profile: %s", why != NULL ? why : "?");
        int r = oracle_call(ctx, name);
        seccomp_release(ctx);
        assert_int_not_equal(r, -1000);
        return r;
}

/* What `name` returns with no filter at all: the "allowed" outcome. */
static int unfiltered(const char *name)
{
        int r = oracle_call(NULL, name);
        assert_int_not_equal(r, -1000);
        return r;
}

static void assert_allowed(json_t *spec, const char *name)
{
        int free_run = unfiltered(name);
        assert_int_not_equal(free_run, EPERM); /* else the probe could not tell */
        assert_int_equal(outcome(spec, name), free_run);
}

static void assert_denied(json_t *spec, const char *name, int expected)
{
        assert_int_not_equal(unfiltered(name), expected);
        assert_int_equal(outcome(spec, name), expected);
}

static void assert_numa_rule(const json_t *rule, const char *const *names)
{
        assert_string_equal(json_string_value(json_object_get(rule, "action")), "SCMP_ACT_ALLOW");
        const json_t *arr = json_object_get(rule, "names");
        size_t n = 0;
        while (names[n] != NULL)
                n++;
        assert_int_equal(json_array_size(arr), n);
        for (size_t i = 0; i < n; i++)
                assert_string_equal(json_string_value(json_array_get(arr, i)), names[i]);
}

static json_t *last_rule(json_t *spec)
{
        json_t *calls = json_object_get(seccomp_of(spec), "syscalls");
        return json_array_get(calls, json_array_size(calls) - 1);
}

/* Edits spec and checks that exactly one rule was appended: the document
 * without its last rule equals the original. */
static void edit_adds_one_rule(json_t *spec)
{
        _cleanup_json_ json_t *before = json_deep_copy(spec);
        _cleanup_error_ struct ctk_error *err = NULL;
        bool changed = false;
        assert_int_equal(ctk_seccomp_numa_edit_spec(spec, &changed, &err), 0);
        assert_true(changed);
        _cleanup_json_ json_t *trimmed = json_deep_copy(spec);
        json_t *calls = json_object_get(seccomp_of(trimmed), "syscalls");
        assert_int_equal(json_array_remove(calls, json_array_size(calls) - 1), 0);
        assert_true(json_equal(trimmed, before));
}

static void edit_changes_nothing(json_t *spec)
{
        _cleanup_free_ char *before = json_dumps(spec, JSON_COMPACT);
        _cleanup_error_ struct ctk_error *err = NULL;
        bool changed = true;
        assert_int_equal(ctk_seccomp_numa_edit_spec(spec, &changed, &err), 0);
        assert_false(changed);
        _cleanup_free_ char *after = json_dumps(spec, JSON_COMPACT);
        assert_string_equal(after, before);
}

/* The calls a probe child makes besides the probed one (also under ASan). */
#define CHILD_RULE                                                                                                     \
        "{\"names\":[\"getpid\",\"gettid\",\"tgkill\",\"exit_group\",\"exit\",\"write\",\"read\",\"close\","           \
        "\"mmap\",\"munmap\",\"mprotect\",\"madvise\",\"sigaltstack\",\"rt_sigaction\",\"rt_sigprocmask\","            \
        "\"prctl\",\"futex\",\"sched_yield\",\"openat\",\"newfstatat\",\"fstat\",\"readlink\"],"                       \
        "\"action\":\"SCMP_ACT_ALLOW\"}"

static const char *const all_four[] = {"get_mempolicy", "mbind", "set_mempolicy", "set_mempolicy_home_node", NULL};

static void docker_default_profile_gets_numa_rule(void **state)
{
        (void)state;
        _cleanup_json_ json_t *spec = load_fixture("docker-default-config.json");
        for (size_t i = 0; all_four[i] != NULL; i++)
                assert_denied(spec, all_four[i], EPERM);
        assert_denied(spec, "unshare", EPERM);
        assert_denied(spec, "mount", EPERM);

        edit_adds_one_rule(spec);
        assert_numa_rule(last_rule(spec), all_four);
        for (size_t i = 0; all_four[i] != NULL; i++)
                assert_allowed(spec, all_four[i]);
        assert_denied(spec, "unshare", EPERM);
        assert_denied(spec, "mount", EPERM);
        assert_allowed(spec, "getpid");

        edit_changes_nothing(spec); /* idempotent */
}

static void docker_sys_nice_profile_gets_only_the_missing_name(void **state)
{
        (void)state;
        /* dockerd 20.10 allows three of the four names to CAP_SYS_NICE. */
        _cleanup_json_ json_t *spec = load_fixture("docker-sys-nice-config.json");
        assert_allowed(spec, "get_mempolicy");
        assert_denied(spec, "set_mempolicy_home_node", EPERM);
        edit_adds_one_rule(spec);
        static const char *const missing[] = {"set_mempolicy_home_node", NULL};
        assert_numa_rule(last_rule(spec), missing);
        assert_allowed(spec, "set_mempolicy_home_node");
        assert_denied(spec, "unshare", EPERM);
}

static void profile_without_rule(void **state)
{
        (void)state;
        _cleanup_json_ json_t *spec = parse("{\"ociVersion\":\"1.0.2\",\"future\":{\"x\":1},\"linux\":{\"seccomp\":{"
                                            "\"defaultAction\":\"SCMP_ACT_ERRNO\",\"defaultErrnoRet\":1,"
                                            "\"architectures\":[\"SCMP_ARCH_X86_64\"],\"flags\":[],"
                                            "\"syscalls\":[" CHILD_RULE "]}}}");
        edit_adds_one_rule(spec);
        assert_numa_rule(last_rule(spec), all_four);
        assert_int_equal(json_object_size(last_rule(spec)), 2); /* names and action, nothing else */
        assert_allowed(spec, "set_mempolicy");
}

static void profile_with_rule_is_unchanged(void **state)
{
        (void)state;
        _cleanup_json_ json_t *spec = parse("{\"linux\":{\"seccomp\":{\"defaultAction\":\"SCMP_ACT_ERRNO\","
                                            "\"syscalls\":[{\"names\":[\"mbind\",\"getpid\"],\"action\":"
                                            "\"SCMP_ACT_ALLOW\",\"args\":[]},{\"names\":[\"get_mempolicy\","
                                            "\"set_mempolicy\",\"set_mempolicy_home_node\"],\"action\":"
                                            "\"SCMP_ACT_LOG\",\"args\":null}]}}}");
        edit_changes_nothing(spec);
}

static void partial_rule_adds_the_rest(void **state)
{
        (void)state;
        _cleanup_json_ json_t *spec = parse("{\"linux\":{\"seccomp\":{\"defaultAction\":\"SCMP_ACT_ERRNO\","
                                            "\"syscalls\":[{\"names\":[\"mbind\",\"get_mempolicy\"],\"action\":"
                                            "\"SCMP_ACT_ALLOW\"}]}}}");
        edit_adds_one_rule(spec);
        static const char *const rest[] = {"set_mempolicy", "set_mempolicy_home_node", NULL};
        assert_numa_rule(last_rule(spec), rest);
}

static void conditional_rules_do_not_count(void **state)
{
        (void)state;
        /* An args-conditional allow and a capability-filtered allow are not
         * unconditional; libseccomp must still accept the result. */
        _cleanup_json_ json_t *spec =
            parse("{\"linux\":{\"seccomp\":{\"defaultAction\":\"SCMP_ACT_ERRNO\",\"syscalls\":[" CHILD_RULE ","
                  "{\"names\":[\"get_mempolicy\"],\"action\":\"SCMP_ACT_ALLOW\",\"args\":[{\"index\":4,\"value\":"
                  "77,\"op\":\"SCMP_CMP_EQ\"}]},"
                  "{\"names\":[\"mbind\"],\"action\":\"SCMP_ACT_ALLOW\",\"includes\":{\"caps\":[\"CAP_SYS_NICE\"]}},"
                  "{\"names\":[\"set_mempolicy\"],\"action\":\"SCMP_ACT_ALLOW\",\"excludes\":{\"arches\":[\"s390\"]}}"
                  "]}}}");
        assert_denied(spec, "get_mempolicy", EPERM);
        edit_adds_one_rule(spec);
        assert_numa_rule(last_rule(spec), all_four);
        assert_allowed(spec, "get_mempolicy");
        assert_allowed(spec, "mbind");
}

static void explicit_other_action_is_respected(void **state)
{
        (void)state;
        _cleanup_json_ json_t *spec = parse("{\"linux\":{\"seccomp\":{\"defaultAction\":\"SCMP_ACT_KILL_PROCESS\","
                                            "\"syscalls\":[" CHILD_RULE ",{\"names\":[\"mbind\"],\"action\":"
                                            "\"SCMP_ACT_ERRNO\",\"errnoRet\":95}]}}}");
        edit_adds_one_rule(spec);
        static const char *const rest[] = {"get_mempolicy", "set_mempolicy", "set_mempolicy_home_node", NULL};
        assert_numa_rule(last_rule(spec), rest);
        assert_denied(spec, "mbind", EOPNOTSUPP);
        assert_allowed(spec, "get_mempolicy");
        assert_int_equal(outcome(spec, "unshare"), -SIGSYS);
}

static json_t *profile_with_default(const char *action)
{
        _cleanup_free_ char *text = NULL;
        assert_true(asprintf(&text,
                             "{\"linux\":{\"seccomp\":{\"defaultAction\":\"%s\",\"syscalls\":[" CHILD_RULE "]}}}",
                             action) >= 0);
        return parse(text);
}

static void permitting_defaults_are_unchanged(void **state)
{
        (void)state;
        static const char *const defaults[] = {"SCMP_ACT_ALLOW", "SCMP_ACT_LOG", "SCMP_ACT_NOTIFY", NULL};
        for (size_t i = 0; defaults[i] != NULL; i++) {
                _cleanup_json_ json_t *spec = profile_with_default(defaults[i]);
                edit_changes_nothing(spec);
        }
}

static void every_denying_default_gets_the_rule(void **state)
{
        (void)state;
        static const struct {
                const char *action;
                int before; /* what get_mempolicy returns before the edit */
        } cases[] = {
            {"SCMP_ACT_ERRNO", EPERM},          {"SCMP_ACT_KILL", -SIGSYS}, {"SCMP_ACT_KILL_THREAD", -SIGSYS},
            {"SCMP_ACT_KILL_PROCESS", -SIGSYS}, {"SCMP_ACT_TRAP", -SIGSYS}, {"SCMP_ACT_TRACE", ENOSYS},
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                _cleanup_json_ json_t *spec = profile_with_default(cases[i].action);
                assert_int_equal(outcome(spec, "get_mempolicy"), cases[i].before);
                edit_adds_one_rule(spec);
                assert_numa_rule(last_rule(spec), all_four);
                assert_allowed(spec, "get_mempolicy");
                assert_allowed(spec, "set_mempolicy");
                assert_int_equal(outcome(spec, "mount"), cases[i].before);
        }
}

static void no_profile_no_change(void **state)
{
        (void)state;
        static const char *const specs[] = {"{}", "{\"linux\":{}}", "{\"linux\":null}",
                                            "{\"linux\":{\"seccomp\":null}}", NULL};
        for (size_t i = 0; specs[i] != NULL; i++) {
                _cleanup_json_ json_t *spec = parse(specs[i]);
                edit_changes_nothing(spec);
        }
}

static void missing_syscalls_array_is_created(void **state)
{
        (void)state;
        _cleanup_json_ json_t *spec = parse("{\"linux\":{\"seccomp\":{\"defaultAction\":\"SCMP_ACT_ERRNO\"}}}");
        _cleanup_error_ struct ctk_error *err = NULL;
        bool changed = false;
        assert_int_equal(ctk_seccomp_numa_edit_spec(spec, &changed, &err), 0);
        assert_true(changed);
        json_t *calls = json_object_get(seccomp_of(spec), "syscalls");
        assert_int_equal(json_array_size(calls), 1);
        assert_numa_rule(json_array_get(calls, 0), all_four);
}

static void malformed_sections_fail_untouched(void **state)
{
        (void)state;
        static const struct {
                const char *spec;
                const char *message;
        } cases[] = {
            {"[]", "OCI spec: expected a JSON object"},
            {"{\"linux\":[]}", "linux: expected an object"},
            {"{\"linux\":{\"seccomp\":\"SCMP_ACT_ERRNO\"}}", "linux.seccomp: expected an object"},
            {"{\"linux\":{\"seccomp\":{}}}", "linux.seccomp.defaultAction: expected an action string"},
            {"{\"linux\":{\"seccomp\":{\"defaultAction\":1}}}",
             "linux.seccomp.defaultAction: expected an action string"},
            {"{\"linux\":{\"seccomp\":{\"defaultAction\":\"SCMP_ACT_DENY\"}}}",
             "linux.seccomp.defaultAction: unknown seccomp action \"SCMP_ACT_DENY\""},
            {"{\"linux\":{\"seccomp\":{\"defaultAction\":\"SCMP_ACT_ERRNO\",\"architectures\":\"x86\"}}}",
             "linux.seccomp.architectures: expected an array of architecture names"},
            {"{\"linux\":{\"seccomp\":{\"defaultAction\":\"SCMP_ACT_ERRNO\",\"architectures\":[7]}}}",
             "linux.seccomp.architectures[0]: expected an architecture name"},
            {"{\"linux\":{\"seccomp\":{\"defaultAction\":\"SCMP_ACT_ERRNO\",\"syscalls\":{}}}}",
             "linux.seccomp.syscalls: expected an array of rules"},
            {"{\"linux\":{\"seccomp\":{\"defaultAction\":\"SCMP_ACT_ERRNO\",\"syscalls\":[1]}}}",
             "linux.seccomp.syscalls[0]: expected an object"},
            {"{\"linux\":{\"seccomp\":{\"defaultAction\":\"SCMP_ACT_ERRNO\",\"syscalls\":[{\"action\":"
             "\"SCMP_ACT_ALLOW\"}]}}}",
             "linux.seccomp.syscalls[0].names: expected an array of syscall names"},
            {"{\"linux\":{\"seccomp\":{\"defaultAction\":\"SCMP_ACT_ERRNO\",\"syscalls\":[{\"names\":[\"read\"],"
             "\"action\":\"SCMP_ACT_ALLOW\"},{\"names\":[\"mbind\",2],\"action\":\"SCMP_ACT_ALLOW\"}]}}}",
             "linux.seccomp.syscalls[1].names[1]: expected a syscall name"},
            {"{\"linux\":{\"seccomp\":{\"defaultAction\":\"SCMP_ACT_ERRNO\",\"syscalls\":[{\"names\":[\"read\"]}"
             "]}}}",
             "linux.seccomp.syscalls[0].action: expected an action string"},
            {"{\"linux\":{\"seccomp\":{\"defaultAction\":\"SCMP_ACT_ERRNO\",\"syscalls\":[{\"names\":[\"read\"],"
             "\"action\":\"SCMP_ACT_ALLOW\",\"args\":{}}]}}}",
             "linux.seccomp.syscalls[0].args: expected an array"},
            /* "name" (singular) is Docker's profile format, not OCI */
            {"{\"linux\":{\"seccomp\":{\"defaultAction\":\"SCMP_ACT_ERRNO\",\"syscalls\":[{\"name\":\"read\","
             "\"action\":\"SCMP_ACT_ALLOW\"}]}}}",
             "linux.seccomp.syscalls[0].names: expected an array of syscall names"},
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                _cleanup_json_ json_t *spec = parse(cases[i].spec);
                _cleanup_free_ char *before = json_dumps(spec, JSON_COMPACT | JSON_ENCODE_ANY);
                _cleanup_error_ struct ctk_error *err = NULL;
                bool changed = true;
                assert_int_equal(ctk_seccomp_numa_edit_spec(spec, &changed, &err), -1);
                assert_false(changed);
                assert_non_null(err);
                if (strncmp(err->msg, cases[i].message, strlen(cases[i].message)) != 0)
                        fail_msg("case %zu: got \"%s\", want \"%s...\"", i, err->msg, cases[i].message);
                _cleanup_free_ char *after = json_dumps(spec, JSON_COMPACT | JSON_ENCODE_ANY);
                assert_string_equal(after, before);
        }
}

static void unknown_architectures(void **state)
{
        (void)state;
        /* An architecture libseccomp does not know is skipped; names are
         * resolved on the others. */
        _cleanup_json_ json_t *mixed = parse("{\"linux\":{\"seccomp\":{\"defaultAction\":\"SCMP_ACT_ERRNO\","
                                             "\"architectures\":[\"SCMP_ARCH_VAX\",\"SCMP_ARCH_AARCH64\","
                                             "\"riscv64\"],\"syscalls\":[]}}}");
        edit_adds_one_rule(mixed);
        assert_numa_rule(last_rule(mixed), all_four);

        /* No listed architecture knows any name: nothing to add, no error. */
        _cleanup_json_ json_t *none = parse("{\"linux\":{\"seccomp\":{\"defaultAction\":\"SCMP_ACT_ERRNO\","
                                            "\"architectures\":[\"SCMP_ARCH_VAX\",\"SCMP_ARCH_\",\"SCMP_ARCH_NATIVE\"]}"
                                            "}}");
        edit_changes_nothing(none);
}

static void unknown_names_are_left_out(void **state)
{
        (void)state;
        _cleanup_json_ json_t *profile = parse("{\"defaultAction\":\"SCMP_ACT_ERRNO\",\"architectures\":["
                                               "\"SCMP_ARCH_X86_64\",\"SCMP_ARCH_X86\"]}");
        static const char *const names[] = {"no_such_syscall", "get_mempolicy", "arch_prctl", "set_thread_area", NULL};
        _cleanup_error_ struct ctk_error *err = NULL;
        bool changed = false;
        assert_int_equal(ctk_seccomp_allow_syscalls(profile, CTK_SECCOMP_OCI, "p", names, &changed, &err), 0);
        assert_true(changed);
        /* arch_prctl: x86_64 only; set_thread_area: both; no_such_syscall: none */
        static const char *const known[] = {"get_mempolicy", "arch_prctl", "set_thread_area", NULL};
        json_t *calls = json_object_get(profile, "syscalls");
        assert_numa_rule(json_array_get(calls, 0), known);

        static const char *const only_unknown[] = {"no_such_syscall", NULL};
        json_t *before = json_deep_copy(profile);
        changed = true;
        assert_int_equal(ctk_seccomp_allow_syscalls(profile, CTK_SECCOMP_OCI, "p", only_unknown, &changed, &err), 0);
        assert_false(changed);
        assert_true(json_equal(before, profile));
        json_decref(before);
}

static void docker_format_profile(void **state)
{
        (void)state;
        /* archMap instead of architectures, "name" (singular), empty filters
         * count as unconditional, a caps filter does not. */
        _cleanup_json_ json_t *profile =
            parse("{\"defaultAction\":\"SCMP_ACT_ERRNO\",\"defaultErrnoRet\":1,\"archMap\":[{\"architecture\":"
                  "\"SCMP_ARCH_X86_64\",\"subArchitectures\":[\"SCMP_ARCH_X86\",\"SCMP_ARCH_X32\"]},{\"architecture\":"
                  "\"SCMP_ARCH_RISCV64\",\"subArchitectures\":null}],\"syscalls\":["
                  "{\"name\":\"mbind\",\"action\":\"SCMP_ACT_ALLOW\",\"args\":[],\"includes\":{},\"excludes\":{}},"
                  "{\"names\":[\"get_mempolicy\"],\"action\":\"SCMP_ACT_ALLOW\",\"includes\":{\"caps\":[],"
                  "\"arches\":null,\"minKernel\":\"\"}},"
                  "{\"names\":[\"set_mempolicy\"],\"action\":\"SCMP_ACT_ALLOW\",\"includes\":{\"caps\":["
                  "\"CAP_SYS_NICE\"]}}]}");
        _cleanup_json_ json_t *before = json_deep_copy(profile);
        _cleanup_error_ struct ctk_error *err = NULL;
        bool changed = false;
        assert_int_equal(ctk_seccomp_numa_edit_docker_profile(profile, &changed, &err), 0);
        assert_true(changed);
        json_t *calls = json_object_get(profile, "syscalls");
        assert_int_equal(json_array_size(calls), 4);
        json_t *added = json_array_get(calls, 3);
        static const char *const rest[] = {"set_mempolicy", "set_mempolicy_home_node", NULL};
        assert_numa_rule(added, rest);
        assert_non_null(json_string_value(json_object_get(added, "comment")));
        assert_int_equal(json_array_remove(calls, 3), 0);
        assert_true(json_equal(before, profile));

        /* Malformed archMap: error, profile unchanged. */
        _cleanup_json_ json_t *bad = parse("{\"defaultAction\":\"SCMP_ACT_ERRNO\",\"archMap\":[{\"architecture\":"
                                           "\"SCMP_ARCH_X86_64\",\"subArchitectures\":\"SCMP_ARCH_X86\"}]}");
        _cleanup_json_ json_t *bad_copy = json_deep_copy(bad);
        _cleanup_error_ struct ctk_error *err2 = NULL;
        assert_int_equal(ctk_seccomp_numa_edit_docker_profile(bad, &changed, &err2), -1);
        assert_string_equal(err2->msg, "seccomp profile.archMap[0].subArchitectures: expected an array of "
                                       "architecture names");
        assert_true(json_equal(bad, bad_copy));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(docker_default_profile_gets_numa_rule),
            cmocka_unit_test(docker_sys_nice_profile_gets_only_the_missing_name),
            cmocka_unit_test(profile_without_rule),
            cmocka_unit_test(profile_with_rule_is_unchanged),
            cmocka_unit_test(partial_rule_adds_the_rest),
            cmocka_unit_test(conditional_rules_do_not_count),
            cmocka_unit_test(explicit_other_action_is_respected),
            cmocka_unit_test(permitting_defaults_are_unchanged),
            cmocka_unit_test(every_denying_default_gets_the_rule),
            cmocka_unit_test(no_profile_no_change),
            cmocka_unit_test(missing_syscalls_array_is_created),
            cmocka_unit_test(malformed_sections_fail_untouched),
            cmocka_unit_test(unknown_architectures),
            cmocka_unit_test(unknown_names_are_left_out),
            cmocka_unit_test(docker_format_profile),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
