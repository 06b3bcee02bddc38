/* GPU tracker decisions on an in-memory state: all-or-nothing allocation,
 * exclusive conflicts, duplicates, shared holders, release, exclusivity. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>

#include "core/base/base.h"
#include "core/tracker/alloc.h"
#include "tracker_fixtures.h"

#define ID_A "36b012bb34c96149a6ef5b28623e6e75cf9f71eb2b824b2c8f44e0449c7a1aa8"
#define ID_B "90cb29e11e83aa3ae497c68c90e1f0894b85262188c1ef9c7284457a9bc35ffd"
#define ID_C "d23ff3dce1839cbf8ce7ad362641ab85e80b315c319edf73b269c460e348053a"

static int setup(void **state)
{
        struct ctk_tracker_state *st = calloc(1, sizeof(*st));
        struct ctk_gpu_list gpus = {0};
        fx_gpus(&gpus, 4);
        int r = ctk_tracker_state_init(st, &gpus, true, "boot", NULL);
        ctk_gpu_list_clear(&gpus);
        *state = st;
        return r;
}

static int teardown(void **state)
{
        ctk_tracker_state_clear(*state);
        free(*state);
        return 0;
}

static int alloc(struct ctk_tracker_state *st, const char *id, const size_t *idx, size_t n, char **msg)
{
        struct ctk_tracker_container who = {.id = (char *)id, .runtime_root = (char *)"/run/runc", .pid = 7};
        struct ctk_error *err = NULL;
        bool changed;
        int r = ctk_tracker_state_alloc(st, &who, idx, n, &changed, &err);
        if (msg != NULL)
                *msg = err ? strdup(err->msg) : NULL;
        if (r < 0) {
                assert_non_null(err);
                assert_int_equal(err->code == EBUSY || err->code == EINVAL, true);
        }
        ctk_error_free(err);
        return r;
}

static void assert_holders(const struct ctk_tracker_state *st, size_t gpu, const char *a, const char *b)
{
        assert_int_equal(ctk_tracker_state_count_holders(st, gpu), (a != NULL) + (b != NULL));
        if (a != NULL)
                assert_string_equal(fx_holder(st, gpu, 0), a);
        if (b != NULL)
                assert_string_equal(fx_holder(st, gpu, 1), b);
}

/* Section 4 of the documentation: two containers on shared GPUs. */
static void test_shared_multi_holders(void **state)
{
        struct ctk_tracker_state *st = *state;
        assert_int_equal(alloc(st, ID_A, (size_t[]){0, 1, 2}, 3, NULL), 0);
        assert_int_equal(alloc(st, ID_B, (size_t[]){1, 3}, 2, NULL), 0);
        assert_holders(st, 0, ID_A, NULL);
        assert_holders(st, 1, ID_A, ID_B);
        assert_holders(st, 2, ID_A, NULL);
        assert_holders(st, 3, ID_B, NULL);
        assert_int_equal(st->ncontainers, 2);
        assert_string_equal(ctk_tracker_state_find_container(st, ID_B)->runtime_root, "/run/runc");

        assert_true(ctk_tracker_state_release(st, ID_A));
        assert_holders(st, 0, NULL, NULL);
        assert_holders(st, 1, ID_B, NULL);
        assert_holders(st, 3, ID_B, NULL);
        assert_int_equal(st->ncontainers, 1);
        assert_false(ctk_tracker_state_release(st, ID_A));
}

/* Section 5: the conflicting container gets nothing, and the message names
 * the GPU and the short id of its holder. */
static void test_exclusive_conflict_all_or_nothing(void **state)
{
        struct ctk_tracker_state *st = *state;
        assert_int_equal(alloc(st, ID_B, (size_t[]){1, 3}, 2, NULL), 0);
        st->gpus[1].access = st->gpus[2].access = st->gpus[3].access = CTK_TRACKER_EXCLUSIVE;
        _cleanup_free_ char *before = ctk_tracker_state_format(st);

        _cleanup_free_ char *msg = NULL;
        assert_int_equal(alloc(st, ID_C, (size_t[]){0, 1, 2}, 3, &msg), -1);
        assert_string_equal(msg, "GPU 1 is exclusive and in use by container 90cb29e11e83");
        _cleanup_free_ char *after = ctk_tracker_state_format(st);
        assert_string_equal(before, after);

        /* Every refused GPU is named. */
        _cleanup_free_ char *msg2 = NULL;
        assert_int_equal(alloc(st, ID_C, (size_t[]){3, 2, 1}, 3, &msg2), -1);
        assert_string_equal(msg2, "GPU 1 is exclusive and in use by container 90cb29e11e83; "
                                  "GPU 3 is exclusive and in use by container 90cb29e11e83");

        /* An unused exclusive GPU is granted, and then it is taken. */
        assert_int_equal(alloc(st, ID_C, (size_t[]){0, 2}, 2, NULL), 0);
        assert_holders(st, 2, ID_C, NULL);
        _cleanup_free_ char *msg3 = NULL;
        assert_int_equal(alloc(st, ID_A, (size_t[]){2}, 1, &msg3), -1);
        assert_string_equal(msg3, "GPU 2 is exclusive and in use by container d23ff3dce183");
}

static void test_duplicates_count_once(void **state)
{
        struct ctk_tracker_state *st = *state;
        st->gpus[0].access = CTK_TRACKER_EXCLUSIVE;
        /* An exclusive GPU requested twice does not conflict with itself. */
        assert_int_equal(alloc(st, ID_A, (size_t[]){0, 0, 1, 1}, 4, NULL), 0);
        assert_holders(st, 0, ID_A, NULL);
        assert_holders(st, 1, ID_A, NULL);
        /* The holder asking again (a restart) is granted, recorded once. */
        assert_int_equal(alloc(st, ID_A, (size_t[]){0, 1}, 2, NULL), 0);
        assert_holders(st, 0, ID_A, NULL);
        assert_holders(st, 1, ID_A, NULL);
        assert_int_equal(st->ncontainers, 1);
}

static void test_release_forgets_the_container(void **state)
{
        struct ctk_tracker_state *st = *state;
        assert_int_equal(alloc(st, ID_A, (size_t[]){1, 2}, 2, NULL), 0);
        assert_int_equal(alloc(st, ID_B, (size_t[]){1}, 1, NULL), 0);
        /* A second allocation adds to what the container holds. */
        assert_int_equal(alloc(st, ID_A, (size_t[]){3}, 1, NULL), 0);
        assert_holders(st, 3, ID_A, NULL);
        assert_int_equal(ctk_tracker_state_find_container(st, ID_A)->ngpus, 3);
        assert_true(ctk_tracker_state_release(st, ID_A));
        assert_holders(st, 1, ID_B, NULL);
        assert_holders(st, 2, NULL, NULL);
        assert_holders(st, 3, NULL, NULL);
        assert_int_equal(st->ncontainers, 1);
        assert_false(ctk_tracker_state_release(st, ID_A));
}

static void test_empty_and_invalid_requests(void **state)
{
        struct ctk_tracker_state *st = *state;
        _cleanup_free_ char *before = ctk_tracker_state_format(st);
        assert_int_equal(alloc(st, ID_A, NULL, 0, NULL), 0);
        assert_int_equal(st->ncontainers, 0);
        _cleanup_free_ char *msg = NULL;
        assert_int_equal(alloc(st, ID_A, (size_t[]){1, 4}, 2, &msg), -1);
        assert_string_equal(msg, "GPU 4 does not exist (the tracker knows 4 GPUs)");
        _cleanup_free_ char *after = ctk_tracker_state_format(st);
        assert_string_equal(before, after);

        static const char *const bad[] = {"", ".", "..", "a/b", "a b", "a\nb"};
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                assert_false(ctk_tracker_valid_container_id(bad[i]));
                assert_int_equal(alloc(st, bad[i], (size_t[]){0}, 1, NULL), -1);
        }
        assert_true(ctk_tracker_valid_container_id(ID_A));
        assert_true(ctk_tracker_valid_container_id("my_container-1.2"));
}

/* Section 5 note: only GPUs used by at most one container become exclusive. */
static void test_make_exclusive_refused_when_shared_by_two(void **state)
{
        struct ctk_tracker_state *st = *state;
        assert_int_equal(alloc(st, ID_B, (size_t[]){1, 3}, 2, NULL), 0);
        assert_int_equal(alloc(st, ID_C, (size_t[]){0, 1, 2}, 3, NULL), 0);
        struct ctk_tracker_access_result r = {0};
        assert_int_equal(ctk_tracker_state_set_access(st, (size_t[]){1}, 1, CTK_TRACKER_EXCLUSIVE, &r, NULL), 0);
        assert_int_equal(r.nchanged, 0);
        assert_int_equal(r.nrefused, 1);
        assert_int_equal(r.refused[0], 1);
        assert_int_equal(st->gpus[1].access, CTK_TRACKER_SHARED);

        assert_int_equal(ctk_tracker_state_set_access(st, (size_t[]){3, 2, 1, 3}, 4, CTK_TRACKER_EXCLUSIVE, &r, NULL),
                         0);
        assert_int_equal(r.nchanged, 2);
        assert_int_equal(r.changed[0], 2);
        assert_int_equal(r.changed[1], 3);
        assert_int_equal(r.nrefused, 1);
        assert_int_equal(st->gpus[3].access, CTK_TRACKER_EXCLUSIVE);

        assert_int_equal(ctk_tracker_state_set_access(st, (size_t[]){1, 2}, 2, CTK_TRACKER_SHARED, &r, NULL), 0);
        assert_int_equal(r.nchanged, 2);
        assert_int_equal(r.nrefused, 0);
        assert_int_equal(st->gpus[2].access, CTK_TRACKER_SHARED);

        struct ctk_error *err = NULL;
        assert_int_equal(ctk_tracker_state_set_access(st, (size_t[]){9}, 1, CTK_TRACKER_SHARED, &r, &err), -1);
        assert_string_equal(err->msg, "GPU 9 does not exist (the tracker knows 4 GPUs)");
        ctk_error_free(err);
        ctk_tracker_access_result_clear(&r);
}

static void test_prune_and_owner_update(void **state)
{
        struct ctk_tracker_state *st = *state;
        assert_int_equal(alloc(st, ID_A, (size_t[]){0}, 1, NULL), 0);
        struct ctk_tracker_container again = {.id = (char *)ID_A, .runtime_root = NULL, .pid = 99, .pid_start = 5};
        bool changed;
        assert_int_equal(ctk_tracker_state_alloc(st, &again, (size_t[]){0}, 1, &changed, NULL), 0);
        assert_true(changed);
        struct ctk_tracker_container *c = ctk_tracker_state_find_container(st, ID_A);
        assert_null(c->runtime_root);
        assert_int_equal(c->pid, 99);
        assert_int_equal(ctk_tracker_state_alloc(st, &again, (size_t[]){0}, 1, &changed, NULL), 0);
        assert_false(changed);

        c->ngpus = 0;
        assert_true(ctk_tracker_state_prune(st));
        assert_int_equal(st->ncontainers, 0);
        assert_false(ctk_tracker_state_prune(st));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_setup_teardown(test_shared_multi_holders, setup, teardown),
            cmocka_unit_test_setup_teardown(test_exclusive_conflict_all_or_nothing, setup, teardown),
            cmocka_unit_test_setup_teardown(test_duplicates_count_once, setup, teardown),
            cmocka_unit_test_setup_teardown(test_release_forgets_the_container, setup, teardown),
            cmocka_unit_test_setup_teardown(test_empty_and_invalid_requests, setup, teardown),
            cmocka_unit_test_setup_teardown(test_make_exclusive_refused_when_shared_by_two, setup, teardown),
            cmocka_unit_test_setup_teardown(test_prune_and_owner_update, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
