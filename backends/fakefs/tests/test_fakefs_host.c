/* Live changes of a simulated host: repartitioning, hot-unplug, snapshots. */
#include <errno.h>
#include <pthread.h>

#include "fakefs_test.h"

static const char *const two_mi300x =
    "{\"cpu_nodes\": [{\"node\": 0}, {\"node\": 1}],\n"
    " \"gpus\": [\n"
    "  {\"pci\": \"0000:05:00.0\", \"device_id\": \"0x74a1\", \"unique_id\": \"0xE3AA140F9A5F9E31\",\n"
    "   \"kfd_node\": 2, \"card_minor\": 0, \"render_minor\": 128,\n"
    "   \"partition\": {\"compute\": \"SPX\", \"memory\": \"NPS1\", \"xcds\": 8}},\n"
    "  {\"pci\": \"0000:27:00.0\", \"device_id\": \"0x74a1\", \"unique_id\": \"0x2250F807CAF2231A\",\n"
    "   \"kfd_node\": 3, \"card_minor\": 8, \"render_minor\": 136,\n"
    "   \"partition\": {\"compute\": \"SPX\", \"memory\": \"NPS1\", \"xcds\": 8}},\n"
    "  {\"pci\": \"0000:65:00.0\", \"device_id\": \"0x740f\", \"kfd_node\": 4, \"card_minor\": 16,\n"
    "   \"render_minor\": 144}\n"
    " ]}\n";

#define GPU0  "/sys/devices/pci0000:00/0000:05:00.0"
#define NODES "/sys/class/kfd/kfd/topology/nodes"

static void expect_file(struct ctk_fakefs_host *h, const char *path, const char *want)
{
        char *s = host_read(h, path);
        if (s == NULL)
                fail_msg("%s is missing", path);
        assert_string_equal(s, want);
        free(s);
}

/* Does the file at path contain needle? */
static bool host_contains(struct ctk_fakefs_host *h, const char *path, const char *needle)
{
        char *s = host_read(h, path);
        bool ok = s != NULL && strstr(s, needle) != NULL;
        free(s);
        return ok;
}

/* The dump without the generation_id line. */
static char *dump_sans_generation(struct ctk_fakefs_host *h)
{
        char *s = host_dump(h);
        char *g = strstr(s, "/sys/class/kfd/kfd/topology/generation_id f");
        assert_non_null(g);
        char *end = strchr(g, '\n');
        memmove(g, end + 1, strlen(end + 1) + 1);
        return s;
}

static void spx_to_cpx_and_back(void **state)
{
        (void)state;
        struct ctk_fakefs_host *h = test_host(two_mi300x);
        struct ctk_error *err = NULL;
        char *before = dump_sans_generation(h);
        expect_file(h, GPU0 "/current_compute_partition", "SPX\n");
        expect_file(h, GPU0 "/available_compute_partition", "SPX, DPX, QPX, CPX\n");
        expect_file(h, GPU0 "/available_memory_partition", "NPS1, NPS4\n");
        assert_false(host_exists(h, "/sys/devices/platform"));
        assert_true(host_contains(h, NODES "/2/properties", "\nnum_xcc 8\n"));

        assert_int_equal(ctk_fakefs_host_set_compute_partition(h, "0000:05:00.0", "cpx\n", &err), 0);
        expect_file(h, GPU0 "/current_compute_partition", "CPX\n");
        expect_file(h, "/sys/class/kfd/kfd/topology/generation_id", "2\n");
        for (int k = 1; k < 8; k++) {
                char path[128], want[32];
                snprintf(path, sizeof(path), "/sys/devices/platform/amdgpu_xcp_%d/drm/renderD%d/dev", k - 1, 128 + k);
                snprintf(want, sizeof(want), "226:%d\n", 128 + k);
                expect_file(h, path, want);
                snprintf(path, sizeof(path), "/sys/class/drm/card%d/dev", k);
                snprintf(want, sizeof(want), "226:%d\n", k);
                expect_file(h, path, want);
        }
        /* the second GPU's partitions would start at amdgpu_xcp_7 */
        assert_false(host_exists(h, "/sys/devices/platform/amdgpu_xcp_7"));
        /* by-path links only for the PCI function */
        assert_true(host_exists(h, "/dev/dri/renderD135"));
        assert_true(host_exists(h, "/dev/dri/by-path/pci-0000:05:00.0-render"));
        /* KFD renumbered: CPUs 0-1, GPU0 partitions 2-9, GPU1 10, MI210 11 */
        char *p3 = host_read(h, NODES "/3/properties");
        assert_non_null(strstr(p3, "\nlocation_id 1281\ndomain 0\ndrm_render_minor 129\n"));
        assert_non_null(strstr(p3, "\nunique_id 16404946649897475633\n"));
        assert_non_null(strstr(p3, "\nnum_xcc 1\n"));
        free(p3);
        char *p10 = host_read(h, NODES "/10/properties");
        assert_non_null(strstr(p10, "\ndrm_render_minor 136\n"));
        free(p10);
        char *p11 = host_read(h, NODES "/11/properties");
        assert_non_null(strstr(p11, "\ndrm_render_minor 144\n"));
        free(p11);
        assert_false(host_exists(h, NODES "/12"));

        assert_int_equal(ctk_fakefs_host_set_compute_partition(h, "0000:05:00.0", "SPX", &err), 0);
        expect_file(h, "/sys/class/kfd/kfd/topology/generation_id", "3\n");
        char *after = dump_sans_generation(h);
        assert_string_equal(before, after);
        free(before);
        free(after);
        ctk_fakefs_host_unref(h);
}

static void other_modes(void **state)
{
        (void)state;
        struct ctk_fakefs_host *h = test_host(two_mi300x);
        struct ctk_error *err = NULL;
        assert_int_equal(ctk_fakefs_host_set_compute_partition(h, "0000:27:00.0", " Dpx ", &err), 0);
        assert_true(host_exists(h, "/sys/devices/platform/amdgpu_xcp_7/drm/renderD137"));
        assert_false(host_exists(h, "/sys/devices/platform/amdgpu_xcp_8"));
        assert_int_equal(ctk_fakefs_host_set_compute_partition(h, "27:00.0", "QPX", &err), 0);
        assert_true(host_exists(h, "/sys/devices/platform/amdgpu_xcp_9/drm/card11"));
        assert_true(host_contains(h, NODES "/3/properties", "\nnum_xcc 2\n"));
        assert_int_equal(ctk_fakefs_host_set_memory_partition(h, "0000:27:00.0", "nps4", &err), 0);
        expect_file(h, "/sys/devices/pci0000:00/0000:27:00.0/current_memory_partition", "NPS4\n");
        expect_file(h, "/sys/class/kfd/kfd/topology/generation_id", "4\n");
        /* setting the current mode changes nothing */
        assert_int_equal(ctk_fakefs_host_set_memory_partition(h, "0000:27:00.0", "NPS4", &err), 0);
        expect_file(h, "/sys/class/kfd/kfd/topology/generation_id", "4\n");
        assert_null(err);
        ctk_fakefs_host_unref(h);
}

static void expect_change_error(struct ctk_fakefs_host *h, int rc, struct ctk_error *err, int code, const char *msg,
                                const char *before)
{
        assert_int_equal(rc, -1);
        assert_int_equal(err->code, code);
        if (strstr(err->msg, msg) == NULL)
                fail_msg("\"%s\" does not contain \"%s\"", err->msg, msg);
        ctk_error_free(err);
        char *now = host_dump(h);
        assert_string_equal(before, now); /* nothing changed, not even generation_id */
        free(now);
}

static void refused_changes(void **state)
{
        (void)state;
        struct ctk_fakefs_host *h = test_host(two_mi300x);
        char *before = host_dump(h);
        struct ctk_error *err = NULL;
        int rc = ctk_fakefs_host_set_compute_partition(h, "0000:05:00.0", "HPX", &err);
        expect_change_error(h, rc, err, EINVAL, "compute partition mode \"HPX\" is not available", before);
        err = NULL;
        rc = ctk_fakefs_host_set_compute_partition(h, "0000:05:00.0", "", &err);
        expect_change_error(h, rc, err, EINVAL, "not available", before);
        err = NULL;
        rc = ctk_fakefs_host_set_memory_partition(h, "0000:05:00.0", "NPS2", &err);
        expect_change_error(h, rc, err, EINVAL, "memory partition mode \"NPS2\"", before);
        err = NULL;
        rc = ctk_fakefs_host_set_compute_partition(h, "0000:65:00.0", "CPX", &err);
        expect_change_error(h, rc, err, EINVAL, "has no partition support", before);
        err = NULL;
        rc = ctk_fakefs_host_set_compute_partition(h, "0000:99:00.0", "CPX", &err);
        expect_change_error(h, rc, err, ENOENT, "no GPU at PCI address 0000:99:00.0", before);
        err = NULL;
        rc = ctk_fakefs_host_unplug(h, "nonsense", &err);
        expect_change_error(h, rc, err, ENOENT, "no GPU", before);
        free(before);
        ctk_fakefs_host_unref(h);
}

static void unplug_and_plug(void **state)
{
        (void)state;
        struct ctk_fakefs_host *h = test_host(two_mi300x);
        struct ctk_error *err = NULL;
        char *before = dump_sans_generation(h);
        assert_int_equal(ctk_fakefs_host_unplug(h, "0000:05:00.0", &err), 0);
        assert_false(host_exists(h, GPU0));
        assert_false(host_exists(h, "/sys/bus/pci/devices/0000:05:00.0"));
        assert_false(host_exists(h, "/sys/bus/pci/drivers/amdgpu/0000:05:00.0"));
        assert_false(host_exists(h, "/dev/dri/card0"));
        assert_false(host_exists(h, "/dev/dri/by-path/pci-0000:05:00.0-card"));
        assert_true(host_exists(h, "/sys/module/amdgpu/drivers/pci:amdgpu"));
        /* the others are renumbered */
        assert_true(host_contains(h, NODES "/2/properties", "\ndrm_render_minor 136\n"));
        assert_false(host_exists(h, NODES "/4"));
        expect_file(h, "/sys/class/kfd/kfd/topology/generation_id", "2\n");
        struct ctk_strv gone = {0};
        assert_int_equal(ctk_fakefs_host_unplugged(h, &gone), 0);
        assert_int_equal(gone.n, 1);
        assert_string_equal(gone.v[0], "0000:05:00.0");
        ctk_strv_clear(&gone);
        /* unplugging again changes nothing; partitioning an absent GPU fails */
        assert_int_equal(ctk_fakefs_host_unplug(h, "0000:05:00.0", &err), 0);
        expect_file(h, "/sys/class/kfd/kfd/topology/generation_id", "2\n");
        assert_int_equal(ctk_fakefs_host_set_compute_partition(h, "0000:05:00.0", "CPX", &err), -1);
        assert_int_equal(err->code, ENODEV);
        ctk_error_free(err);
        err = NULL;
        assert_int_equal(ctk_fakefs_host_plug(h, "0000:05:00.0", &err), 0);
        char *after = dump_sans_generation(h);
        assert_string_equal(before, after);
        free(before);
        free(after);
        ctk_fakefs_host_unref(h);
}

static void snapshot_survives_changes(void **state)
{
        (void)state;
        struct ctk_fakefs_host *h = test_host(two_mi300x);
        struct ctk_error *err = NULL;
        struct ctk_fakefs_tree *old = ctk_fakefs_host_snapshot(h);
        char *dump_old = test_dump(old);
        assert_int_equal(ctk_fakefs_host_set_compute_partition(h, "0000:05:00.0", "CPX", &err), 0);
        assert_int_equal(ctk_fakefs_host_unplug(h, "0000:27:00.0", &err), 0);
        char *again = test_dump(old);
        assert_string_equal(dump_old, again);
        free(again);
        free(dump_old);
        ctk_fakefs_tree_unref(old);
        ctk_fakefs_host_unref(h);
}

/* Readers see either the SPX tree or the CPX tree, never a mix. */
struct race {
        struct ctk_fakefs_host *h;
        int stop;
        int bad;
        int seen_spx, seen_cpx;
};

static void *reader(void *arg)
{
        struct race *r = arg;
        while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
                struct ctk_fakefs_tree *t = ctk_fakefs_host_snapshot(r->h);
                const struct ctk_fakefs_node *mode, *nodes;
                if (ctk_fakefs_tree_lookup(t, GPU0 "/current_compute_partition", true, &mode) < 0 ||
                    ctk_fakefs_tree_lookup(t, NODES, true, &nodes) < 0) {
                        __atomic_add_fetch(&r->bad, 1, __ATOMIC_RELAXED);
                } else if (strcmp(mode->data, "SPX\n") == 0) {
                        if (nodes->nkids != 5)
                                __atomic_add_fetch(&r->bad, 1, __ATOMIC_RELAXED);
                        __atomic_add_fetch(&r->seen_spx, 1, __ATOMIC_RELAXED);
                } else {
                        if (nodes->nkids != 12)
                                __atomic_add_fetch(&r->bad, 1, __ATOMIC_RELAXED);
                        __atomic_add_fetch(&r->seen_cpx, 1, __ATOMIC_RELAXED);
                }
                ctk_fakefs_tree_unref(t);
        }
        return NULL;
}

static void concurrent_readers(void **state)
{
        (void)state;
        struct race r = {.h = test_host(two_mi300x)};
        pthread_t th[4];
        for (int i = 0; i < 4; i++)
                assert_int_equal(pthread_create(&th[i], NULL, reader, &r), 0);
        struct ctk_error *err = NULL;
        for (int i = 0; i < 200; i++)
                assert_int_equal(
                    ctk_fakefs_host_set_compute_partition(r.h, "0000:05:00.0", i % 2 ? "SPX" : "CPX", &err), 0);
        __atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
        for (int i = 0; i < 4; i++)
                pthread_join(th[i], NULL);
        assert_int_equal(r.bad, 0);
        assert_true(r.seen_spx + r.seen_cpx > 0);
        expect_file(r.h, "/sys/class/kfd/kfd/topology/generation_id", "201\n");
        ctk_fakefs_host_unref(r.h);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(spx_to_cpx_and_back),       cmocka_unit_test(other_modes),
            cmocka_unit_test(refused_changes),           cmocka_unit_test(unplug_and_plug),
            cmocka_unit_test(snapshot_survives_changes), cmocka_unit_test(concurrent_readers),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
