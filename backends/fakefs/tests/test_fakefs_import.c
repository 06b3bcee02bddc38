/* import-kfd: captures -> profiles that reproduce the captured topology.
 * Run from the repository root (reads sim/captures). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backends/fakefs/import.h"
#include "core/base/tests/scratch_dir.h"
#include "fakefs_test.h"

static struct ctk_fakefs_profile *import(const char *dir)
{
        struct ctk_error *err = NULL;
        char *json = NULL;
        struct ctk_fakefs_profile *p = NULL;
        if (ctk_fakefs_import_kfd(dir, NULL, &json, &err) < 0 || ctk_fakefs_profile_parse(json, dir, &p, &err) < 0)
                fail_msg("%s", err->msg);
        free(json);
        return p;
}

static char *slurp(const char *path)
{
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return NULL;
        char *buf = calloc(1, 65536);
        ssize_t n = read(fd, buf, 65535);
        assert_true(n >= 0);
        close(fd);
        return buf;
}

/* s without its "*_count N" lines (the counts of a node's links, banks and
 * caches, which the tree computes from what it serves). */
static void drop_counts(char *s)
{
        char *out = s;
        for (char *line = s; *line != '\0';) {
                char *nl = strchr(line, '\n');
                size_t len = nl != NULL ? (size_t)(nl - line) + 1 : strlen(line);
                char *sp = memchr(line, ' ', len);
                bool count = sp != NULL && sp - line > 6 && memcmp(sp - 6, "_count", 6) == 0;
                if (!count) {
                        memmove(out, line, len);
                        out += len;
                }
                line += len;
        }
        *out = '\0';
}

/* Every captured file equals the file of the tree built from the profile
 * (properties but their counts: tests/fakefs-profiles.bats checks those). */
static void expect_round_trip(const char *dir)
{
        struct ctk_error *err = NULL;
        struct ctk_fakefs_host *h = NULL;
        if (ctk_fakefs_host_new_from_profile(import(dir), &h, &err) < 0)
                fail_msg("%s", err->msg);
        char *nodes = scratch_path(dir, "nodes");
        DIR *d = opendir(nodes);
        assert_non_null(d);
        struct dirent *e;
        size_t checked = 0;
        while ((e = readdir(d)) != NULL) {
                if (e->d_name[0] == '.')
                        continue;
                static const char *const files[] = {"properties", "gpu_id", "name"};
                for (int i = 0; i < 3; i++) {
                        char *cap = NULL, *tree = NULL;
                        assert_true(asprintf(&cap, "%s/%s/%s", nodes, e->d_name, files[i]) > 0);
                        assert_true(asprintf(&tree, "/sys/class/kfd/kfd/topology/nodes/%s/%s", e->d_name, files[i]) >
                                    0);
                        char *want = slurp(cap);
                        if (want != NULL) {
                                char *got = host_read(h, tree);
                                if (got == NULL)
                                        fail_msg("%s missing", tree);
                                drop_counts(got);
                                drop_counts(want);
                                if (strcmp(got, want) != 0)
                                        fail_msg("%s differs from %s", tree, cap);
                                checked++;
                                free(got);
                        }
                        free(want);
                        free(cap);
                        free(tree);
                }
        }
        closedir(d);
        assert_true(checked > 0);
        char *gen = scratch_path(dir, "generation_id");
        char *want = slurp(gen);
        if (want != NULL) {
                char *got = host_read(h, "/sys/class/kfd/kfd/topology/generation_id");
                assert_string_equal(got, want);
                free(got);
        }
        free(want);
        free(gen);
        free(nodes);
        ctk_fakefs_host_unref(h);
}

static void mi210(void **state)
{
        (void)state;
        struct ctk_fakefs_profile *p = import("sim/captures/topo-mi210-xgmi-pcie");
        assert_int_equal(p->ngpus, 8);
        assert_int_equal(p->ncpus, 2);
        /* GPU order is PCI order: index 0 is 0000:03:00.0 although it is KFD node 4 */
        assert_string_equal(p->gpus[0].pci, "0000:03:00.0");
        assert_int_equal(p->gpus[0].kfd_node, 4);
        assert_int_equal(p->gpus[0].render_minor, 130);
        assert_int_equal(p->gpus[0].card_minor, 2);
        assert_int_equal(p->gpus[0].device_id, 0x740f);
        assert_false(p->gpus[0].partition.supported);
        assert_int_equal(p->gpus[0].nparts, 0);
        assert_string_equal(p->gpus[7].pci, "0000:e3:00.0");
        ctk_fakefs_profile_free(p);
        expect_round_trip("sim/captures/topo-mi210-xgmi-pcie");
}

static void mi300x_cpx(void **state)
{
        (void)state;
        struct ctk_fakefs_profile *p = import("sim/captures/topo-mi300-cpx");
        assert_int_equal(p->ngpus, 8);
        size_t total = 0;
        for (size_t i = 0; i < p->ngpus; i++) {
                const struct ctk_fakefs_gpu *g = &p->gpus[i];
                assert_true(g->partition.supported);
                assert_string_equal(g->partition.compute, "CPX");
                assert_int_equal(g->partition.xcds, 8);
                assert_int_equal(g->pci_class, 0x120000);
                total += g->nparts;
        }
        assert_int_equal(total, 63);
        assert_string_equal(p->gpus[7].pci, "0000:e5:00.0");
        assert_int_equal(p->gpus[7].nparts, 7);
        assert_int_equal(p->generation_id, 80);
        ctk_fakefs_profile_free(p);
        expect_round_trip("sim/captures/topo-mi300-cpx");
}

static void mi308(void **state)
{
        (void)state;
        struct ctk_fakefs_profile *p = import("sim/captures/topology-parsing-mi308");
        assert_int_equal(p->ngpus, 8);
        assert_string_equal(p->gpus[4].pci, "0001:0b:00.0");
        assert_int_equal(p->gpus[0].nparts, 4);
        /* 4 partitions of one XCC each: every XCD is a partition */
        assert_string_equal(p->gpus[0].partition.compute, "CPX");
        assert_int_equal(p->gpus[0].partition.xcds, 4);
        assert_int_equal(p->gpus[0].parts[1].gpu_id, 41657);
        ctk_fakefs_profile_free(p);
        expect_round_trip("sim/captures/topology-parsing-mi308");
}

/* A scratch capture directory. */
static char *make_capture(void)
{
        char *dir = strdup("/tmp/fakefs-capture-XXXXXX");
        assert_non_null(scratch_dir_make(dir));
        return dir;
}

static void put(const char *dir, const char *rel, const char *text)
{
        char *path = scratch_path(dir, rel);
        char *slash = path + strlen(dir);
        while ((slash = strchr(slash + 1, '/')) != NULL) {
                *slash = '\0';
                mkdir(path, 0755);
                *slash = '/';
        }
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
        close(fd);
        free(path);
}

static void rm_rf(char *dir)
{
        assert_int_equal(scratch_dir_remove(dir), 0);
        free(dir);
}

#define GPU_NODE(loc, minor, xcc)                                                                                      \
        "simd_count 80\r\nvendor_id 4098\r\ndevice_id 29857\r\nlocation_id " loc                                       \
        "\r\ndomain 0\r\ndrm_render_minor " minor "\r\nunique_id 12\r\nnum_xcc " xcc                                   \
        "\r\ngfx_target_version 90402\r\n"

static void synthetic_dpx_with_crlf(void **state)
{
        (void)state;
        char *dir = make_capture();
        put(dir, "nodes/0/properties", "cpu_cores_count 8\r\nsimd_count 0\r\ndrm_render_minor 0\r\n");
        put(dir, "nodes/1/properties", GPU_NODE("1280", "128", "4"));
        put(dir, "nodes/2/properties", GPU_NODE("1281", "129", "4"));
        struct ctk_fakefs_profile *p = import(dir);
        assert_int_equal(p->ngpus, 1);
        assert_string_equal(p->gpus[0].pci, "0000:05:00.0");
        assert_string_equal(p->gpus[0].partition.compute, "DPX");
        assert_int_equal(p->gpus[0].partition.xcds, 8);
        assert_int_equal(p->gpus[0].nparts, 2);
        ctk_fakefs_profile_free(p);
        rm_rf(dir);
}

static void expect_import_error(const char *dir, const char *want)
{
        struct ctk_error *err = NULL;
        char *json = NULL;
        assert_int_equal(ctk_fakefs_import_kfd(dir, NULL, &json, &err), -1);
        if (strstr(err->msg, want) == NULL)
                fail_msg("\"%s\" does not contain \"%s\"", err->msg, want);
        ctk_error_free(err);
}

static void bad_captures(void **state)
{
        (void)state;
        expect_import_error("/nonexistent", "is not a KFD topology capture");
        char *dir = make_capture();
        put(dir, "nodes/0/properties", "cpu_cores_count 8\nsimd_count 0x10\n");
        char *want = NULL;
        assert_true(asprintf(&want, "%s/nodes/0/properties:2: expected \"key value\"", dir) > 0);
        expect_import_error(dir, want);
        free(want);
        put(dir, "nodes/0/properties", "cpu_cores_count 8\ncpu_cores_count 9\n");
        expect_import_error(dir, "key cpu_cores_count appears twice");
        put(dir, "nodes/0/properties", "cpu_cores_count 8\n");
        put(dir, "nodes/x/properties", "cpu_cores_count 8\n");
        expect_import_error(dir, "nodes/x: not a KFD node number");
        rm_rf(dir);
        dir = make_capture();
        put(dir, "nodes/0/properties", "drm_render_minor 128\nvendor_id 4098\n");
        expect_import_error(dir, "nodes/0/properties: missing location_id");
        rm_rf(dir);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(mi210),        cmocka_unit_test(mi300x_cpx),
            cmocka_unit_test(mi308),        cmocka_unit_test(synthetic_dpx_with_crlf),
            cmocka_unit_test(bad_captures),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
