/* The GPU tracker's state directory: root's alone (whoever else could
 * write there could remove the marker or rewrite the state, and turn
 * exclusivity off), refused otherwise by every operation with the fix;
 * made 0700 by the first that needs it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/tracker/tracker.h"
#include "tracker_fixtures.h"

struct fx {
        char *dir;
        char *state_dir;
        char *boot;
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

/* Each operation refuses the state directory as it is now, with want. */
static void all_refuse(struct fx *f, const char *want)
{
        bool b = false;
        struct ctk_tracker_request req = {.container_id = "c1", .idx = (size_t[]){0}, .n = 1};
        for (int op = 0; op < 8; op++) {
                struct ctk_error *err = NULL;
                _cleanup_tracker_state_ struct ctk_tracker_state st = {0};
                struct ctk_tracker_access_result r = {0};
                int rc = op == 0   ? ctk_tracker_is_enabled(f->t, &b, &err)
                         : op == 1 ? ctk_tracker_enable(f->t, &f->gpus, &b, &err)
                         : op == 2 ? ctk_tracker_disable(f->t, &b, &err)
                         : op == 3 ? ctk_tracker_reset(f->t, &f->gpus, &b, &err)
                         : op == 4 ? ctk_tracker_status(f->t, &f->gpus, &st, &err)
                         : op == 5
                             ? ctk_tracker_set_access(f->t, &f->gpus, (size_t[]){0}, 1, CTK_TRACKER_EXCLUSIVE, &r, &err)
                         : op == 6 ? ctk_tracker_allocate(f->t, &f->gpus, &req, &b, &err)
                                   : ctk_tracker_release(f->t, "c1", &b, &err);
                ctk_tracker_access_result_clear(&r);
                if (rc != -1 || err == NULL)
                        fail_msg("operation %d did not refuse", op);
                assert_int_equal(err->code, EPERM);
                assert_string_equal(err->msg, want);
                ctk_error_free(err);
        }
}

static char *msgf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *msgf(const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        char *s = NULL;
        if (vasprintf(&s, fmt, ap) < 0)
                fail();
        va_end(ap);
        return s;
}

static void test_made_root_only(void **state)
{
        struct fx *f = *state;
        bool changed;
        assert_int_equal(ctk_tracker_enable(f->t, &f->gpus, &changed, NULL), 0);
        struct stat st;
        assert_int_equal(stat(f->state_dir, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0700);
        assert_int_equal(st.st_uid, geteuid());
        /* 0755 (an earlier version's) is root's alone too */
        assert_int_equal(chmod(f->state_dir, 0755), 0);
        bool enabled = false;
        assert_int_equal(ctk_tracker_is_enabled(f->t, &enabled, NULL), 0);
        assert_true(enabled);
}

static void test_writable_by_others(void **state)
{
        struct fx *f = *state;
        bool changed;
        assert_int_equal(ctk_tracker_enable(f->t, &f->gpus, &changed, NULL), 0);
        static const mode_t modes[] = {0770, 0757, 01777};
        static const char *const why[] = {"writable by its group (mode 0770)", "writable by every user (mode 0757)",
                                          "writable by every user (mode 1777)"};
        for (size_t i = 0; i < 3; i++) {
                assert_int_equal(chmod(f->state_dir, modes[i]), 0);
                _cleanup_free_ char *want =
                    msgf("GPU Tracker state directory %s is not trusted: it is %s: refused (chown root:root %s; "
                         "chmod 0700 %s)",
                         f->state_dir, why[i], f->state_dir, f->state_dir);
                if (geteuid() != 0) {
                        free(want);
                        want = msgf("GPU Tracker state directory %s is not trusted: it is %s: refused (chmod 0700 %s)",
                                    f->state_dir, why[i], f->state_dir);
                }
                all_refuse(f, want);
        }
        /* the fix, as the line says: as enabled as before */
        assert_int_equal(chmod(f->state_dir, 0700), 0);
        bool enabled = false;
        assert_int_equal(ctk_tracker_is_enabled(f->t, &enabled, NULL), 0);
        assert_true(enabled);
}

static void test_owned_by_another(void **state)
{
        struct fx *f = *state;
        if (geteuid() != 0)
                skip();
        bool changed;
        assert_int_equal(ctk_tracker_enable(f->t, &f->gpus, &changed, NULL), 0);
        assert_int_equal(chown(f->state_dir, 65534, 65534), 0);
        _cleanup_free_ char *want = msgf("GPU Tracker state directory %s is not trusted: it is owned by uid 65534, not "
                                         "root: refused (chown root:root %s; chmod 0700 %s)",
                                         f->state_dir, f->state_dir, f->state_dir);
        all_refuse(f, want);
        assert_int_equal(chown(f->state_dir, 0, 0), 0);
}

/* A directory above it that another user may write to: the same. */
static void test_ancestor(void **state)
{
        struct fx *f = *state;
        assert_int_equal(chmod(f->dir, 0777), 0);
        _cleanup_free_ char *want =
            msgf("GPU Tracker state directory %s is not trusted: its directory %s is writable by every user (mode "
                 "0777): refused (chown root:root and chmod go-w that directory, or set state-dir to a directory "
                 "only root can write)",
                 f->state_dir, f->dir);
        struct ctk_error *err = NULL;
        bool changed;
        assert_int_equal(ctk_tracker_enable(f->t, &f->gpus, &changed, &err), -1);
        assert_string_equal(err->msg, want);
        ctk_error_free(err);
        assert_int_equal(access(f->state_dir, F_OK), -1); /* not made there */
        assert_int_equal(chmod(f->dir, 0700), 0);
        assert_int_equal(ctk_tracker_enable(f->t, &f->gpus, &changed, NULL), 0);
        assert_int_equal(chmod(f->dir, 0777), 0);
        all_refuse(f, want);
        assert_int_equal(chmod(f->dir, 0700), 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_setup_teardown(test_made_root_only, setup, teardown),
            cmocka_unit_test_setup_teardown(test_writable_by_others, setup, teardown),
            cmocka_unit_test_setup_teardown(test_owned_by_another, setup, teardown),
            cmocka_unit_test_setup_teardown(test_ancestor, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
