/* materialize: the directory tree holds exactly what the in-memory backend
 * answers (checked by walking the directory with plain syscalls).  Run
 * from the repository root; device nodes need root (CAP_MKNOD). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "backends/fakefs/backend.h"
#include "backends/fakefs/materialize.h"
#include "core/base/tests/scratch_dir.h"
#include "fakefs_test.h"

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *slurp(const char *path)
{
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        char *buf = calloc(1, 65536);
        ssize_t n = read(fd, buf, 65535);
        assert_true(n >= 0);
        close(fd);
        return buf;
}

/* Compares the directory `dir` + `path` with the backend's answers. */
static void compare(struct ctk_backend *b, const char *dir, const char *path, size_t *count)
{
        char *real = NULL;
        assert_true(asprintf(&real, "%s%s", dir, path) > 0);
        struct stat st;
        assert_int_equal(lstat(real, &st), 0);
        struct ctk_error *err = NULL;
        const char *bpath = path[0] ? path : "/";
        (*count)++;
        if (S_ISLNK(st.st_mode)) {
                char target[4096];
                ssize_t n = readlink(real, target, sizeof(target) - 1);
                assert_true(n > 0);
                target[n] = '\0';
                char *t = NULL;
                assert_int_equal(ctk_read_link(b, path, &t, &err), 0);
                assert_string_equal(t, target);
                free(t);
                free(real);
                return;
        }
        struct ctk_node_info info;
        if (ctk_stat_node(b, bpath, &info, &err) < 0)
                fail_msg("%s", err->msg);
        if (path[0] != '\0') { /* the target directory itself is the caller's */
                assert_int_equal(info.mode, st.st_mode & 07777);
                assert_int_equal(info.uid, st.st_uid);
                assert_int_equal(info.gid, st.st_gid);
        }
        if (S_ISCHR(st.st_mode)) {
                assert_int_equal(info.type, CTK_NODE_CHR);
                assert_int_equal(info.major, major(st.st_rdev));
                assert_int_equal(info.minor, minor(st.st_rdev));
        } else if (S_ISREG(st.st_mode)) {
                assert_int_equal(info.type, CTK_NODE_FILE);
                char *want = slurp(real), *got = NULL;
                assert_int_equal(ctk_read_file(b, path, &got, NULL, &err), 0);
                assert_string_equal(got, want);
                free(got);
                free(want);
        } else {
                assert_true(S_ISDIR(st.st_mode));
                assert_int_equal(info.type, CTK_NODE_DIR);
                DIR *d = opendir(real);
                assert_non_null(d);
                struct ctk_strv names = {0}, listed = {0};
                struct dirent *e;
                while ((e = readdir(d)) != NULL)
                        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
                                assert_int_equal(ctk_strv_push(&names, e->d_name), 0);
                closedir(d);
                if (names.n > 1)
                        qsort(names.v, names.n, sizeof(*names.v), cmp_str);
                assert_int_equal(ctk_list_dir(b, bpath, &listed, &err), 0);
                assert_int_equal(listed.n, names.n);
                for (size_t i = 0; i < names.n; i++) {
                        assert_string_equal(listed.v[i], names.v[i]);
                        char *sub = NULL;
                        assert_true(asprintf(&sub, "%s/%s", path, names.v[i]) > 0);
                        compare(b, dir, sub, count);
                        free(sub);
                }
                ctk_strv_clear(&names);
                ctk_strv_clear(&listed);
        }
        free(real);
}

static size_t count_nodes(const struct ctk_fakefs_node *n)
{
        size_t c = 1;
        for (size_t i = 0; i < n->nkids; i++)
                c += count_nodes(n->kids[i]);
        return c;
}

static void need_root(void)
{
        if (geteuid() != 0)
                skip(); /* mknod needs root (CAP_MKNOD) */
}

static void round_trip(const char *profile)
{
        struct ctk_error *err = NULL;
        struct ctk_fakefs_host *h = NULL;
        struct ctk_backend *b = NULL;
        if (ctk_fakefs_host_new(profile, &h, &err) < 0)
                fail_msg("%s", err->msg);
        assert_int_equal(ctk_fakefs_backend_from_host(h, &b, &err), 0);
        char dir[] = "/tmp/fakefs-materialize-XXXXXX";
        assert_non_null(scratch_dir_make(dir));
        struct ctk_fakefs_tree *t = ctk_fakefs_host_snapshot(h);
        if (ctk_fakefs_materialize(t, dir, &err) < 0)
                fail_msg("%s", err->msg);
        size_t count = 0;
        compare(b, dir, "", &count);
        /* every node of the tree was visited */
        assert_int_equal(count, count_nodes(t->root));
        /* a second materialize into the same directory is refused, nothing changes */
        assert_int_equal(ctk_fakefs_materialize(t, dir, &err), -1);
        assert_int_equal(err->code, EEXIST);
        ctk_error_free(err);
        ctk_fakefs_tree_unref(t);
        assert_int_equal(scratch_dir_remove(dir), 0);
        ctk_backend_free(b);
        ctk_fakefs_host_unref(h);
}

static void all_profiles(void **state)
{
        (void)state;
        need_root();
        const char *profiles[] = {"sim/profiles/seed-4xmi210.json",  "sim/profiles/mi210-xgmi-x8.json",
                                  "sim/profiles/mi300x-cpx-x8.json", "sim/profiles/mi308-x8.json",
                                  "sim/profiles/mi300x-spx-x8.json", "sim/profiles/mixed-vendor.json",
                                  "sim/profiles/no-amdgpu.json"};
        for (size_t i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++)
                round_trip(profiles[i]);
}

static void repartitioned_host(void **state)
{
        (void)state;
        need_root();
        struct ctk_fakefs_host *h = test_host("{\"gpus\": [{\"pci\": \"0000:05:00.0\", \"device_id\": \"0x74a1\", "
                                              "\"card_minor\": 0, \"render_minor\": 128, "
                                              "\"partition\": {\"xcds\": 8}}], \"xcp_name\": \"amdgpu_xcp.\"}");
        struct ctk_error *err = NULL;
        assert_int_equal(ctk_fakefs_host_set_compute_partition(h, "0000:05:00.0", "QPX", &err), 0);
        struct ctk_backend *b = NULL;
        assert_int_equal(ctk_fakefs_backend_from_host(h, &b, &err), 0);
        char dir[] = "/tmp/fakefs-materialize-XXXXXX";
        assert_non_null(scratch_dir_make(dir));
        struct ctk_fakefs_tree *t = ctk_fakefs_host_snapshot(h);
        assert_int_equal(ctk_fakefs_materialize(t, dir, &err), 0);
        size_t count = 0;
        compare(b, dir, "", &count);
        char *p = scratch_path(dir, "sys/devices/platform/amdgpu_xcp.2/drm/renderD131/dev");
        char *s = slurp(p);
        assert_string_equal(s, "226:131\n");
        free(s);
        free(p);
        ctk_fakefs_tree_unref(t);
        assert_int_equal(scratch_dir_remove(dir), 0);
        ctk_backend_free(b);
        ctk_fakefs_host_unref(h);
}

static void failure_leaves_nothing(void **state)
{
        (void)state;
        struct ctk_fakefs_host *h = test_host("{\"gpus\": []}");
        struct ctk_fakefs_tree *t = ctk_fakefs_host_snapshot(h);
        struct ctk_error *err = NULL;
        char dir[] = "/tmp/fakefs-materialize-XXXXXX";
        assert_non_null(scratch_dir_make(dir));
        char *dev = scratch_path(dir, "dev");
        assert_int_equal(mkdir(dev, 0755), 0);
        assert_int_equal(ctk_fakefs_materialize(t, dir, &err), -1);
        assert_int_equal(err->code, EEXIST);
        assert_non_null(strstr(err->msg, "/dev exists already"));
        ctk_error_free(err);
        err = NULL;
        struct stat st;
        char *sys = scratch_path(dir, "sys");
        assert_int_equal(stat(sys, &st), -1); /* nothing was created */
        rmdir(dev);
        free(sys);
        free(dev);
        rmdir(dir);
        ctk_fakefs_tree_unref(t);
        ctk_fakefs_host_unref(h);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(all_profiles),
            cmocka_unit_test(repartitioned_host),
            cmocka_unit_test(failure_leaves_nothing),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
