/* GPU tracker under concurrency: many processes allocating and releasing at
 * once through one state directory (fork-based, like parallel container
 * creates). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>

#include "core/base/base.h"
#include "tracker_fixtures.h"
#include "tracker_proc_fixtures.h"

#define NCREATE  40
#define NWORKERS 10
#define NCYCLES  20 /* NWORKERS * NCYCLES = 200 allocate/release pairs */

static int setup(void **state)
{
        return fx_enabled_setup(state, 30000);
}

static int teardown(void **state)
{
        return fx_enabled_teardown(state);
}

struct outcome {
        int done;    /* 1 when the child reported */
        int granted; /* 1 granted, 0 refused */
        int code;
        size_t gpus[2];
        size_t ngpus;
        char msg[256];
};

static void make_all(struct fx *f, enum ctk_tracker_access a)
{
        struct ctk_tracker_access_result r = {0};
        assert_int_equal(ctk_tracker_set_access(f->t, &f->gpus, (size_t[]){0, 1, 2, 3}, 4, a, &r, NULL), 0);
        assert_int_equal(r.nchanged, 4);
        ctk_tracker_access_result_clear(&r);
}

static void id_of(char *buf, size_t n, const char *prefix, int i)
{
        /* 64 hex-like chars, unique per i: like docker ids. */
        snprintf(buf, n, "%s%04d%0*d", prefix, i, (int)(64 - strlen(prefix) - 4), i);
}

static void test_40_simultaneous_exclusive_creates(void **state)
{
        struct fx *f = *state;
        make_all(f, CTK_TRACKER_EXCLUSIVE);
        struct outcome *out = fx_shared(NCREATE * sizeof(*out));
        assert_non_null(out);
        int gate[2];
        assert_int_equal(pipe(gate), 0);
        pid_t pids[NCREATE];
        for (int i = 0; i < NCREATE; i++) {
                pids[i] = fork();
                assert_true(pids[i] >= 0);
                if (pids[i] > 0)
                        continue;
                close(gate[1]);
                char c;
                if (read(gate[0], &c, 1) != 0) /* released when the parent closes the pipe */
                        _exit(3);
                struct outcome *o = &out[i];
                o->gpus[0] = (size_t)i % 4;
                o->gpus[1] = (size_t)(i + 1) % 4;
                o->ngpus = i % 3 == 0 ? 2 : 1;
                char id[80];
                id_of(id, sizeof(id), "c", i);
                struct ctk_tracker_request req = {.container_id = id, .idx = o->gpus, .n = o->ngpus};
                struct ctk_error *err = NULL;
                bool tracked;
                int r = ctk_tracker_allocate(f->t, &f->gpus, &req, &tracked, &err);
                o->granted = r == 0 && tracked;
                o->code = err ? err->code : 0;
                snprintf(o->msg, sizeof(o->msg), "%s", err ? err->msg : "");
                o->done = 1;
                ctk_error_free(err);
                _exit(0);
        }
        close(gate[0]);
        close(gate[1]); /* go */
        for (int i = 0; i < NCREATE; i++)
                assert_true(fx_wait_ok(pids[i]));

        _cleanup_tracker_state_ struct ctk_tracker_state st = {0};
        assert_int_equal(ctk_tracker_status(f->t, &f->gpus, &st, NULL), 0);
        int granted = 0;
        for (size_t g = 0; g < 4; g++)
                assert_true(ctk_tracker_state_count_holders(&st, g) <= 1); /* never two holders of an exclusive GPU */
        for (int i = 0; i < NCREATE; i++) {
                struct outcome *o = &out[i];
                char id[80];
                id_of(id, sizeof(id), "c", i);
                assert_int_equal(o->done, 1);
                const struct ctk_tracker_container *c = ctk_tracker_state_find_container(&st, id);
                if (o->granted) {
                        granted++;
                        for (size_t k = 0; k < o->ngpus; k++) /* every granted container recorded */
                                assert_true(c != NULL && ctk_tracker_container_holds(c, o->gpus[k]));
                } else {
                        /* every refused one leaves no trace, and was refused for a real conflict: a
                         * GPU it asked for is held (nothing is released here) */
                        assert_null(c);
                        assert_int_equal(o->code, EBUSY);
                        assert_non_null(strstr(o->msg, "is exclusive and in use by container c"));
                        size_t held = 0;
                        for (size_t k = 0; k < o->ngpus; k++)
                                held += ctk_tracker_state_count_holders(&st, o->gpus[k]);
                        assert_true(held > 0);
                }
        }
        assert_true(granted >= 2 && granted <= 4); /* GPUs 0-3 go to distinct containers, each wants 1 or 2 */
        assert_int_equal(st.ncontainers, (size_t)granted);
        munmap(out, NCREATE * sizeof(*out));
}

/* What the workers of the interleaved test saw (shared memory). */
struct tally {
        int shared_granted; /* requests of shared GPUs only: all granted */
        int shared_refused;
        int exclusive_granted; /* requests with an exclusive GPU granted */
        int exclusive_refused; /* ... refused for a holder of one of them */
        int wrong;             /* anything the rules do not allow (a message in why) */
        char why[256];
};

static void tally_wrong(struct tally *t, const char *what, const char *id, const char *msg)
{
        if (__atomic_fetch_add(&t->wrong, 1, __ATOMIC_SEQ_CST) == 0)
                snprintf(t->why, sizeof(t->why), "%s: %s: %s", id, what, msg);
}

/* One worker's creates and deletes: GPUs 0 and 1 are shared, 2 and 3
 * exclusive.  A request of shared GPUs only is always granted; one with an
 * exclusive GPU is granted, or refused naming the container that holds one
 * of its exclusive GPUs; a granted container is tracked until it is
 * released (nobody else releases it). */
static void worker(struct fx *f, int w, struct tally *t)
{
        srand((unsigned)w * 7919u + 1);
        for (int c = 0; c < NCYCLES; c++) {
                char id[80];
                id_of(id, sizeof(id), "w", w * 1000 + c);
                size_t idx[3] = {(size_t)rand() % 4, (size_t)rand() % 4, (size_t)rand() % 2};
                bool exclusive = idx[0] >= 2 || idx[1] >= 2;
                struct ctk_tracker_request req = {.container_id = id, .idx = idx, .n = 3};
                struct ctk_error *err = NULL;
                bool tracked = false;
                int rc = ctk_tracker_allocate(f->t, &f->gpus, &req, &tracked, &err);
                if (rc == 0 && tracked) {
                        __atomic_add_fetch(exclusive ? &t->exclusive_granted : &t->shared_granted, 1, __ATOMIC_SEQ_CST);
                        if (!ctk_tracker_is_tracked(f->t, id))
                                tally_wrong(t, "granted but not tracked", id, "");
                } else if (!exclusive) {
                        __atomic_add_fetch(&t->shared_refused, 1, __ATOMIC_SEQ_CST);
                        tally_wrong(t, "shared GPUs refused", id, err != NULL ? err->msg : "not tracked");
                } else if (rc < 0 && err->code == EBUSY &&
                           (strstr(err->msg, "GPU 2 is exclusive and in use by container w") != NULL ||
                            strstr(err->msg, "GPU 3 is exclusive and in use by container w") != NULL)) {
                        __atomic_add_fetch(&t->exclusive_refused, 1, __ATOMIC_SEQ_CST);
                } else {
                        tally_wrong(t, "refused without a holder", id, err != NULL ? err->msg : "not tracked");
                }
                ctk_error_free(err);
                err = NULL;
                if (ctk_tracker_release(f->t, id, NULL, &err) < 0) {
                        tally_wrong(t, "release failed", id, err->msg);
                        ctk_error_free(err);
                }
        }
}

/* 200 creates and deletes interleaved across 10 processes, on a mix of
 * shared and exclusive GPUs, with a reader checking every state it sees:
 * every allocation is decided as the rules say, and the state ends empty. */
static void test_200_interleaved_creates_and_deletes(void **state)
{
        struct fx *f = *state;
        struct ctk_tracker_access_result r = {0};
        assert_int_equal(ctk_tracker_set_access(f->t, &f->gpus, (size_t[]){2, 3}, 2, CTK_TRACKER_EXCLUSIVE, &r, NULL),
                         0);
        ctk_tracker_access_result_clear(&r);
        int *stop = fx_shared(sizeof(int) * 2);
        struct tally *t = fx_shared(sizeof(*t));
        assert_non_null(stop);
        assert_non_null(t);
        pid_t reader = fork();
        if (reader == 0) {
                int checks = 0;
                while (!__atomic_load_n(&stop[0], __ATOMIC_SEQ_CST)) {
                        if (fx_state_invariants(f->t) != NULL)
                                _exit(1);
                        checks++;
                }
                stop[1] = checks;
                _exit(0);
        }
        pid_t pids[NWORKERS];
        for (int w = 0; w < NWORKERS; w++) {
                pids[w] = fork();
                if (pids[w] == 0) {
                        worker(f, w, t);
                        _exit(0);
                }
        }
        for (int w = 0; w < NWORKERS; w++)
                assert_true(fx_wait_ok(pids[w]));
        __atomic_store_n(&stop[0], 1, __ATOMIC_SEQ_CST);
        assert_true(fx_wait_ok(reader));
        assert_true(stop[1] > 0);
        if (t->wrong > 0)
                fail_msg("%d allocations against the rules, e.g. %s", t->wrong, t->why);
        assert_int_equal(t->shared_refused, 0);
        assert_true(t->shared_granted > 0); /* (the fixed seeds draw about 50) */
        assert_true(t->exclusive_granted > 0);
        assert_int_equal(t->shared_granted + t->exclusive_granted + t->exclusive_refused, NWORKERS * NCYCLES);

        _cleanup_tracker_state_ struct ctk_tracker_state st = {0};
        assert_int_equal(ctk_tracker_status(f->t, &f->gpus, &st, NULL), 0);
        for (size_t g = 0; g < 4; g++)
                assert_int_equal(ctk_tracker_state_count_holders(&st, g), 0);
        assert_int_equal(st.ncontainers, 0);
        munmap(stop, sizeof(int) * 2);
        munmap(t, sizeof(*t));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_setup_teardown(test_40_simultaneous_exclusive_creates, setup, teardown),
            cmocka_unit_test_setup_teardown(test_200_interleaved_creates_and_deletes, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
