/* Discovery on a host that is repartitioned while it is being read: the
 * KFD generation_id makes discovery start over, so the result is always
 * one consistent topology. */
#include <errno.h>

#include "backends/fakefs/backend.h"
#include "core/device/device.h"
#include "fakefs_test.h"

static const char *const two_mi300x =
    "{\"gpus\": [\n"
    "  {\"pci\": \"0000:05:00.0\", \"device_id\": \"0x74a1\", \"unique_id\": \"0x1\", \"card_minor\": 0,\n"
    "   \"render_minor\": 128, \"partition\": {\"xcds\": 8}},\n"
    "  {\"pci\": \"0000:27:00.0\", \"device_id\": \"0x74a1\", \"unique_id\": \"0x2\", \"card_minor\": 8,\n"
    "   \"render_minor\": 136, \"partition\": {\"xcds\": 8}}\n"
    "]}\n";

/* A backend that repartitions GPU 0 while discovery reads files. */
struct flipping {
        struct ctk_backend *inner;
        struct ctk_fakefs_host *host;
        int reads;
        int flip_every; /* repartition after every n-th file read (0: never) */
        int flips_left;
        bool cpx;
};

static int flip_read_file(void *ctx, const char *path, char **out, size_t *len, struct ctk_error **err)
{
        struct flipping *f = ctx;
        int rc = ctk_read_file(f->inner, path, out, len, err);
        if (f->flip_every > 0 && f->flips_left > 0 && ++f->reads % f->flip_every == 0) {
                f->cpx = !f->cpx;
                f->flips_left--;
                struct ctk_error *e = NULL;
                assert_int_equal(
                    ctk_fakefs_host_set_compute_partition(f->host, "0000:05:00.0", f->cpx ? "CPX" : "SPX", &e), 0);
        }
        return rc;
}

static int flip_list_dir(void *ctx, const char *path, struct ctk_strv *names, struct ctk_error **err)
{
        struct flipping *f = ctx;
        return ctk_list_dir(f->inner, path, names, err);
}

static int flip_stat_node(void *ctx, const char *path, struct ctk_node_info *out, struct ctk_error **err)
{
        struct flipping *f = ctx;
        return ctk_stat_node(f->inner, path, out, err);
}

static int flip_read_link(void *ctx, const char *path, char **target, struct ctk_error **err)
{
        struct flipping *f = ctx;
        return ctk_read_link(f->inner, path, target, err);
}

static const struct ctk_backend_ops flip_ops = {
    .read_file = flip_read_file,
    .list_dir = flip_list_dir,
    .stat_node = flip_stat_node,
    .read_link = flip_read_link,
};

static void setup_flipping(struct flipping *f, struct ctk_backend *b, int every, int flips)
{
        struct ctk_error *err = NULL;
        *f = (struct flipping){.host = test_host(two_mi300x), .flip_every = every, .flips_left = flips};
        assert_int_equal(ctk_fakefs_backend_from_host(f->host, &f->inner, &err), 0);
        *b = (struct ctk_backend){.ops = &flip_ops, .ctx = f};
}

static void teardown_flipping(struct flipping *f)
{
        ctk_backend_free(f->inner);
        ctk_fakefs_host_unref(f->host);
}

/* The answer is the one of the topology in place when discovery finished. */
static void consistent_despite_repartitioning(void **state)
{
        (void)state;
        for (int every = 1; every <= 6; every++) {
                struct flipping f;
                struct ctk_backend b;
                setup_flipping(&f, &b, every, 3);
                struct ctk_gpu_list l = {0};
                struct ctk_error *err = NULL;
                if (ctk_discover_gpus(&b, &l, &err) < 0)
                        fail_msg("every %d: %s", every, err->msg);
                assert_true(f.flips_left < 3); /* the test did interfere */
                size_t want = f.cpx ? 9 : 2;
                assert_int_equal(l.n, want);
                assert_string_equal(l.v[0].partition, f.cpx ? "cpx_nps1" : "spx_nps1");
                assert_string_equal(l.v[l.n - 1].pci, "0000:27:00.0");
                assert_int_equal(l.v[l.n - 1].render_minor, 136);
                for (size_t i = 0; i + 1 < l.n; i++)
                        assert_string_equal(l.v[i].pci, "0000:05:00.0");
                ctk_gpu_list_clear(&l);
                teardown_flipping(&f);
        }
}

static void endless_changes_are_an_error(void **state)
{
        (void)state;
        struct flipping f;
        struct ctk_backend b;
        setup_flipping(&f, &b, 1, 1000000);
        struct ctk_gpu_list l = {0};
        struct ctk_error *err = NULL;
        assert_int_equal(ctk_discover_gpus(&b, &l, &err), -1);
        assert_int_equal(err->code, EAGAIN);
        assert_non_null(strstr(err->msg, "generation_id kept changing"));
        assert_int_equal(l.n, 0);
        ctk_error_free(err);
        teardown_flipping(&f);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(consistent_despite_repartitioning),
            cmocka_unit_test(endless_changes_are_an_error),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
