/* The sysfs backend over a directory tree created here: symlinks resolved
 * inside the root (absolute, relative, escaping), sorted listings, device
 * attributes from stat, errno codes.  Every test runs with openat2 and with
 * the fallback walk. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cmocka.h>

#include "backends/open.h"
#include "backends/sysfs/sysfs.h"
#include "core/base/base.h"
#include "core/device/device.h"
#include "core/base/tests/scratch_dir.h"

static char tree[] = "/tmp/ctk-sysfs-test-XXXXXX";

static void mkpath(const char *rel, mode_t mode)
{
        char *p = scratch_path(tree, rel);
        for (char *s = p + strlen(tree) + 1; *s; s++) {
                if (*s == '/') {
                        *s = '\0';
                        mkdir(p, 0755);
                        *s = '/';
                }
        }
        if (mode)
                mkdir(p, mode);
        free(p);
}

static void put(const char *rel, const char *content)
{
        mkpath(rel, 0);
        char *p = scratch_path(tree, rel);
        FILE *f = fopen(p, "we");
        assert_non_null(f);
        fputs(content, f);
        fclose(f);
        free(p);
}

static void link_(const char *rel, const char *target)
{
        mkpath(rel, 0);
        char *p = scratch_path(tree, rel);
        assert_int_equal(symlink(target, p), 0);
        free(p);
}

static int make_tree(void **state)
{
        (void)state;
        if (scratch_dir_make(tree) == NULL)
                return -1;
        put("sys/devices/pci0000:00/0000:03:00.0/vendor", "0x1002\n");
        put("sys/devices/pci0000:00/0000:03:00.0/class", "0x038000\r\n");
        mkpath("sys/devices/pci0000:00/0000:03:00.0/drm", 0755);
        link_("sys/bus/pci/devices/0000:03:00.0", "../../../devices/pci0000:00/0000:03:00.0");
        link_("sys/abs", "/sys/devices");             /* absolute: must mean <root>/sys/devices */
        link_("sys/escape", "../../../../../../etc"); /* climbs above the root: clamped at it */
        put("etc/marker", "inside\n");
        link_("sys/loop-a", "loop-b");
        link_("sys/loop-b", "loop-a");
        link_("sys/dangling", "nowhere");
        put("sys/order/c2", "");
        put("sys/order/b", "");
        put("sys/order/c10", "");
        put("sys/order/a", "");
        mkpath("sys/order/dir", 0755);
        mkpath("dev/dri/by-path", 0755);
        char *p = scratch_path(tree, "dev/kfd");
        if (mknod(p, S_IFCHR | 0666, makedev(238, 0)) < 0 || chown(p, 0, 44) < 0 || chmod(p, 0666) < 0)
                return -1;
        free(p);
        p = scratch_path(tree, "dev/dri/renderD128");
        if (mknod(p, S_IFCHR | 0660, makedev(226, 128)) < 0 || chown(p, 0, 109) < 0 || chmod(p, 0660) < 0)
                return -1;
        free(p);
        link_("dev/dri/by-path/pci-0000:03:00.0-render", "../renderD128");
        char big[10000];
        memset(big, 'x', sizeof(big) - 1);
        big[sizeof(big) - 1] = '\0';
        put("sys/big", big);
        /* a broken driver's endless attribute: one byte over the limit */
        put("sys/huge", "");
        char *huge = scratch_path(tree, "sys/huge");
        int r = truncate(huge, CTK_BACKEND_MAX_FILE + 1);
        free(huge);
        if (r < 0)
                return -1;
        return 0;
}

static int remove_tree(void **state)
{
        (void)state;
        return scratch_dir_remove(tree);
}

struct fixture {
        struct ctk_backend *b;
};

static int open_auto(void **state)
{
        struct fixture *f = calloc(1, sizeof(*f));
        struct ctk_error *err = NULL;
        if (f == NULL || ctk_sysfs_backend_new_mode(tree, CTK_RESOLVE_AUTO, &f->b, &err) < 0)
                return -1;
        *state = f;
        return 0;
}

static int open_manual(void **state)
{
        struct fixture *f = calloc(1, sizeof(*f));
        struct ctk_error *err = NULL;
        if (f == NULL || ctk_sysfs_backend_new_mode(tree, CTK_RESOLVE_MANUAL, &f->b, &err) < 0)
                return -1;
        *state = f;
        return 0;
}

static int close_backend(void **state)
{
        struct fixture *f = *state;
        ctk_backend_free(f->b);
        free(f);
        return 0;
}

static char *read_ok(struct ctk_backend *b, const char *path)
{
        char *out = NULL;
        size_t len = 0;
        _cleanup_error_ struct ctk_error *err = NULL;
        if (ctk_read_file(b, path, &out, &len, &err) < 0)
                fail_msg("%s: %s", path, err->msg);
        assert_int_equal(strlen(out), len);
        return out;
}

static int read_code(struct ctk_backend *b, const char *path)
{
        char *out = NULL;
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(ctk_read_file(b, path, &out, NULL, &err), -1);
        assert_null(out);
        assert_non_null(err);
        assert_non_null(strstr(err->msg, path)); /* the message names the path */
        return err->code;
}

static void test_read_through_links(void **state)
{
        struct ctk_backend *b = ((struct fixture *)*state)->b;
        _cleanup_free_ char *a = read_ok(b, "/sys/bus/pci/devices/0000:03:00.0/vendor");
        assert_string_equal(a, "0x1002\n");
        _cleanup_free_ char *c = read_ok(b, "/sys/devices/pci0000:00/0000:03:00.0/class");
        assert_string_equal(c, "0x038000\r\n");
        _cleanup_free_ char *abs = read_ok(b, "/sys/abs/pci0000:00/0000:03:00.0/vendor");
        assert_string_equal(abs, "0x1002\n");
        _cleanup_free_ char *dots = read_ok(b, "/sys/bus/../bus/./pci/devices/0000:03:00.0/../0000:03:00.0/vendor");
        assert_string_equal(dots, "0x1002\n");
        _cleanup_free_ char *big = read_ok(b, "/sys/big");
        assert_int_equal(strlen(big), 9999);
}

static void test_links_stay_inside_root(void **state)
{
        struct ctk_backend *b = ((struct fixture *)*state)->b;
        _cleanup_free_ char *m = read_ok(b, "/sys/escape/marker");
        assert_string_equal(m, "inside\n");
        _cleanup_free_ char *m2 = read_ok(b, "/../../../etc/marker");
        assert_string_equal(m2, "inside\n");
        /* The host's /etc/hostname style files are not reachable through the link. */
        assert_int_equal(read_code(b, "/sys/escape/passwd"), ENOENT);
}

static void test_error_codes(void **state)
{
        struct ctk_backend *b = ((struct fixture *)*state)->b;
        assert_int_equal(read_code(b, "/sys/missing/file"), ENOENT);
        assert_int_equal(read_code(b, "/sys/dangling"), ENOENT);
        assert_int_equal(read_code(b, "/sys/loop-a"), ELOOP);
        assert_int_equal(read_code(b, "/sys/order"), EISDIR);
        assert_int_equal(read_code(b, "/sys/order/a/x"), ENOTDIR);
        assert_int_equal(read_code(b, "/sys/huge"), EFBIG); /* not read whole */

        _cleanup_strv_ struct ctk_strv names = {0};
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(ctk_list_dir(b, "/sys/order/a", &names, &err), -1);
        assert_int_equal(err->code, ENOTDIR);
        ctk_error_free(err);
        err = NULL;
        assert_int_equal(ctk_list_dir(b, "/nope", &names, &err), -1);
        assert_int_equal(err->code, ENOENT);
        ctk_error_free(err);
        err = NULL;

        struct ctk_node_info info;
        assert_int_equal(ctk_stat_node(b, "/dev/dri/renderD129", &info, &err), -1);
        assert_int_equal(err->code, ENOENT);
        assert_non_null(strstr(err->msg, "/dev/dri/renderD129"));
        ctk_error_free(err);
        err = NULL;

        char *target = NULL;
        assert_int_equal(ctk_read_link(b, "/sys/order/a", &target, &err), -1);
        assert_int_equal(err->code, EINVAL);
        ctk_error_free(err);
        err = NULL;
        assert_int_equal(ctk_read_link(b, "/sys/nolink", &target, &err), -1);
        assert_int_equal(err->code, ENOENT);
        assert_int_equal(ctk_read_file(b, "relative/path", &target, NULL, &err), -1);
}

static void test_list_sorted(void **state)
{
        struct ctk_backend *b = ((struct fixture *)*state)->b;
        _cleanup_strv_ struct ctk_strv names = {0};
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(ctk_list_dir(b, "/sys/order", &names, &err), 0);
        assert_int_equal(names.n, 5);
        const char *want[] = {"a", "b", "c10", "c2", "dir"};
        for (size_t i = 0; i < 5; i++)
                assert_string_equal(names.v[i], want[i]);
        /* Through a link in the middle and at the end of the path. */
        assert_int_equal(ctk_list_dir(b, "/sys/bus/pci/devices/0000:03:00.0", &names, &err), 0);
        assert_int_equal(names.n, 3);
        assert_string_equal(names.v[0], "class");
        assert_string_equal(names.v[1], "drm");
        assert_string_equal(names.v[2], "vendor");
        assert_int_equal(ctk_list_dir(b, "/", &names, &err), 0);
        assert_int_equal(names.n, 3);
        assert_string_equal(names.v[0], "dev");
}

static void test_stat_nodes(void **state)
{
        struct ctk_backend *b = ((struct fixture *)*state)->b;
        struct ctk_node_info info;
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(ctk_stat_node(b, "/dev/kfd", &info, &err), 0);
        assert_int_equal(info.type, CTK_NODE_CHR);
        assert_int_equal(info.major, 238);
        assert_int_equal(info.minor, 0);
        assert_int_equal(info.mode, 0666);
        assert_int_equal(info.uid, 0);
        assert_int_equal(info.gid, 44);
        /* stat_node follows a final link */
        assert_int_equal(ctk_stat_node(b, "/dev/dri/by-path/pci-0000:03:00.0-render", &info, &err), 0);
        assert_int_equal(info.type, CTK_NODE_CHR);
        assert_int_equal(info.major, 226);
        assert_int_equal(info.minor, 128);
        assert_int_equal(info.mode, 0660);
        assert_int_equal(info.gid, 109);
        assert_int_equal(ctk_stat_node(b, "/sys/bus/pci/devices/0000:03:00.0", &info, &err), 0);
        assert_int_equal(info.type, CTK_NODE_DIR);
        assert_int_equal(info.major, 0);
        assert_int_equal(ctk_stat_node(b, "/sys/order/a", &info, &err), 0);
        assert_int_equal(info.type, CTK_NODE_FILE);
}

static void test_read_link(void **state)
{
        struct ctk_backend *b = ((struct fixture *)*state)->b;
        _cleanup_error_ struct ctk_error *err = NULL;
        char *t = NULL;
        assert_int_equal(ctk_read_link(b, "/dev/dri/by-path/pci-0000:03:00.0-render", &t, &err), 0);
        assert_string_equal(t, "../renderD128");
        free(t);
        assert_int_equal(ctk_read_link(b, "/sys/abs", &t, &err), 0);
        assert_string_equal(t, "/sys/devices");
        free(t);
        assert_int_equal(ctk_read_link(b, "/sys/dangling", &t, &err), 0);
        assert_string_equal(t, "nowhere");
        free(t);
        /* a link in the middle of the path is followed, the last one is read */
        assert_int_equal(ctk_read_link(b, "/sys/abs/../bus/pci/devices/0000:03:00.0", &t, &err), 0);
        assert_string_equal(t, "../../../devices/pci0000:00/0000:03:00.0");
        free(t);
        assert_null(err);
}

static void test_root_slash_and_bad_root(void **state)
{
        (void)state;
        _cleanup_error_ struct ctk_error *err = NULL;
        struct ctk_backend *b = NULL;
        assert_int_equal(ctk_backend_open(NULL, NULL, &b, &err), 0);
        assert_string_equal(b->description, "root /");
        char *path = scratch_path(tree, "sys/bus/pci/devices/0000:03:00.0/vendor");
        _cleanup_free_ char *v = read_ok(b, path);
        assert_string_equal(v, "0x1002\n");
        free(path);
        ctk_backend_free(b);
        b = NULL;

        assert_int_equal(ctk_sysfs_backend_new("/nonexistent-root-dir", &b, &err), -1);
        assert_null(b);
        assert_int_equal(err->code, ENOENT);
        assert_non_null(strstr(err->msg, "/nonexistent-root-dir"));
        ctk_error_free(err);
        err = NULL;
        assert_int_equal(ctk_backend_open("/a", "/b", &b, &err), -1);
        assert_int_equal(err->code, EINVAL);

        /* a trailing slash on the root changes nothing */
        char *root = NULL;
        assert_true(asprintf(&root, "%s/", tree) > 0);
        ctk_error_free(err);
        err = NULL;
        assert_int_equal(ctk_sysfs_backend_new(root, &b, &err), 0);
        free(root);
        char *out = NULL;
        assert_int_equal(ctk_read_file(b, "/sys/nothing", &out, NULL, &err), -1);
        char *want = NULL;
        assert_true(asprintf(&want, "reading %s/sys/nothing: ", tree) > 0);
        assert_memory_equal(err->msg, want, strlen(want));
        free(want);
        ctk_backend_free(b);
}

/* Several entries of a directory stat'ed at once give what stat_node gives;
 * links and anything unusual are left to stat_node. */
static void test_stat_entries(void **state)
{
        struct fixture *f = *state;
        const char *const names[] = {"renderD128", "by-path", "missing", "..", "by-path/x", ""};
        enum { N = sizeof(names) / sizeof(names[0]) };
        struct ctk_node_info info[N];
        bool done[N];
        assert_non_null(f->b->ops->stat_entries);
        f->b->ops->stat_entries(f->b->ctx, "/dev/dri", names, N, info, done);
        const bool want_done[N] = {true, true, false, false, false, false};
        for (size_t i = 0; i < N; i++) {
                assert_int_equal(done[i], want_done[i]);
                if (!done[i])
                        continue;
                char *path = NULL;
                assert_true(asprintf(&path, "/dev/dri/%s", names[i]) > 0);
                struct ctk_node_info one;
                struct ctk_error *err = NULL;
                assert_int_equal(ctk_stat_node(f->b, path, &one, &err), 0);
                assert_memory_equal(&one, &info[i], sizeof(one));
                free(path);
        }
        const char *const links[] = {"pci-0000:03:00.0-render"};
        f->b->ops->stat_entries(f->b->ctx, "/dev/dri/by-path", links, 1, info, done);
        assert_false(done[0]); /* a link: stat_node follows it within the root */
        f->b->ops->stat_entries(f->b->ctx, "/dev/none", names, 1, info, done);
        assert_false(done[0]);

        /* Through ctk_devnode_stat_many: links followed, errors worded as
         * ctk_devnode_stat words them, nothing left behind on failure. */
        const char *const paths[] = {"/dev/dri/renderD128", "/dev/dri/by-path/pci-0000:03:00.0-render", "/dev/kfd",
                                     "/dev/dri/renderD128"};
        struct ctk_devnode nodes[4];
        size_t failed = 99;
        struct ctk_error *err = NULL;
        assert_int_equal(ctk_devnode_stat_many(f->b, paths, 4, nodes, &failed, &err), 0);
        assert_int_equal(nodes[0].major, 226);
        assert_int_equal(nodes[0].minor, 128);
        assert_int_equal(nodes[0].gid, 109);
        assert_int_equal(nodes[0].mode, 0660);
        assert_string_equal(nodes[1].path, "/dev/dri/by-path/pci-0000:03:00.0-render");
        assert_int_equal(nodes[1].minor, 128);
        assert_int_equal(nodes[2].major, 238);
        assert_int_equal(nodes[3].minor, 128);
        for (int i = 0; i < 4; i++)
                ctk_devnode_clear(&nodes[i]);
        const char *const bad[] = {"/dev/dri/renderD128", "/dev/dri/missing", "/dev/dri/renderD128"};
        assert_int_equal(ctk_devnode_stat_many(f->b, bad, 3, nodes, &failed, &err), -1);
        assert_int_equal(failed, 1);
        assert_string_equal(err->msg, "device node /dev/dri/missing does not exist");
        for (int i = 0; i < 3; i++)
                assert_null(nodes[i].path);
        ctk_error_free(err);
        err = NULL;
        const char *const notdev[] = {"/dev/dri/renderD128", "/dev/dri/by-path"};
        assert_int_equal(ctk_devnode_stat_many(f->b, notdev, 2, nodes, &failed, &err), -1);
        assert_int_equal(failed, 1);
        assert_string_equal(err->msg, "device node /dev/dri/by-path: not a character or block device");
        ctk_error_free(err);
}

#define BOTH(t)                                                                                                        \
        {#t " (openat2)", t, open_auto, close_backend, NULL},                                                          \
        {                                                                                                              \
#t " (walk)", t, open_manual, close_backend, NULL                                                      \
        }

int main(void)
{
        const struct CMUnitTest tests[] = {
            BOTH(test_read_through_links), BOTH(test_links_stay_inside_root),
            BOTH(test_error_codes),        BOTH(test_list_sorted),
            BOTH(test_stat_nodes),         BOTH(test_stat_entries),
            BOTH(test_read_link),          cmocka_unit_test(test_root_slash_and_bad_root),
        };
        return cmocka_run_group_tests(tests, make_tree, remove_tree);
}
