/* Unit tests of the launcher's reading of runc's state
 * (runtime/launcher/runc_state.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/cleanup.h"
#include "core/tests/scratch_dir.h"
#include "core/tracker_reconcile.h"
#include "runtime/launcher/runc_state.h"

/* The start of a state.json as runc 1.1 writes it (one line, Go's order). */
#define RUNC_STATE                                                                                                     \
        "{\"id\":\"c1\",\"init_process_pid\":4242,\"init_process_start\":123456,"                                      \
        "\"created\":\"2026-11-22T06:00:00.1Z\",\"config\":{\"no_pivot_root\":false,\"rootfs\":\"/b/rootfs\","         \
        "\"labels\":[\"bundle=/b\"],\"hooks\":{\"poststop\":[{\"path\":\"/x\",\"args\":[\"]}\",\"{\\\"\"]}]},"         \
        "\"init_process_pid\":7},\"rootless\":false,\"cgroup_paths\":{\"\":\"/sys/fs/cgroup/c1\"},"                    \
        "\"namespace_paths\":{\"NEWNS\":\"/proc/4242/ns/mnt\"},\"external_descriptors\":[\"/dev/null\"],"              \
        "\"intel_rdt_path\":\"\"}"

static int read_ok(const char *text, pid_t *pid, unsigned long long *start)
{
        return rt_runc_state_init_process(text, strlen(text), pid, start);
}

static void refused(const char *text)
{
        pid_t pid = 0;
        unsigned long long start = 0;
        if (read_ok(text, &pid, &start) == 0)
                fail_msg("read pid %d start %llu from: %s", (int)pid, start, text);
}

static void test_runc_state(void **state)
{
        (void)state;
        pid_t pid = 0;
        unsigned long long start = 0;
        assert_int_equal(read_ok(RUNC_STATE, &pid, &start), 0);
        assert_int_equal(pid, 4242); /* not config's nested member */
        assert_int_equal(start, 123456);
}

static void test_spellings(void **state)
{
        (void)state;
        pid_t pid = 0;
        unsigned long long start = 0;
        /* any order, whitespace, a repeated key (the last counts) */
        assert_int_equal(read_ok(" {\n  \"init_process_start\" : 18446744073709551615,\n"
                                 "  \"x\": [1, -2.5e3, true, null, {\"a\": \"\\\"init_process_pid\\\":1\"}],\n"
                                 "  \"init_process_pid\": 1, \"init_process_pid\": 2147483647\n}\n",
                                 &pid, &start),
                         0);
        assert_int_equal(pid, 2147483647);
        assert_true(start == 18446744073709551615ULL);
        assert_int_equal(read_ok("{\"init_process_pid\":1,\"init_process_start\":0}", &pid, &start), 0);
        assert_int_equal(pid, 1);
        assert_int_equal(start, 0);
}

static void test_refused(void **state)
{
        (void)state;
        refused("");
        refused("[]");
        refused("{}");
        refused("{\"init_process_pid\":1}");
        refused("{\"init_process_start\":1}");
        refused("{\"init_process_pid\":0,\"init_process_start\":1}");
        refused("{\"init_process_pid\":-1,\"init_process_start\":1}");
        refused("{\"init_process_pid\":2147483648,\"init_process_start\":1}");
        refused("{\"init_process_pid\":1,\"init_process_start\":18446744073709551616}");
        refused("{\"init_process_pid\":1.0,\"init_process_start\":1}");
        refused("{\"init_process_pid\":1e3,\"init_process_start\":1}");
        refused("{\"init_process_pid\":01,\"init_process_start\":1}");
        refused("{\"init_process_pid\":\"1\",\"init_process_start\":1}");
        refused("{\"init_process_pid\":null,\"init_process_start\":1}");
        refused("{\"init_process_pid\":1,\"init_process_start\":1"); /* cut */
        refused("{\"init_process_pid\":1,\"init_process_start\":1,}");
        refused("{\"init_process_pid\":1,\"init_process_start\":1} x");
        refused("{\"init_process_pid\":1,\"init_process_start\":1,\"a\":[1}");
        refused("{\"init_process_pid\":1,\"init_process_start\":1,\"a\":\"open}");
        refused("{\"init_process_pid\" 1,\"init_process_start\":1}");
        /* only at the top level */
        refused("{\"c\":{\"init_process_pid\":1,\"init_process_start\":1}}");
        /* every prefix of a real one */
        size_t n = strlen(RUNC_STATE);
        for (size_t i = 0; i < n; i++) {
                pid_t pid;
                unsigned long long start;
                if (rt_runc_state_init_process(RUNC_STATE, i, &pid, &start) == 0)
                        fail_msg("read a prefix of %zu bytes", i);
        }
}

/* A runc root with container "c" whose state.json names pid and start. */
struct fx {
        char dir[64];
        char *root;
};

static int setup(void **state)
{
        struct fx *f = calloc(1, sizeof(*f));
        strcpy(f->dir, "/tmp/rt-runc-state.XXXXXX");
        if (f == NULL || scratch_dir_make(f->dir) == NULL)
                return -1;
        f->root = scratch_path(f->dir, "root");
        *state = f;
        return mkdir(f->root, 0700);
}

static int teardown(void **state)
{
        struct fx *f = *state;
        int r = scratch_dir_remove(f->dir);
        free(f->root);
        free(f);
        return r;
}

static void write_state(struct fx *f, const char *text)
{
        _cleanup_free_ char *d = scratch_path(f->root, "c");
        mkdir(d, 0700);
        _cleanup_free_ char *p = scratch_path(d, "state.json");
        int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
        close(fd);
}

static void write_init(struct fx *f, pid_t pid, unsigned long long start)
{
        char text[128];
        snprintf(text, sizeof(text), "{\"id\":\"c\",\"init_process_pid\":%d,\"init_process_start\":%llu}", (int)pid,
                 start);
        write_state(f, text);
}

static void test_status(void **state)
{
        struct fx *f = *state;
        assert_int_equal(rt_runc_status(f->root, "c", "/proc"), RT_RUNC_GONE);
        _cleanup_free_ char *d = scratch_path(f->root, "c");
        assert_int_equal(mkdir(d, 0700), 0);
        assert_int_equal(rt_runc_status(f->root, "c", "/proc"), RT_RUNC_UNKNOWN); /* being created, or crun's */

        unsigned long long me;
        assert_int_equal(ctk_proc_start_time("/proc", getpid(), &me), 0);
        write_init(f, getpid(), me);
        assert_int_equal(rt_runc_status(f->root, "c", "/proc"), RT_RUNC_ACTIVE);
        write_init(f, getpid(), me + 1); /* the pid was reused */
        assert_int_equal(rt_runc_status(f->root, "c", "/proc"), RT_RUNC_STOPPED);

        /* a zombie has exited; then its pid is free */
        pid_t child = fork();
        assert_true(child >= 0);
        if (child == 0)
                _exit(0);
        siginfo_t si;
        assert_int_equal(waitid(P_PID, (id_t)child, &si, WEXITED | WNOWAIT), 0);
        write_init(f, child, 1);
        assert_int_equal(rt_runc_status(f->root, "c", "/proc"), RT_RUNC_STOPPED);
        assert_int_equal(waitpid(child, NULL, 0), child);
        assert_int_equal(rt_runc_status(f->root, "c", "/proc"), RT_RUNC_STOPPED);

        write_state(f, "{\"id\":\"c\",\"init_process_pid\":\"1\"}"); /* not runc's */
        assert_int_equal(rt_runc_status(f->root, "c", "/proc"), RT_RUNC_UNKNOWN);
        _cleanup_free_ char *p = scratch_path(d, "state.json");
        assert_int_equal(chmod(p, 0), 0);
        if (access(p, R_OK) < 0) /* (root reads it anyway) */
                assert_int_equal(rt_runc_status(f->root, "c", "/proc"), RT_RUNC_UNKNOWN);
        /* a root that cannot be searched */
        _cleanup_free_ char *file = scratch_path(f->dir, "file");
        close(open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
        assert_int_equal(rt_runc_status(file, "c", "/proc"), RT_RUNC_UNKNOWN);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_runc_state),
            cmocka_unit_test(test_spellings),
            cmocka_unit_test(test_refused),
            cmocka_unit_test_setup_teardown(test_status, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
