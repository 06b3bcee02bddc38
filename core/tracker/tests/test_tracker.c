/* GPU tracker operations on a state directory: initialization, enable,
 * disable, reset, status, allocation and release through the state file,
 * corrupt files, reboots, topology changes and the lock. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "core/base/base.h"
#include "core/tracker/tracker.h"
#include "tracker_fixtures.h"

#define ID_A "36b012bb34c96149a6ef5b28623e6e75cf9f71eb2b824b2c8f44e0449c7a1aa8"
#define ID_B "90cb29e11e83aa3ae497c68c90e1f0894b85262188c1ef9c7284457a9bc35ffd"

struct fx {
        char *dir;
        char *state_dir; /* dir/state (not created: the tracker creates it) */
        char *boot;      /* dir/boot_id */
        struct ctk_gpu_list gpus;
        struct ctk_tracker *t;
};

static int setup(void **state)
{
        struct fx *f = calloc(1, sizeof(*f));
        f->dir = fx_tmpdir();
        f->state_dir = scratch_path(f->dir, "state");
        f->boot = scratch_path(f->dir, "boot_id");
        fx_write(f->boot, "boot-1\n");
        fx_gpus(&f->gpus, 4);
        struct ctk_tracker_opts o = {.state_dir = f->state_dir, .boot_id_path = f->boot, .lock_timeout_ms = 2000};
        *state = f;
        return ctk_tracker_new(&o, &f->t, NULL);
}

static int teardown(void **state)
{
        struct fx *f = *state;
        ctk_tracker_free(f->t);
        ctk_gpu_list_clear(&f->gpus);
        free(f->state_dir);
        free(f->boot);
        fx_rmtree(f->dir);
        free(f);
        return 0;
}

static char *read_state(struct fx *f)
{
        char *text = NULL;
        if (ctk_file_read_all(f->t->paths.state, &text, NULL, NULL) < 0)
                return NULL;
        return text;
}

static int allocate(struct fx *f, const char *id, const size_t *idx, size_t n, bool *tracked, char **msg, int *code)
{
        struct ctk_tracker_request req = {.container_id = id, .idx = idx, .n = n};
        struct ctk_error *err = NULL;
        bool t;
        int r = ctk_tracker_allocate(f->t, &f->gpus, &req, tracked ? tracked : &t, &err);
        if (msg != NULL)
                *msg = err ? strdup(err->msg) : NULL;
        if (code != NULL)
                *code = err ? err->code : 0;
        ctk_error_free(err);
        return r;
}

static void enable(struct fx *f)
{
        bool changed;
        assert_int_equal(ctk_tracker_enable(f->t, &f->gpus, &changed, NULL), 0);
}

static void status(struct fx *f, struct ctk_tracker_state *st)
{
        struct ctk_error *err = NULL;
        if (ctk_tracker_status(f->t, &f->gpus, st, &err) < 0)
                fail_msg("status: %s", err->msg);
}

static void test_disabled_until_enabled(void **state)
{
        struct fx *f = *state;
        bool tracked = true, enabled = true;
        /* A container before anything was initialized: nothing touched. */
        assert_int_equal(allocate(f, ID_A, (size_t[]){0}, 1, &tracked, NULL, NULL), 0);
        assert_false(tracked);
        assert_int_equal(access(f->state_dir, F_OK), -1);
        assert_int_equal(ctk_tracker_release(f->t, ID_A, NULL, NULL), 0);
        assert_int_equal(ctk_tracker_is_enabled(f->t, &enabled, NULL), 0);
        assert_false(enabled);

        /* status only reads: disabled, and still nothing written. */
        _cleanup_tracker_state_ struct ctk_tracker_state st = {0};
        status(f, &st);
        assert_false(st.enabled);
        assert_int_equal(access(f->state_dir, F_OK), -1);

        /* The first command that changes something initializes the state, disabled. */
        bool changed = true;
        assert_int_equal(ctk_tracker_disable(f->t, &changed, NULL), 0);
        assert_false(changed);
        _cleanup_free_ char *text = read_state(f);
        assert_non_null(text);
        assert_non_null(strstr(text, "\"enabled\":false"));
        assert_non_null(strstr(text, "\"bootId\":\"boot-1\""));
}

static void test_enable_disable(void **state)
{
        struct fx *f = *state;
        bool changed = false, enabled = false;
        assert_int_equal(ctk_tracker_enable(f->t, &f->gpus, &changed, NULL), 0);
        assert_true(changed);
        assert_int_equal(access(f->t->paths.enabled, F_OK), 0);
        assert_int_equal(ctk_tracker_is_enabled(f->t, &enabled, NULL), 0);
        assert_true(enabled);
        assert_int_equal(ctk_tracker_enable(f->t, &f->gpus, &changed, NULL), 0);
        assert_false(changed);

        _cleanup_tracker_state_ struct ctk_tracker_state st = {0};
        status(f, &st);
        assert_true(st.enabled);
        assert_int_equal(st.ngpus, 4);
        assert_int_equal(st.gpus[3].uuid, 0x12FE4F7FDAF06B9ULL);

        struct ctk_tracker_access_result r = {0};
        assert_int_equal(ctk_tracker_set_access(f->t, &f->gpus, (size_t[]){1, 2}, 2, CTK_TRACKER_EXCLUSIVE, &r, NULL),
                         0);
        assert_true(r.enabled);
        assert_int_equal(r.nchanged, 2);
        assert_int_equal(allocate(f, ID_A, (size_t[]){1}, 1, NULL, NULL, NULL), 0);

        assert_int_equal(ctk_tracker_disable(f->t, &changed, NULL), 0);
        assert_true(changed);
        assert_int_equal(access(f->t->paths.enabled, F_OK), -1);
        assert_int_equal(ctk_tracker_disable(f->t, &changed, NULL), 0);
        assert_false(changed);
        /* Disabled: exclusive/shared do nothing. */
        assert_int_equal(ctk_tracker_set_access(f->t, &f->gpus, (size_t[]){0}, 1, CTK_TRACKER_EXCLUSIVE, &r, NULL), 0);
        assert_false(r.enabled);

        /* Enabling again starts from scratch (documented). */
        assert_int_equal(ctk_tracker_enable(f->t, &f->gpus, &changed, NULL), 0);
        assert_true(changed);
        _cleanup_tracker_state_ struct ctk_tracker_state st2 = {0};
        status(f, &st2);
        assert_int_equal(st2.gpus[1].access, CTK_TRACKER_SHARED);
        assert_int_equal(st2.ncontainers, 0);
        ctk_tracker_access_result_clear(&r);
}

static void test_reset_keeps_enabled(void **state)
{
        struct fx *f = *state;
        enable(f);
        struct ctk_tracker_access_result r = {0};
        assert_int_equal(ctk_tracker_set_access(f->t, &f->gpus, (size_t[]){0}, 1, CTK_TRACKER_EXCLUSIVE, &r, NULL), 0);
        assert_int_equal(allocate(f, ID_A, (size_t[]){0, 1}, 2, NULL, NULL, NULL), 0);
        bool was = false;
        assert_int_equal(ctk_tracker_reset(f->t, &f->gpus, &was, NULL), 0);
        assert_true(was);
        _cleanup_tracker_state_ struct ctk_tracker_state st = {0};
        status(f, &st);
        assert_true(st.enabled);
        assert_int_equal(st.gpus[0].access, CTK_TRACKER_SHARED);
        assert_int_equal(st.ncontainers, 0);

        bool changed;
        assert_int_equal(ctk_tracker_disable(f->t, &changed, NULL), 0);
        assert_int_equal(ctk_tracker_reset(f->t, NULL, &was, NULL), 0);
        assert_false(was);
        assert_int_equal(access(f->t->paths.enabled, F_OK), -1);
        ctk_tracker_access_result_clear(&r);
}

static void test_refused_allocation_writes_nothing(void **state)
{
        struct fx *f = *state;
        enable(f);
        assert_int_equal(allocate(f, ID_B, (size_t[]){1, 3}, 2, NULL, NULL, NULL), 0);
        struct ctk_tracker_access_result r = {0};
        assert_int_equal(
            ctk_tracker_set_access(f->t, &f->gpus, (size_t[]){1, 2, 3}, 3, CTK_TRACKER_EXCLUSIVE, &r, NULL), 0);
        _cleanup_free_ char *before = read_state(f);
        struct stat st1, st2;
        assert_int_equal(stat(f->t->paths.state, &st1), 0);

        _cleanup_free_ char *msg = NULL;
        int code = 0;
        bool tracked = false;
        assert_int_equal(allocate(f, "d23ff3dce1839cbf", (size_t[]){0, 1, 2}, 3, &tracked, &msg, &code), -1);
        assert_false(tracked);
        assert_int_equal(code, EBUSY);
        assert_string_equal(msg, "GPU 1 is exclusive and in use by container 90cb29e11e83");
        _cleanup_free_ char *after = read_state(f);
        assert_string_equal(before, after);
        assert_int_equal(stat(f->t->paths.state, &st2), 0);
        assert_true(st1.st_ino == st2.st_ino); /* not even rewritten */

        assert_true(ctk_tracker_is_tracked(f->t, ID_B));
        assert_false(ctk_tracker_is_tracked(f->t, "d23ff3dce1839cbf"));
        /* Release is idempotent and removes the holder everywhere. */
        bool released = false;
        assert_int_equal(ctk_tracker_release(f->t, ID_B, &released, NULL), 0);
        assert_true(released);
        assert_int_equal(ctk_tracker_release(f->t, ID_B, &released, NULL), 0);
        assert_false(released);
        assert_false(ctk_tracker_is_tracked(f->t, ID_B));
        assert_int_equal(allocate(f, "d23ff3dce1839cbf", (size_t[]){0, 1, 2}, 3, NULL, NULL, NULL), 0);
        ctk_tracker_access_result_clear(&r);
}

static void corrupt(struct fx *f)
{
        assert_int_equal(fx_write(f->t->paths.state, "{\"enabled\":tr"), 0);
}

static void test_corrupt_state_disabled(void **state)
{
        struct fx *f = *state;
        bool changed;
        assert_int_equal(ctk_tracker_disable(f->t, &changed, NULL), 0);
        corrupt(f);
        /* Containers are never blocked by a disabled tracker. */
        bool tracked = true;
        assert_int_equal(allocate(f, ID_A, (size_t[]){0}, 1, &tracked, NULL, NULL), 0);
        assert_false(tracked);
        assert_int_equal(ctk_tracker_release(f->t, ID_A, NULL, NULL), 0);

        /* status says disabled (the marker says so) without reading the file;
         * disabling again, enabling and resetting replace it */
        _cleanup_tracker_state_ struct ctk_tracker_state st = {0};
        assert_int_equal(ctk_tracker_status(f->t, &f->gpus, &st, NULL), 0);
        assert_false(st.enabled);
        assert_int_equal(ctk_tracker_disable(f->t, &changed, NULL), 0);
        assert_false(changed);
        _cleanup_free_ char *text = read_state(f);
        assert_non_null(strstr(text, "\"enabled\":false"));
        corrupt(f);
        bool was = true;
        assert_int_equal(ctk_tracker_reset(f->t, &f->gpus, &was, NULL), 0);
        assert_false(was);
        _cleanup_tracker_state_ struct ctk_tracker_state st2 = {0};
        status(f, &st2);
        assert_false(st2.enabled);
        corrupt(f);
        assert_int_equal(ctk_tracker_enable(f->t, &f->gpus, &changed, NULL), 0);
        assert_true(changed);
}

static void test_corrupt_state_enabled(void **state)
{
        struct fx *f = *state;
        enable(f);
        corrupt(f);
        _cleanup_free_ char *msg = NULL;
        assert_int_equal(allocate(f, ID_A, (size_t[]){0}, 1, NULL, &msg, NULL), -1);
        assert_non_null(msg);
        assert_non_null(strstr(msg, "is corrupt"));
        assert_non_null(strstr(msg, "amd-ctk gpu-tracker reset"));
        /* still enabled (the marker says so); the commands that read it say
         * what is wrong and how to fix it, in one line */
        bool enabled = false, changed = true;
        assert_int_equal(ctk_tracker_is_enabled(f->t, &enabled, NULL), 0);
        assert_true(enabled);
        struct ctk_error *err = NULL;
        _cleanup_tracker_state_ struct ctk_tracker_state st = {0};
        assert_int_equal(ctk_tracker_status(f->t, &f->gpus, &st, &err), -1);
        _cleanup_free_ char *want = NULL;
        assert_true(asprintf(&want,
                             "GPU Tracker state %s is corrupt (line 1 column 13: invalid token near 'tr'); "
                             "run 'amd-ctk gpu-tracker reset' to start over",
                             f->t->paths.state) > 0);
        assert_string_equal(err->msg, want);
        assert_null(strchr(err->msg, '\n'));
        ctk_error_free(err);
        err = NULL;
        assert_int_equal(ctk_tracker_enable(f->t, &f->gpus, &changed, &err), -1);
        assert_string_equal(err->msg, want);
        ctk_error_free(err);
        bool was = false;
        assert_int_equal(ctk_tracker_reset(f->t, &f->gpus, &was, NULL), 0);
        assert_true(was);
        assert_int_equal(allocate(f, ID_A, (size_t[]){0}, 1, NULL, NULL, NULL), 0);

        /* An unreadable state (a directory in its place) is reported too. */
        unlink(f->t->paths.state);
        mkdir(f->t->paths.state, 0700);
        _cleanup_free_ char *msg2 = NULL;
        assert_int_equal(allocate(f, ID_B, (size_t[]){0}, 1, NULL, &msg2, NULL), -1);
        assert_non_null(msg2);
        assert_non_null(strstr(msg2, "cannot be read"));
        assert_non_null(strstr(msg2, f->t->paths.state));
        rmdir(f->t->paths.state);
}

/* Whether the tracker is enabled survives its state file being removed or
 * replaced: the marker says, and a missing state is made afresh for the
 * host's GPUs by the first command that has them. */
static void test_state_removed_or_replaced(void **state)
{
        struct fx *f = *state;
        enable(f);
        assert_int_equal(allocate(f, ID_A, (size_t[]){1}, 1, NULL, NULL, NULL), 0);
        assert_int_equal(unlink(f->t->paths.state), 0);
        bool enabled = false;
        assert_int_equal(ctk_tracker_is_enabled(f->t, &enabled, NULL), 0);
        assert_true(enabled);
        _cleanup_tracker_state_ struct ctk_tracker_state st = {0};
        status(f, &st);
        assert_true(st.enabled);
        assert_int_equal(st.ngpus, f->gpus.n);
        assert_int_equal(st.ncontainers, 0);
        /* an allocation makes it again, and exclusivity holds */
        struct ctk_tracker_access_result r = {0};
        assert_int_equal(ctk_tracker_set_access(f->t, &f->gpus, (size_t[]){1}, 1, CTK_TRACKER_EXCLUSIVE, &r, NULL), 0);
        assert_true(r.enabled);
        ctk_tracker_access_result_clear(&r);
        assert_int_equal(unlink(f->t->paths.state), 0);
        assert_int_equal(allocate(f, ID_A, (size_t[]){1}, 1, NULL, NULL, NULL), 0);
        _cleanup_free_ char *text = read_state(f);
        assert_non_null(strstr(text, "\"enabled\":true"));
        /* a state saying disabled, put in its place: the marker still says */
        assert_int_equal(fx_write(f->t->paths.state, "{\"version\":1,\"enabled\":false,\"bootId\":null,"
                                                     "\"gpus\":[],\"runtimeRoots\":[],\"containers\":[]}"),
                         0);
        assert_int_equal(ctk_tracker_is_enabled(f->t, &enabled, NULL), 0);
        assert_true(enabled);
        /* the fix the documents give for a state that is a link: remove it, reset */
        assert_int_equal(unlink(f->t->paths.state), 0);
        bool was = false;
        assert_int_equal(ctk_tracker_reset(f->t, &f->gpus, &was, NULL), 0);
        assert_true(was);
        _cleanup_tracker_state_ struct ctk_tracker_state st2 = {0};
        status(f, &st2);
        assert_true(st2.enabled);
}

static void test_reboot_drops_allocations(void **state)
{
        struct fx *f = *state;
        enable(f);
        struct ctk_tracker_access_result r = {0};
        assert_int_equal(ctk_tracker_set_access(f->t, &f->gpus, (size_t[]){2}, 1, CTK_TRACKER_EXCLUSIVE, &r, NULL), 0);
        assert_int_equal(allocate(f, ID_A, (size_t[]){0, 2}, 2, NULL, NULL, NULL), 0);
        fx_write(f->boot, "boot-2\n");
        /* The exclusive GPU held before the reboot is free again. */
        assert_int_equal(allocate(f, ID_B, (size_t[]){2}, 1, NULL, NULL, NULL), 0);
        _cleanup_tracker_state_ struct ctk_tracker_state st = {0};
        status(f, &st);
        assert_string_equal(st.boot_id, "boot-2");
        assert_int_equal(ctk_tracker_state_count_holders(&st, 0), 0);
        assert_int_equal(ctk_tracker_state_count_holders(&st, 2), 1);
        assert_string_equal(fx_holder(&st, 2, 0), ID_B);
        assert_int_equal(st.gpus[2].access, CTK_TRACKER_EXCLUSIVE);
        ctk_tracker_access_result_clear(&r);
}

static void test_topology_change(void **state)
{
        struct fx *f = *state;
        enable(f);
        assert_int_equal(allocate(f, ID_A, (size_t[]){0}, 1, NULL, NULL, NULL), 0);

        /* Card renumbering only: still valid. */
        free(f->gpus.v[0].drm.v[0]);
        f->gpus.v[0].drm.v[0] = strdup("/dev/dri/card7");
        _cleanup_tracker_state_ struct ctk_tracker_state ok = {0};
        status(f, &ok);

        /* Repartition of GPU 3 into two partitions: 5 GPUs. */
        ctk_gpu_list_clear(&f->gpus);
        fx_gpus(&f->gpus, 5);
        struct ctk_error *err = NULL;
        _cleanup_tracker_state_ struct ctk_tracker_state st = {0};
        assert_int_equal(ctk_tracker_status(f->t, &f->gpus, &st, &err), -1);
        assert_int_equal(err->code, ESTALE);
        assert_string_equal(err->msg, "GPUs info is invalid. Please reset GPU Tracker.");
        ctk_error_free(err);
        _cleanup_free_ char *msg = NULL;
        int code;
        assert_int_equal(allocate(f, ID_B, (size_t[]){4}, 1, NULL, &msg, &code), -1);
        assert_int_equal(code, ESTALE);
        assert_string_equal(msg, "GPUs info is invalid. Please reset GPU Tracker.");
        struct ctk_tracker_access_result r = {0};
        err = NULL;
        assert_int_equal(ctk_tracker_set_access(f->t, &f->gpus, (size_t[]){0}, 1, CTK_TRACKER_SHARED, &r, &err), -1);
        assert_int_equal(err->code, ESTALE);
        ctk_error_free(err);
        /* Release still works (a container being deleted). */
        assert_int_equal(ctk_tracker_release(f->t, ID_A, NULL, NULL), 0);

        bool was;
        assert_int_equal(ctk_tracker_reset(f->t, &f->gpus, &was, NULL), 0);
        assert_true(was);
        _cleanup_tracker_state_ struct ctk_tracker_state st2 = {0};
        status(f, &st2);
        assert_int_equal(st2.ngpus, 5);
        assert_int_equal(allocate(f, ID_B, (size_t[]){4}, 1, NULL, NULL, NULL), 0);
        ctk_tracker_access_result_clear(&r);
}

static void test_status_reconciles(void **state)
{
        struct fx *f = *state;
        enable(f);
        _cleanup_free_ char *root = scratch_path(f->dir, "runc");
        mkdir(root, 0700);
        pid_t child = fork();
        if (child == 0)
                _exit(0);
        waitpid(child, NULL, 0);
        struct ctk_tracker_request gone = {
            .container_id = ID_A, .idx = (size_t[]){0, 1}, .n = 2, .runtime_root = root, .pid = child};
        struct ctk_tracker_request live = {
            .container_id = ID_B, .idx = (size_t[]){1}, .n = 1, .runtime_root = root, .pid = child};
        bool tracked;
        assert_int_equal(ctk_tracker_allocate(f->t, &f->gpus, &gone, &tracked, NULL), 0);
        /* (The allocation above is dropped right away by the next one: its
         * creator is gone and runc has no state for it.) */
        _cleanup_free_ char *d = scratch_path(root, ID_B);
        mkdir(d, 0700);
        _cleanup_free_ char *sj = scratch_path(d, "state.json");
        fx_write(sj, "{}");
        assert_int_equal(ctk_tracker_allocate(f->t, &f->gpus, &live, &tracked, NULL), 0);
        _cleanup_tracker_state_ struct ctk_tracker_state st = {0};
        status(f, &st);
        assert_int_equal(ctk_tracker_state_count_holders(&st, 0), 0);
        assert_int_equal(ctk_tracker_state_count_holders(&st, 1), 1);
        assert_string_equal(fx_holder(&st, 1, 0), ID_B);
        assert_int_equal(st.ncontainers, 1);

        /* runc deleted it without the hook: status no longer shows it. */
        unlink(sj);
        _cleanup_tracker_state_ struct ctk_tracker_state st2 = {0};
        status(f, &st2);
        assert_int_equal(ctk_tracker_state_count_holders(&st2, 1), 0);
        _cleanup_free_ char *text = read_state(f);
        assert_non_null(strstr(text, ID_B)); /* status wrote nothing: making GPU 1 exclusive drops it */
        struct ctk_tracker_access_result r = {0};
        assert_int_equal(ctk_tracker_set_access(f->t, &f->gpus, (size_t[]){1}, 1, CTK_TRACKER_EXCLUSIVE, &r, NULL), 0);
        ctk_tracker_access_result_clear(&r);
        _cleanup_free_ char *after = read_state(f);
        assert_null(strstr(after, ID_B));
}

static void test_lock_bounded_wait(void **state)
{
        struct fx *f = *state;
        enable(f);
        int pipefd[2];
        assert_int_equal(pipe(pipefd), 0);
        pid_t child = fork();
        if (child == 0) {
                int fd = ctk_flock_acquire(f->t->paths.lock, 1000, NULL);
                char c = fd >= 0 ? 'y' : 'n';
                if (write(pipefd[1], &c, 1) != 1)
                        _exit(1);
                pause();
                _exit(0);
        }
        char c = 0;
        assert_int_equal(read(pipefd[0], &c, 1), 1);
        assert_int_equal(c, 'y');
        f->t->lock_timeout_ms = 300;
        struct ctk_error *err = NULL;
        bool tracked;
        struct ctk_tracker_request req = {.container_id = ID_A, .idx = (size_t[]){0}, .n = 1};
        assert_int_equal(ctk_tracker_allocate(f->t, &f->gpus, &req, &tracked, &err), -1);
        assert_int_equal(err->code, ETIMEDOUT);
        assert_non_null(strstr(err->msg, "timed out after 0.300 s waiting for the lock"));
        ctk_error_free(err);
        /* The holder is killed: the lock is free at once. */
        kill(child, SIGKILL);
        waitpid(child, NULL, 0);
        assert_int_equal(ctk_tracker_allocate(f->t, &f->gpus, &req, &tracked, NULL), 0);
        assert_true(tracked);
        close(pipefd[0]);
        close(pipefd[1]);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_setup_teardown(test_disabled_until_enabled, setup, teardown),
            cmocka_unit_test_setup_teardown(test_enable_disable, setup, teardown),
            cmocka_unit_test_setup_teardown(test_reset_keeps_enabled, setup, teardown),
            cmocka_unit_test_setup_teardown(test_refused_allocation_writes_nothing, setup, teardown),
            cmocka_unit_test_setup_teardown(test_corrupt_state_disabled, setup, teardown),
            cmocka_unit_test_setup_teardown(test_corrupt_state_enabled, setup, teardown),
            cmocka_unit_test_setup_teardown(test_state_removed_or_replaced, setup, teardown),
            cmocka_unit_test_setup_teardown(test_reboot_drops_allocations, setup, teardown),
            cmocka_unit_test_setup_teardown(test_topology_change, setup, teardown),
            cmocka_unit_test_setup_teardown(test_status_reconciles, setup, teardown),
            cmocka_unit_test_setup_teardown(test_lock_bounded_wait, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
