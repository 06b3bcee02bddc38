/* Reconciliation: allocations of containers that no longer exist in the
 * low-level runtime's state directory, and of an earlier boot, are dropped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "core/base/base.h"
#include "core/tracker/alloc.h"
#include "core/tracker/reconcile.h"
#include "tracker_fixtures.h"

struct fx {
        char *dir;  /* temp dir */
        char *root; /* fake runc --root */
        struct ctk_tracker_state st;
};

/* This program's stat() is the C library's, except that a stat of
 * race_path first lets race_step() run once: the world changes right after
 * the path was looked at. */
static const char *race_path;
static void (*race_step)(void);

int stat(const char *restrict path, struct stat *restrict st)
{
        int r = fstatat(AT_FDCWD, path, st, 0);
        if (race_path != NULL && strcmp(path, race_path) == 0) {
                race_path = NULL;
                race_step();
        }
        return r;
}

static int setup(void **state)
{
        struct fx *f = calloc(1, sizeof(*f));
        f->dir = fx_tmpdir();
        f->root = scratch_path(f->dir, "runc");
        mkdir(f->root, 0700);
        struct ctk_gpu_list gpus = {0};
        fx_gpus(&gpus, 4);
        int r = ctk_tracker_state_init(&f->st, &gpus, true, "boot-1", NULL);
        ctk_gpu_list_clear(&gpus);
        *state = f;
        return r;
}

static int teardown(void **state)
{
        struct fx *f = *state;
        ctk_tracker_state_clear(&f->st);
        free(f->root);
        fx_rmtree(f->dir);
        free(f);
        return 0;
}

/* Makes <root>/<id>/<file> exist, like runc (state.json) or crun (status). */
static void runtime_has(struct fx *f, const char *id, const char *file)
{
        _cleanup_free_ char *d = scratch_path(f->root, id);
        mkdir(d, 0700);
        _cleanup_free_ char *p = scratch_path(d, file);
        assert_int_equal(fx_write(p, "{}"), 0);
}

static void track(struct fx *f, const char *id, const char *root, pid_t pid, unsigned long long start, size_t gpu)
{
        struct ctk_tracker_container who = {
            .id = (char *)id, .runtime_root = (char *)root, .pid = pid, .pid_start = start};
        bool changed;
        assert_int_equal(ctk_tracker_state_alloc(&f->st, &who, &gpu, 1, &changed, NULL), 0);
}

/* Tracks container id on gpu, created by a new child process that waits
 * (to be killed); returns the child's pid. */
static pid_t track_child(struct fx *f, const char *id, size_t gpu)
{
        pid_t child = fork();
        if (child == 0) {
                pause();
                _exit(0);
        }
        unsigned long long start;
        assert_int_equal(ctk_proc_start_time("/proc", child, &start), 0);
        track(f, id, f->root, child, start, gpu);
        return child;
}

static pid_t dead_pid(void)
{
        pid_t p = fork();
        if (p == 0)
                _exit(0);
        waitpid(p, NULL, 0);
        return p;
}

static void test_proc_start_time(void **state)
{
        (void)state;
        unsigned long long a, b;
        assert_int_equal(ctk_proc_start_time("/proc", getpid(), &a), 0);
        assert_int_equal(ctk_proc_start_time("/proc", getpid(), &b), 0);
        assert_true(a == b);
        assert_int_equal(ctk_proc_start_time("/proc", dead_pid(), &a), -1);
        assert_int_equal(ctk_proc_start_time("/proc", 0, &a), -1);

        /* A comm with spaces and parentheses; a zombie is not running. */
        char *dir = fx_tmpdir();
        _cleanup_free_ char *pd = scratch_path(dir, "77");
        mkdir(pd, 0700);
        _cleanup_free_ char *stat = scratch_path(pd, "stat");
        fx_write(stat, "77 (a) b (c) S 1 77 77 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 1 0 98765 0 0\n");
        assert_int_equal(ctk_proc_start_time(dir, 77, &a), 0);
        assert_true(a == 98765);
        fx_write(stat, "77 (x) Z 1 77 77 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 1 0 98765 0 0\n");
        assert_int_equal(ctk_proc_start_time(dir, 77, &a), -1);
        fx_write(stat, "77 (x) S 1 77\n");
        assert_int_equal(ctk_proc_start_time(dir, 77, &a), -1);
        fx_rmtree(dir);
}

static void test_creator_running(void **state)
{
        (void)state;
        unsigned long long start;
        assert_int_equal(ctk_proc_start_time("/proc", getpid(), &start), 0);
        struct ctk_tracker_container c = {.id = (char *)"c", .pid = getpid(), .pid_start = start};
        assert_true(ctk_tracker_creator_running(&c, "/proc"));
        c.pid_start = 0; /* start time unknown: the pid alone */
        assert_true(ctk_tracker_creator_running(&c, "/proc"));
        c.pid_start = start + 1; /* the pid was reused */
        assert_false(ctk_tracker_creator_running(&c, "/proc"));
        c.pid = dead_pid();
        c.pid_start = 0;
        assert_false(ctk_tracker_creator_running(&c, "/proc"));
        c.pid = 0;
        assert_false(ctk_tracker_creator_running(&c, "/proc"));
}

static void test_drops_containers_gone_from_runtime_root(void **state)
{
        struct fx *f = *state;
        pid_t gone = dead_pid();
        track(f, "alive-runc", f->root, gone, 1, 0);
        track(f, "alive-crun", f->root, gone, 1, 1);
        track(f, "deleted", f->root, gone, 1, 1);
        track(f, "no-root", NULL, gone, 1, 2);
        runtime_has(f, "alive-runc", "state.json");
        runtime_has(f, "alive-crun", "status");
        /* A directory without state (runc removed the state) counts as gone. */
        _cleanup_free_ char *d = scratch_path(f->root, "deleted");
        mkdir(d, 0700);

        /* Only the holders of GPUs of interest are looked at. */
        bool interest[4] = {true, false, false, false};
        assert_int_equal(ctk_tracker_reconcile(&f->st, "/proc", interest), 0);
        assert_int_equal(f->st.ncontainers, 4);
        assert_int_equal(ctk_tracker_reconcile(&f->st, "/proc", NULL), 1);
        assert_int_equal(ctk_tracker_state_count_holders(&f->st, 1), 1);
        assert_string_equal(fx_holder(&f->st, 1, 0), "alive-crun");
        assert_int_equal(ctk_tracker_state_count_holders(&f->st, 0), 1);
        assert_int_equal(ctk_tracker_state_count_holders(&f->st, 2), 1); /* unknown root: kept */
        assert_null(ctk_tracker_state_find_container(&f->st, "deleted"));
        assert_int_equal(f->st.ncontainers, 3);
        assert_int_equal(ctk_tracker_reconcile(&f->st, "/proc", NULL), 0);
}

/* A runtime root that no longer exists (e.g. /run after a reboot without a
 * boot id) means its containers are gone. */
static void test_missing_root_means_gone(void **state)
{
        struct fx *f = *state;
        _cleanup_free_ char *nowhere = scratch_path(f->dir, "no-such-root");
        track(f, "c1", nowhere, 0, 0, 3);
        assert_int_equal(ctk_tracker_reconcile(&f->st, "/proc", NULL), 1);
        assert_int_equal(ctk_tracker_state_count_holders(&f->st, 3), 0);
}

/* Between the allocation and runc writing state.json the creating process is
 * alive: the container is being created and must not be dropped.  Once that
 * process is gone (or its pid reused) without state, it is dropped. */
static void test_creating_container_is_kept(void **state)
{
        struct fx *f = *state;
        unsigned long long start;
        assert_int_equal(ctk_proc_start_time("/proc", getpid(), &start), 0);
        track(f, "creating", f->root, getpid(), start, 0);
        track(f, "reused-pid", f->root, getpid(), start + 1, 1);
        pid_t child = track_child(f, "child", 2);

        assert_int_equal(ctk_tracker_reconcile(&f->st, "/proc", NULL), 1);
        assert_non_null(ctk_tracker_state_find_container(&f->st, "creating"));
        assert_non_null(ctk_tracker_state_find_container(&f->st, "child"));
        assert_null(ctk_tracker_state_find_container(&f->st, "reused-pid"));

        kill(child, SIGKILL);
        waitpid(child, NULL, 0);
        assert_int_equal(ctk_tracker_reconcile(&f->st, "/proc", NULL), 1);
        assert_null(ctk_tracker_state_find_container(&f->st, "child"));
        assert_int_equal(ctk_tracker_state_count_holders(&f->st, 2), 0);
}

/* runc writes state.json and exits while the container is looked at: it
 * exists all along, whichever of the two is looked at first. */
static char *race_state;
static pid_t race_creator;

static void creator_finishes(void)
{
        assert_int_equal(fx_write(race_state, "{}"), 0);
        kill(race_creator, SIGKILL);
        waitpid(race_creator, NULL, 0);
}

static void test_creator_exiting_meanwhile_is_kept(void **state)
{
        struct fx *f = *state;
        _cleanup_free_ char *d = scratch_path(f->root, "racing");
        mkdir(d, 0700);
        race_state = scratch_path(d, "state.json");
        race_creator = track_child(f, "racing", 0);

        /* Should the state file be looked at, it appears right after, as the
         * creator exits. */
        race_step = creator_finishes;
        race_path = race_state;
        assert_int_equal(ctk_tracker_reconcile(&f->st, "/proc", NULL), 0);
        assert_non_null(ctk_tracker_state_find_container(&f->st, "racing"));
        /* (The creator was looked at first, found running: it finishes now.) */
        if (race_path != NULL)
                creator_finishes();
        race_path = NULL;
        assert_int_equal(ctk_tracker_reconcile(&f->st, "/proc", NULL), 0);
        assert_non_null(ctk_tracker_state_find_container(&f->st, "racing"));
        free(race_state);
}

static void test_boot_id_change_drops_allocations(void **state)
{
        struct fx *f = *state;
        track(f, "c1", NULL, 0, 0, 0);
        track(f, "c2", NULL, 0, 0, 1);
        f->st.gpus[1].access = CTK_TRACKER_EXCLUSIVE;
        bool changed;
        assert_int_equal(ctk_tracker_apply_boot_id(&f->st, "boot-1", &changed, NULL), 0);
        assert_false(changed);
        assert_int_equal(ctk_tracker_apply_boot_id(&f->st, NULL, &changed, NULL), 0);
        assert_false(changed);
        assert_int_equal(f->st.ncontainers, 2);

        assert_int_equal(ctk_tracker_apply_boot_id(&f->st, "boot-2", &changed, NULL), 0);
        assert_true(changed);
        assert_string_equal(f->st.boot_id, "boot-2");
        assert_int_equal(f->st.ncontainers, 0);
        assert_int_equal(f->st.gpus[1].access, CTK_TRACKER_EXCLUSIVE); /* policy survives a reboot */

        /* A state without a boot id (the Go toolkit's) just records it. */
        free(f->st.boot_id);
        f->st.boot_id = NULL;
        track(f, "c3", NULL, 0, 0, 0);
        assert_int_equal(ctk_tracker_apply_boot_id(&f->st, "boot-3", &changed, NULL), 0);
        assert_true(changed);
        assert_int_equal(f->st.ncontainers, 1);
}

static void test_read_boot_id(void **state)
{
        struct fx *f = *state;
        _cleanup_free_ char *p = scratch_path(f->dir, "boot_id");
        assert_null(ctk_read_boot_id(p));
        fx_write(p, "  1b2c3d4e-aaaa-bbbb-cccc-0123456789ab\n");
        _cleanup_free_ char *id = ctk_read_boot_id(p);
        assert_string_equal(id, "1b2c3d4e-aaaa-bbbb-cccc-0123456789ab");
        fx_write(p, "\n");
        assert_null(ctk_read_boot_id(p));
        _cleanup_free_ char *real = ctk_read_boot_id(CTK_BOOT_ID_PATH);
        assert_non_null(real);
        assert_int_equal(strlen(real), 36);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_proc_start_time),
            cmocka_unit_test(test_creator_running),
            cmocka_unit_test_setup_teardown(test_drops_containers_gone_from_runtime_root, setup, teardown),
            cmocka_unit_test_setup_teardown(test_missing_root_means_gone, setup, teardown),
            cmocka_unit_test_setup_teardown(test_creating_container_is_kept, setup, teardown),
            cmocka_unit_test_setup_teardown(test_creator_exiting_meanwhile_is_kept, setup, teardown),
            cmocka_unit_test_setup_teardown(test_boot_id_change_drops_allocations, setup, teardown),
            cmocka_unit_test_setup_teardown(test_read_boot_id, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
