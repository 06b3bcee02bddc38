/* The in-memory backend: vtable semantics on the tree built from a profile. */
#include <errno.h>

#include "backends/fakefs/backend.h"
#include "backends/open.h"
#include "fakefs_test.h"

static const char *const two_gpus =
    "{\n"
    "  \"kfd\": {\"generation_id\": 7,\n"
    "          \"device\": {\"major\": 510, \"mode\": \"0666\", \"gid\": 5}},\n"
    "  \"cpu_nodes\": [{\"node\": 0}, {\"node\": 1}],\n"
    "  \"gpus\": [\n"
    "    {\"pci\": \"0000:26:00.0\", \"device_id\": \"0x740f\", \"unique_id\": "
    "\"0x89CAA15875FF5A43\",\n"
    "     \"kfd_node\": 3, \"card_minor\": 1, \"render_minor\": 129,\n"
    "     \"render\": {\"mode\": \"0600\", \"uid\": 7, \"gid\": 8}},\n"
    "    {\"pci\": \"0000:03:00.0\", \"device_id\": \"0x740f\", \"unique_id\": "
    "\"0xEA35F57CC80DEB35\",\n"
    "     \"kfd_node\": 2, \"gpu_id\": 12261, \"card_minor\": 0, \"render_minor\": 128},\n"
    "    {\"pci\": \"0000:00:02.0\", \"vendor_id\": \"0x8086\", \"device_id\": "
    "\"0x4680\",\n"
    "     \"class\": \"0x030000\", \"driver\": \"i915\", \"card_minor\": 2, "
    "\"render_minor\": 130}\n"
    "  ]\n"
    "}\n";

static int setup(void **state)
{
        *state = test_backend_new(two_gpus);
        return 0;
}

static int teardown(void **state)
{
        test_backend_free(*state);
        return 0;
}

static char *read_str(struct ctk_backend *b, const char *path)
{
        struct ctk_error *err = NULL;
        char *s = NULL;
        size_t len = 0;
        if (ctk_read_file(b, path, &s, &len, &err) < 0)
                fail_msg("%s", err->msg);
        assert_int_equal(strlen(s), len);
        return s;
}

static void expect_str(struct ctk_backend *b, const char *path, const char *want)
{
        char *s = read_str(b, path);
        assert_string_equal(s, want);
        free(s);
}

static void list_dir_is_sorted(void **state)
{
        struct test_backend *f = *state;
        struct ctk_error *err = NULL;
        struct ctk_strv names = {0};
        assert_int_equal(ctk_list_dir(f->b, "/dev/dri", &names, &err), 0);
        const char *want[] = {"by-path", "card0", "card1", "card2", "renderD128", "renderD129", "renderD130"};
        assert_int_equal(names.n, 7);
        for (size_t i = 0; i < names.n; i++)
                assert_string_equal(names.v[i], want[i]);
        ctk_strv_clear(&names);
        /* through a link to a directory */
        assert_int_equal(ctk_list_dir(f->b, "/sys/module/amdgpu/drivers/pci:amdgpu", &names, &err), 0);
        assert_int_equal(names.n, 2);
        assert_string_equal(names.v[0], "0000:03:00.0");
        assert_string_equal(names.v[1], "0000:26:00.0");
        ctk_strv_clear(&names);
        assert_int_equal(ctk_list_dir(f->b, "/sys/class/kfd/kfd/topology/nodes", &names, &err), 0);
        assert_int_equal(names.n, 4);
        assert_string_equal(names.v[3], "3");
        ctk_strv_clear(&names);
}

static void errors_carry_errno(void **state)
{
        struct test_backend *f = *state;
        struct ctk_error *err = NULL;
        struct ctk_strv names = {0};
        char *s = NULL;
        assert_int_equal(ctk_list_dir(f->b, "/sys/devices/platform", &names, &err), -1);
        assert_int_equal(err->code, ENOENT);
        assert_non_null(strstr(err->msg, "/sys/devices/platform"));
        ctk_error_free(err);
        err = NULL;
        assert_int_equal(ctk_read_file(f->b, "/sys/class/kfd", &s, NULL, &err), -1);
        assert_int_equal(err->code, EISDIR);
        ctk_error_free(err);
        err = NULL;
        assert_int_equal(ctk_list_dir(f->b, "/sys/class/kfd/kfd/topology/generation_id", &names, &err), -1);
        assert_int_equal(err->code, ENOTDIR);
        ctk_error_free(err);
        err = NULL;
        assert_int_equal(ctk_read_link(f->b, "/sys/class/kfd", &s, &err), -1);
        assert_int_equal(err->code, EINVAL);
        ctk_error_free(err);
        err = NULL;
        struct ctk_node_info info;
        assert_int_equal(ctk_stat_node(f->b, "/dev/dri/renderD999", &info, &err), -1);
        assert_int_equal(err->code, ENOENT);
        ctk_error_free(err);
        err = NULL;
        /* the 3rd component is a file */
        assert_int_equal(ctk_stat_node(f->b, "/dev/kfd/x", &info, &err), -1);
        assert_int_equal(err->code, ENOTDIR);
        ctk_error_free(err);
}

static void stat_of_device_nodes(void **state)
{
        struct test_backend *f = *state;
        struct ctk_error *err = NULL;
        struct ctk_node_info info;
        assert_int_equal(ctk_stat_node(f->b, "/dev/kfd", &info, &err), 0);
        assert_int_equal(info.type, CTK_NODE_CHR);
        assert_int_equal(info.major, 510);
        assert_int_equal(info.minor, 0);
        assert_int_equal(info.mode, 0666);
        assert_int_equal(info.gid, 5);
        assert_int_equal(ctk_stat_node(f->b, "/dev/dri/renderD129", &info, &err), 0);
        assert_int_equal(info.major, 226);
        assert_int_equal(info.minor, 129);
        assert_int_equal(info.mode, 0600);
        assert_int_equal(info.uid, 7);
        assert_int_equal(info.gid, 8);
        /* stat follows a final link; by-path links resolve */
        assert_int_equal(ctk_stat_node(f->b, "/dev/dri/by-path/pci-0000:03:00.0-card", &info, &err), 0);
        assert_int_equal(info.type, CTK_NODE_CHR);
        assert_int_equal(info.minor, 0);
        assert_int_equal(info.gid, 44);
        assert_int_equal(ctk_stat_node(f->b, "/sys/bus/pci/devices/0000:03:00.0", &info, &err), 0);
        assert_int_equal(info.type, CTK_NODE_DIR);
        assert_int_equal(info.mode, 0755);
        assert_int_equal(ctk_stat_node(f->b, "/sys/devices/pci0000:00/0000:03:00.0/vendor", &info, &err), 0);
        assert_int_equal(info.type, CTK_NODE_FILE);
        assert_int_equal(info.mode, 0444);
        assert_null(err);
}

static void layout_contract(void **state)
{
        struct test_backend *f = *state;
        struct ctk_error *err = NULL;
        char *t = NULL;
        assert_int_equal(ctk_read_link(f->b, "/sys/module/amdgpu/drivers/pci:amdgpu", &t, &err), 0);
        assert_string_equal(t, "../../../bus/pci/drivers/amdgpu");
        free(t);
        assert_int_equal(ctk_read_link(f->b, "/sys/bus/pci/drivers/i915/0000:00:02.0", &t, &err), 0);
        assert_string_equal(t, "../../../../devices/pci0000:00/0000:00:02.0");
        free(t);
        assert_int_equal(ctk_read_link(f->b, "/sys/class/drm/renderD128", &t, &err), 0);
        assert_string_equal(t, "../../devices/pci0000:00/0000:03:00.0/drm/renderD128");
        free(t);
        assert_int_equal(ctk_read_link(f->b, "/dev/dri/by-path/pci-0000:26:00.0-render", &t, &err), 0);
        assert_string_equal(t, "../renderD129");
        free(t);
        expect_str(f->b, "/sys/bus/pci/devices/0000:03:00.0/vendor", "0x1002\n");
        expect_str(f->b, "/sys/bus/pci/devices/0000:03:00.0/device", "0x740f\n");
        expect_str(f->b, "/sys/bus/pci/devices/0000:03:00.0/class", "0x038000\n");
        expect_str(f->b, "/sys/bus/pci/devices/0000:00:02.0/class", "0x030000\n");
        expect_str(f->b, "/sys/bus/pci/devices/0000:03:00.0/drm/card0/dev", "226:0\n");
        expect_str(f->b, "/sys/class/drm/renderD129/dev", "226:129\n");
        expect_str(f->b, "/sys/class/kfd/kfd/topology/generation_id", "7\n");
        expect_str(f->b, "/sys/class/kfd/kfd/topology/nodes/2/gpu_id", "12261\n");
        expect_str(f->b, "/sys/class/kfd/kfd/topology/nodes/2/name", "aldebaran\n");
        expect_str(f->b, "/sys/class/kfd/kfd/topology/nodes/0/name", "\n");
        expect_str(f->b, "/sys/class/kfd/kfd/topology/nodes/1/gpu_id", "0\n");
        char *props = read_str(f->b, "/sys/class/kfd/kfd/topology/nodes/2/properties");
        assert_non_null(strstr(props, "\nvendor_id 4098\ndevice_id 29711\nlocation_id 768\ndomain 0\n"
                                      "drm_render_minor 128\n"));
        assert_non_null(strstr(props, "\nunique_id 16876665094921906997\n"));
        free(props);
        props = read_str(f->b, "/sys/class/kfd/kfd/topology/nodes/3/properties");
        assert_non_null(strstr(props, "\nlocation_id 9728\n"));
        free(props);
        /* no partition files without partition support; Intel has no KFD */
        struct ctk_node_info info;
        assert_int_equal(
            ctk_stat_node(f->b, "/sys/devices/pci0000:00/0000:03:00.0/current_compute_partition", &info, &err), -1);
        assert_int_equal(err->code, ENOENT);
        ctk_error_free(err);
        assert_string_equal(f->b->description, "profile test.json");
}

static void no_amdgpu(void **state)
{
        (void)state;
        struct ctk_fakefs_host *h =
            test_host("{\"amdgpu\": false, \"gpus\": [{\"pci\": \"0000:03:00.0\", \"device_id\": \"0x740f\", "
                      "\"card_minor\": 0, \"render_minor\": 128}]}");
        assert_false(host_exists(h, "/sys/module/amdgpu"));
        assert_false(host_exists(h, "/sys/class/kfd"));
        assert_false(host_exists(h, "/dev/kfd"));
        assert_false(host_exists(h, "/dev/dri"));
        assert_false(host_exists(h, "/sys/bus/pci/drivers/amdgpu"));
        assert_false(host_exists(h, "/sys/devices/pci0000:00/0000:03:00.0/driver"));
        assert_true(host_exists(h, "/sys/bus/pci/devices/0000:03:00.0"));
        char *v = host_read(h, "/sys/bus/pci/devices/0000:03:00.0/vendor");
        assert_string_equal(v, "0x1002\n");
        free(v);
        ctk_fakefs_host_unref(h);
}

static void backend_new_from_file(void **state)
{
        (void)state;
        struct ctk_error *err = NULL;
        struct ctk_backend *b = NULL;
        assert_int_equal(ctk_fakefs_backend_new("/nonexistent/profile.json", &b, &err), -1);
        assert_int_equal(err->code, ENOENT);
        assert_non_null(strstr(err->msg, "/nonexistent/profile.json"));
        ctk_error_free(err);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_setup_teardown(list_dir_is_sorted, setup, teardown),
            cmocka_unit_test_setup_teardown(errors_carry_errno, setup, teardown),
            cmocka_unit_test_setup_teardown(stat_of_device_nodes, setup, teardown),
            cmocka_unit_test_setup_teardown(layout_contract, setup, teardown),
            cmocka_unit_test(no_amdgpu),
            cmocka_unit_test(backend_new_from_file),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
