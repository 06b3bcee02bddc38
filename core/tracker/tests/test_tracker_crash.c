/* GPU tracker crash safety: writers killed with SIGKILL at random points
 * never leave an unreadable or half-written state, and a killed lock holder
 * never leaves the lock taken. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>

#include "core/base/base.h"
#include "tracker_fixtures.h"
#include "tracker_proc_fixtures.h"

#define NUPDATES 500

static int setup(void **state)
{
        return fx_enabled_setup(state, 10000);
}

static int teardown(void **state)
{
        return fx_enabled_teardown(state);
}

/* One writer: allocates and releases containers, flips GPU 3 between
 * exclusive and shared; counts every committed update, and says so on
 * the pipe done. */
static void writer(struct fx *f, unsigned int seed, int *updates, int done)
{
        srand(seed);
        for (int k = 0;; k++) {
                char id[64];
                snprintf(id, sizeof(id), "w%u-%d", seed, k);
                size_t idx[2] = {(size_t)rand() % 4, (size_t)rand() % 3};
                struct ctk_tracker_request req = {.container_id = id, .idx = idx, .n = 2};
                bool tracked;
                int r;
                switch (k % 3) {
                case 0:
                        r = ctk_tracker_allocate(f->t, &f->gpus, &req, &tracked, NULL);
                        break;
                case 1: {
                        struct ctk_tracker_access_result res = {0};
                        r = ctk_tracker_set_access(f->t, &f->gpus, (size_t[]){3}, 1,
                                                   k % 2 ? CTK_TRACKER_EXCLUSIVE : CTK_TRACKER_SHARED, &res, NULL);
                        ctk_tracker_access_result_clear(&res);
                        break;
                }
                default:
                        snprintf(id, sizeof(id), "w%u-%d", seed, k - 2);
                        r = ctk_tracker_release(f->t, id, NULL, NULL);
                        break;
                }
                if (r == 0) {
                        __atomic_add_fetch(updates, 1, __ATOMIC_SEQ_CST);
                        if (write(done, "u", 1) != 1)
                                _exit(1);
                }
        }
}

static void test_sigkill_writers_never_tear_the_state(void **state)
{
        struct fx *f = *state;
        int *updates = fx_shared(sizeof(int));
        assert_non_null(updates);
        srand(12345);
        int kills = 0;
        while (__atomic_load_n(updates, __ATOMIC_SEQ_CST) < NUPDATES) {
                /* Two writers racing each other, both killed wherever they
                 * are once they have committed a random number of updates
                 * (1 to 8) between them. */
                int done[2];
                assert_int_equal(pipe(done), 0);
                pid_t w[2];
                for (int i = 0; i < 2; i++) {
                        w[i] = fork();
                        assert_true(w[i] >= 0);
                        if (w[i] == 0) {
                                close(done[0]);
                                writer(f, (unsigned)(kills * 2 + i + 1), updates, done[1]);
                                _exit(0);
                        }
                }
                close(done[1]);
                char buf[8];
                for (int n = 1 + rand() % 8, got; n > 0; n -= got)
                        assert_true((got = (int)read(done[0], buf, (size_t)n)) > 0);
                close(done[0]);
                for (int i = 0; i < 2; i++) {
                        kill(w[i], SIGKILL);
                        waitpid(w[i], NULL, 0);
                }
                kills++;
                /* The state is whole ... */
                const char *bad = fx_state_invariants(f->t);
                if (bad != NULL)
                        fail_msg("after kill %d (%d updates): %s", kills, *updates, bad);
                /* ... and the lock is free again. */
                struct ctk_error *err = NULL;
                int fd = ctk_flock_acquire(f->t->paths.lock, 1000, &err);
                if (fd < 0)
                        fail_msg("after kill %d: %s", kills, err->msg);
                ctk_flock_release(fd);
        }
        assert_true(kills >= 2);
        /* Every operation still works on what the writers left. */
        _cleanup_tracker_state_ struct ctk_tracker_state st = {0};
        assert_int_equal(ctk_tracker_status(f->t, &f->gpus, &st, NULL), 0);
        for (size_t c = 0; c < st.ncontainers; c++)
                assert_int_equal(ctk_tracker_release(f->t, st.containers[c].id, NULL, NULL), 0);
        _cleanup_tracker_state_ struct ctk_tracker_state empty = {0};
        assert_int_equal(ctk_tracker_status(f->t, &f->gpus, &empty, NULL), 0);
        assert_int_equal(empty.ncontainers, 0);
        /* The temporaries of killed writers were removed by later writes. */
        DIR *d = opendir(f->dir);
        assert_non_null(d);
        struct dirent *e;
        while ((e = readdir(d)) != NULL)
                if (e->d_name[0] != '.' || (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0))
                        if (strcmp(e->d_name, "gpu-tracker.json") != 0 && strcmp(e->d_name, "gpu-tracker.lock") != 0 &&
                            strcmp(e->d_name, "gpu-tracker.enabled") != 0)
                                fail_msg("unexpected file %s in the state directory", e->d_name);
        closedir(d);
        munmap(updates, sizeof(int));
}

/* A holder killed while it holds the lock (mid read-modify-write). */
static void test_killed_lock_holder_never_deadlocks(void **state)
{
        struct fx *f = *state;
        for (int round = 0; round < 20; round++) {
                int p[2];
                assert_int_equal(pipe(p), 0);
                pid_t child = fork();
                if (child == 0) {
                        int fd = ctk_flock_acquire(f->t->paths.lock, 1000, NULL);
                        if (fd < 0 || write(p[1], "x", 1) != 1)
                                _exit(1);
                        for (;;)
                                pause();
                }
                char c;
                assert_int_equal(read(p[0], &c, 1), 1);
                kill(child, SIGKILL);
                waitpid(child, NULL, 0);
                close(p[0]);
                close(p[1]);
                struct ctk_error *err = NULL;
                int fd = ctk_flock_acquire(f->t->paths.lock, 1000, &err);
                if (fd < 0)
                        fail_msg("round %d: %s", round, err->msg);
                ctk_flock_release(fd);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_setup_teardown(test_sigkill_writers_never_tear_the_state, setup, teardown),
            cmocka_unit_test_setup_teardown(test_killed_lock_holder_never_deadlocks, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
