/* Test oracle: compiles an OCI linux.seccomp object with libseccomp the way
 * runc does, loads it in a forked child and reports what a syscall returns
 * there.  Header-only (static functions) so any test binary can include it.
 *
 * The compilation follows runc's libcontainer/seccomp: seccomp_init with the
 * default action (ERRNO/TRACE return defaultErrnoRet/errnoRet, else EPERM),
 * seccomp_arch_add for every listed architecture, and for every rule whose
 * action differs from the default one seccomp_rule_add per name (names the
 * native architecture does not know are skipped), with the rule's argument
 * conditions in one rule, or one rule per condition when an argument index
 * repeats. */
#ifndef CTK_TESTS_SECCOMP_ORACLE_H
#define CTK_TESTS_SECCOMP_ORACLE_H

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define ORACLE_UNUSED __attribute__((unused))

static ORACLE_UNUSED __attribute__((format(printf, 2, 3))) int oracle_fail(char **why, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        if (why != NULL && vasprintf(why, fmt, ap) < 0)
                *why = NULL;
        va_end(ap);
        return -1;
}
#ifdef __clang_analyzer__
/* clang-tidy's analyzer does not follow a variadic call: told its result */
#define oracle_fail(...) (oracle_fail(__VA_ARGS__), -1)
#endif

static ORACLE_UNUSED int oracle_action(const json_t *action, const json_t *errno_ret, uint32_t *out, char **why)
{
        const char *s = json_string_value(action);
        if (s == NULL)
                return oracle_fail(why, "action is not a string");
        uint32_t ret = json_is_integer(errno_ret) ? (uint32_t)json_integer_value(errno_ret) : EPERM;
        if (strcmp(s, "SCMP_ACT_KILL") == 0 || strcmp(s, "SCMP_ACT_KILL_THREAD") == 0)
                *out = SCMP_ACT_KILL_THREAD;
        else if (strcmp(s, "SCMP_ACT_KILL_PROCESS") == 0)
                *out = SCMP_ACT_KILL_PROCESS;
        else if (strcmp(s, "SCMP_ACT_TRAP") == 0)
                *out = SCMP_ACT_TRAP;
        else if (strcmp(s, "SCMP_ACT_ERRNO") == 0)
                *out = SCMP_ACT_ERRNO(ret);
        else if (strcmp(s, "SCMP_ACT_TRACE") == 0)
                *out = SCMP_ACT_TRACE(ret);
        else if (strcmp(s, "SCMP_ACT_ALLOW") == 0)
                *out = SCMP_ACT_ALLOW;
        else if (strcmp(s, "SCMP_ACT_LOG") == 0)
                *out = SCMP_ACT_LOG;
        else if (strcmp(s, "SCMP_ACT_NOTIFY") == 0)
                *out = SCMP_ACT_NOTIFY;
        else
                return oracle_fail(why, "unknown action %s", s);
        return 0;
}

static ORACLE_UNUSED int oracle_op(const char *s, enum scmp_compare *out)
{
        static const struct {
                const char *name;
                enum scmp_compare op;
        } ops[] = {{"SCMP_CMP_NE", SCMP_CMP_NE},
                   {"SCMP_CMP_LT", SCMP_CMP_LT},
                   {"SCMP_CMP_LE", SCMP_CMP_LE},
                   {"SCMP_CMP_EQ", SCMP_CMP_EQ},
                   {"SCMP_CMP_GE", SCMP_CMP_GE},
                   {"SCMP_CMP_GT", SCMP_CMP_GT},
                   {"SCMP_CMP_MASKED_EQ", SCMP_CMP_MASKED_EQ}};
        for (size_t i = 0; s != NULL && i < sizeof(ops) / sizeof(ops[0]); i++) {
                if (strcmp(s, ops[i].name) == 0) {
                        *out = ops[i].op;
                        return 0;
                }
        }
        return -1;
}

static ORACLE_UNUSED int oracle_add_rule(scmp_filter_ctx ctx, uint32_t act, int nr, const json_t *args, char **why)
{
        struct scmp_arg_cmp cmp[6];
        unsigned count[6] = {0};
        size_t n = json_array_size(args);
        if (n > 6)
                return oracle_fail(why, "more than 6 conditions");
        for (size_t i = 0; i < n; i++) {
                const json_t *a = json_array_get(args, i);
                json_int_t idx = json_integer_value(json_object_get(a, "index"));
                enum scmp_compare op;
                if (idx < 0 || idx > 5 || oracle_op(json_string_value(json_object_get(a, "op")), &op) < 0)
                        return oracle_fail(why, "bad argument condition");
                count[idx]++;
                cmp[i] =
                    (struct scmp_arg_cmp){.arg = (unsigned)idx,
                                          .op = op,
                                          .datum_a = (scmp_datum_t)json_integer_value(json_object_get(a, "value")),
                                          .datum_b = (scmp_datum_t)json_integer_value(json_object_get(a, "valueTwo"))};
        }
        bool repeated = false;
        for (int i = 0; i < 6; i++)
                repeated = repeated || count[i] > 1;
        int r = 0;
        if (repeated) {
                for (size_t i = 0; i < n && r == 0; i++)
                        r = seccomp_rule_add_array(ctx, act, nr, 1, &cmp[i]);
        } else {
                r = seccomp_rule_add_array(ctx, act, nr, (unsigned)n, cmp);
        }
        if (r < 0)
                return oracle_fail(why, "seccomp_rule_add: %s", strerror(-r));
        return 0;
}

/* Compiles `seccomp` (an OCI linux.seccomp object).  Returns 0 and a filter
 * context (release with seccomp_release), or -1 and a message in *why. */
static ORACLE_UNUSED int oracle_compile(const json_t *seccomp, scmp_filter_ctx *out, char **why)
{
        uint32_t def;
        if (oracle_action(json_object_get(seccomp, "defaultAction"), json_object_get(seccomp, "defaultErrnoRet"), &def,
                          why) < 0)
                return -1;
        scmp_filter_ctx ctx = seccomp_init(def);
        if (ctx == NULL)
                return oracle_fail(why, "seccomp_init failed");
        size_t i;
        const json_t *v;
        json_array_foreach(json_object_get(seccomp, "architectures"), i, v)
        {
                const char *name = json_string_value(v);
                char lower[64] = "";
                if (name == NULL || strncmp(name, "SCMP_ARCH_", 10) != 0 || strlen(name + 10) >= sizeof(lower))
                        goto bad_arch;
                for (size_t k = 0; name[10 + k] != '\0'; k++)
                        lower[k] = (char)tolower((unsigned char)name[10 + k]);
                uint32_t arch = seccomp_arch_resolve_name(lower);
                if (arch == 0)
                        goto bad_arch;
                int r = seccomp_arch_add(ctx, arch);
                if (r < 0 && r != -EEXIST) {
                        seccomp_release(ctx);
                        return oracle_fail(why, "seccomp_arch_add %s failed", name);
                }
                continue;
        bad_arch:
                seccomp_release(ctx);
                return oracle_fail(why, "unknown architecture %s", name != NULL ? name : "(not a string)");
        }
        const json_t *rule;
        json_array_foreach(json_object_get(seccomp, "syscalls"), i, rule)
        {
                uint32_t act;
                if (oracle_action(json_object_get(rule, "action"), json_object_get(rule, "errnoRet"), &act, why) < 0) {
                        seccomp_release(ctx);
                        return -1;
                }
                if (act == def)
                        continue; /* libseccomp refuses rules equal to the default; runc skips them */
                size_t k;
                const json_t *name;
                json_array_foreach(json_object_get(rule, "names"), k, name)
                {
                        int nr = seccomp_syscall_resolve_name(json_string_value(name));
                        if (nr == __NR_SCMP_ERROR)
                                continue;
                        if (oracle_add_rule(ctx, act, nr, json_object_get(rule, "args"), why) < 0) {
                                seccomp_release(ctx);
                                return -1;
                        }
                }
        }
        *out = ctx;
        return 0;
}

/* Harmless arguments for the syscalls the tests probe. */
static ORACLE_UNUSED long oracle_invoke(const char *name)
{
        int nr = seccomp_syscall_resolve_name(name);
        if (strcmp(name, "unshare") == 0)
                return syscall(nr, CLONE_NEWNS);
        /* get_mempolicy(NULL, NULL, 0, 0, 0), set_mempolicy(MPOL_DEFAULT, NULL, 0),
         * mbind(NULL, 0, MPOL_DEFAULT, NULL, 0, 0), set_mempolicy_home_node(0, 0, 0, 0),
         * mount(NULL, NULL, NULL, 0, NULL) (EFAULT when allowed), getpid() */
        return syscall(nr, 0L, 0L, 0L, 0L, 0L, 0L);
}

/* Runs syscall `name` in a child, under `ctx` when not NULL.  Returns 0 when
 * the call succeeded, its errno when it failed, -signo when the child was
 * killed, or -1000 when the child could not be run. */
static ORACLE_UNUSED int oracle_call(scmp_filter_ctx ctx, const char *name)
{
        int fds[2];
        if (pipe2(fds, O_CLOEXEC) < 0)
                return -1000;
        pid_t pid = fork();
        if (pid < 0) {
                close(fds[0]);
                close(fds[1]);
                return -1000;
        }
        if (pid == 0) {
                close(fds[0]);
                /* The test framework's handlers (inherited) must not catch
                 * the SIGSYS of SCMP_ACT_TRAP. */
                signal(SIGSYS, SIG_DFL);
                if (ctx != NULL && seccomp_load(ctx) < 0)
                        _exit(100);
                errno = 0;
                long r = oracle_invoke(name);
                int result = r < 0 ? errno : 0;
                ssize_t w = write(fds[1], &result, sizeof(result));
                _exit(w == sizeof(result) ? 0 : 101);
        }
        close(fds[1]);
        int result = -1000;
        ssize_t n = read(fds[0], &result, sizeof(result));
        close(fds[0]);
        int status;
        if (waitpid(pid, &status, 0) < 0)
                return -1000;
        if (WIFSIGNALED(status))
                return -WTERMSIG(status);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || n != sizeof(result))
                return -1000;
        return result;
}

#endif
