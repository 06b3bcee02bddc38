/* Fault rules of the FUSE fake host: parsing, matching, listing, clear. */
#include <errno.h>
#include <unistd.h>

#include "backends/fakefs/faults.h"
#include "fakefs_test.h"

static const char *const host_json =
    "{\"gpus\": [{\"pci\": \"0000:03:00.0\", \"device_id\": \"0x740f\", \"card_minor\": 0, \"render_minor\": 128},"
    " {\"pci\": \"0000:26:00.0\", \"device_id\": \"0x740f\", \"card_minor\": 1, \"render_minor\": 129}]}";

struct fixture {
        struct ctk_fakefs_host *host;
        struct ctk_fakefs_faults *f;
};

static int setup(void **state)
{
        struct fixture *fx = calloc(1, sizeof(*fx));
        struct ctk_error *err = NULL;
        fx->host = test_host(host_json);
        if (ctk_fakefs_faults_new(fx->host, &fx->f, &err) < 0)
                return -1;
        *state = fx;
        return 0;
}

static int teardown(void **state)
{
        struct fixture *fx = *state;
        ctk_fakefs_faults_free(fx->f);
        ctk_fakefs_host_unref(fx->host);
        free(fx);
        return 0;
}

static void apply_ok(struct ctk_fakefs_faults *f, const char *text)
{
        struct ctk_error *err = NULL;
        if (ctk_fakefs_faults_apply(f, text, "ctl", &err) < 0)
                fail_msg("%s", err->msg);
}

static void expect_list(struct ctk_fakefs_faults *f, const char *want)
{
        char *s = ctk_fakefs_faults_list(f);
        assert_non_null(s);
        assert_string_equal(s, want);
        free(s);
}

static void matching(void **state)
{
        struct fixture *fx = *state;
        apply_ok(fx->f, "eio /sys/class/kfd/kfd/topology/nodes/*/properties\n"
                        "enoent /sys/devices/platform/amdgpu_xcp_*\n"
                        "delay 250 /sys/class/kfd/kfd/topology/generation_id\n");
        unsigned int delay;
        const char *props = "/sys/class/kfd/kfd/topology/nodes/3/properties";
        assert_int_equal(ctk_fakefs_faults_check(fx->f, props, true, &delay), EIO);
        assert_int_equal(delay, 0);
        /* stat still works on an eio path */
        assert_int_equal(ctk_fakefs_faults_check(fx->f, props, false, &delay), 0);
        /* '*' does not cross '/' */
        assert_int_equal(
            ctk_fakefs_faults_check(fx->f, "/sys/class/kfd/kfd/topology/nodes/3/x/properties", true, &delay), 0);
        assert_int_equal(ctk_fakefs_faults_check(fx->f, "/sys/devices/platform/amdgpu_xcp_3", false, &delay), ENOENT);
        assert_true(ctk_fakefs_faults_hidden(fx->f, "/sys/devices/platform/amdgpu_xcp_3"));
        assert_false(ctk_fakefs_faults_hidden(fx->f, "/sys/devices/platform"));
        assert_false(ctk_fakefs_faults_hidden(fx->f, props));
        assert_int_equal(ctk_fakefs_faults_check(fx->f, "/sys/class/kfd/kfd/topology/generation_id", true, &delay), 0);
        assert_int_equal(delay, 250);
        expect_list(fx->f, "eio /sys/class/kfd/kfd/topology/nodes/*/properties\n"
                           "enoent /sys/devices/platform/amdgpu_xcp_*\n"
                           "delay 250 /sys/class/kfd/kfd/topology/generation_id\n");
}

static void unplug_plug_clear(void **state)
{
        struct fixture *fx = *state;
        apply_ok(fx->f, "# comment\n\n  unplug   0000:26:00.0  \r\neio /x\n");
        assert_false(host_exists(fx->host, "/sys/bus/pci/devices/0000:26:00.0"));
        expect_list(fx->f, "eio /x\nunplug 0000:26:00.0\n");
        apply_ok(fx->f, "plug 0000:26:00.0");
        assert_true(host_exists(fx->host, "/sys/bus/pci/devices/0000:26:00.0"));
        apply_ok(fx->f, "unplug 0000:03:00.0\nunplug 0000:26:00.0\n");
        expect_list(fx->f, "eio /x\nunplug 0000:03:00.0\nunplug 0000:26:00.0\n");
        apply_ok(fx->f, "clear\n");
        expect_list(fx->f, "");
        assert_true(host_exists(fx->host, "/sys/bus/pci/devices/0000:03:00.0"));
        assert_true(host_exists(fx->host, "/sys/bus/pci/devices/0000:26:00.0"));
}

static void expect_error(struct ctk_fakefs_faults *f, const char *text, int code, const char *want)
{
        struct ctk_error *err = NULL;
        assert_int_equal(ctk_fakefs_faults_apply(f, text, "rules", &err), -1);
        assert_int_equal(err->code, code);
        if (strstr(err->msg, want) == NULL)
                fail_msg("\"%s\" does not contain \"%s\"", err->msg, want);
        ctk_error_free(err);
}

static void bad_rules(void **state)
{
        struct fixture *fx = *state;
        expect_error(fx->f, "explode /sys", EINVAL, "rules:1: expected");
        expect_error(fx->f, "eio relative/path", EINVAL, "rules:1:");
        expect_error(fx->f, "eio /a /b", EINVAL, "rules:1:");
        expect_error(fx->f, "eio", EINVAL, "rules:1:");
        expect_error(fx->f, "delay x /sys", EINVAL, "rules:1:");
        expect_error(fx->f, "delay 60001 /sys", EINVAL, "MS up to 60000");
        expect_error(fx->f, "clear now", EINVAL, "rules:1:");
        expect_error(fx->f, "huge 1099511627777 /sys", EINVAL, "huge BYTES GLOB");
        expect_error(fx->f, "huge -1 /sys", EINVAL, "rules:1:");
        expect_error(fx->f, "huge 10 sys", EINVAL, "rules:1:");
        /* the lines before a bad one stay applied */
        expect_error(fx->f, "eio /a\n\nbogus", EINVAL, "rules:3:");
        expect_error(fx->f, "unplug 0000:99:00.0", ENOENT, "no GPU at PCI address 0000:99:00.0");
        expect_list(fx->f, "eio /a\n");
}

/* huge: the size a matching file claims, the latest rule winning; listed. */
static void huge_files(void **state)
{
        struct fixture *fx = *state;
        assert_int_equal(ctk_fakefs_faults_apply(fx->f, "huge 4096 /sys/*/p\nhuge 1073741824 /sys/a/p", "t", NULL), 0);
        assert_int_equal(ctk_fakefs_faults_size(fx->f, "/sys/a/p"), 1073741824);
        assert_int_equal(ctk_fakefs_faults_size(fx->f, "/sys/b/p"), 4096);
        assert_int_equal(ctk_fakefs_faults_size(fx->f, "/sys/b/q"), 0);
        expect_list(fx->f, "huge 4096 /sys/*/p\nhuge 1073741824 /sys/a/p\n");
        assert_int_equal(ctk_fakefs_faults_apply(fx->f, "clear", "t", NULL), 0);
        assert_int_equal(ctk_fakefs_faults_size(fx->f, "/sys/a/p"), 0);
}

static void faults_file(void **state)
{
        struct fixture *fx = *state;
        struct ctk_error *err = NULL;
        char path[] = "/tmp/fakefs-faults-XXXXXX";
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        const char *text = "unplug 0000:03:00.0\nenoent /dev/kfd";
        assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
        close(fd);
        assert_int_equal(ctk_fakefs_faults_apply_file(fx->f, path, &err), 0);
        expect_list(fx->f, "enoent /dev/kfd\nunplug 0000:03:00.0\n");
        unlink(path);
        assert_int_equal(ctk_fakefs_faults_apply_file(fx->f, path, &err), -1);
        assert_int_equal(err->code, ENOENT);
        assert_non_null(strstr(err->msg, path));
        ctk_error_free(err);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_setup_teardown(matching, setup, teardown),
            cmocka_unit_test_setup_teardown(unplug_plug_clear, setup, teardown),
            cmocka_unit_test_setup_teardown(bad_rules, setup, teardown),
            cmocka_unit_test_setup_teardown(huge_files, setup, teardown),
            cmocka_unit_test_setup_teardown(faults_file, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
