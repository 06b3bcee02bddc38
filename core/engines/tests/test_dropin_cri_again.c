/* containerd's drop-in: a CRI section written where it cannot be copied
 * faithfully, or a config schema other than the drop-in's, is one error at
 * its line:column; running again gives the same drop-in, and an edit of the
 * section is followed; line ends are kept. */
#include "core/engines/tests/cri_flat.h"

static void refused(const char *src, int version, const char *want)
{
        struct ctk_dropin d = dropin(src, false);
        d.containerd_version = version;
        char *out = NULL;
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(ctk_dropin_text(&d, &out, &err), -1);
        assert_null(out);
        if (strncmp(err->msg, want, strlen(want)) != 0)
                fail_msg("\"%s\" does not start with \"%s\"", err->msg, want);
}

/* A CRI section reached into from a parent table, or containerd's tables
 * defined by dotted keys or inline tables, cannot be copied faithfully:
 * one error at its line:column saying what to write instead. */
static void test_refusals(void **state)
{
        (void)state;
        refused("version = 2\n[plugins]\n  \"io.containerd.grpc.v1.cri\".enable_cdi = true\n", 2,
                "config.toml:3:3: a dotted key sets the CRI plugin's settings from outside its tables, which amd-ctk "
                "cannot copy into its drop-in (containerd before 2.1 replaces the whole section with the drop-in's): "
                "write that part with [plugins.\"io.containerd.grpc.v1.cri\"] table headers (or headers of the "
                "tables below it) and plain keys, then run this again");
        refused("version = 2\nplugins.\"io.containerd.grpc.v1.cri\".containerd.snapshotter = \"x\"\n", 2,
                "config.toml:2:1: a dotted key sets the CRI plugin's settings from outside");
        refused("version = 2\n[plugins]\n\"io.containerd.grpc.v1.cri\" = { sandbox_image = \"x\" }\n", 2,
                "config.toml:3:1: a dotted key sets the CRI plugin's settings from outside");
        refused("version = 2\nplugins = { \"io.containerd.grpc.v1.cri\" = { sandbox_image = \"x\" } }\n", 2,
                "config.toml:2:1: an inline table may hold the CRI plugin's section");
        refused("version = 2\n[plugins.\"io.containerd.grpc.v1.cri\"]\n  containerd.snapshotter = \"x\"\n", 2,
                "config.toml:3:3: a dotted key or an inline table defines a table of the CRI plugin's containerd");
        refused("version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc]\n"
                "  options = { SystemdCgroup = true }\n",
                2, "config.toml:3:3: a dotted key or an inline table defines a table");
        refused("version = 2\n[[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes]]\n", 2,
                "config.toml:2:1: an array of tables stands where containerd reads a table");
        refused("version = 2\n[[plugins]]\n", 2, "config.toml:2:1: an array of tables holds the CRI plugin's section");
        /* the schemas of the two files must agree; no version is version 1 */
        refused("version = 2\n[plugins.x]\n", 3,
                "config.toml:1:1: this file is containerd's config version 2, the drop-in would be version 3");
        refused("# old\n[plugins.cri]\n  sandbox_image = \"x\"\n", 2,
                "config.toml:2:1: containerd reads this file in its version 1 form");
        refused("version = 1\n", 2, "config.toml:1:1: containerd reads this file in its version 1 form");
        /* what TOML forbids, in the section: a table or a key twice (the TOML reader says it) */
        refused("version = 2\n[plugins.\"io.containerd.grpc.v1.cri\"]\n[plugins.'io.containerd.grpc.v1.cri']\n", 2,
                "config.toml:3:1: table [plugins.\"io.containerd.grpc.v1.cri\"] is defined twice, which TOML forbids "
                "(first at line 2): remove one of the two");
        refused(
            "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".cni]\n  bin_dir = \"/a\"\n  \"bin_dir\" = \"/b\"\n", 2,
            "config.toml:4:3: key plugins.\"io.containerd.grpc.v1.cri\".cni.bin_dir is defined twice, which TOML "
            "forbids (first at line 3)");
        /* a dotted key elsewhere in the section, or outside it, is copied or left alone */
        const char *fine = "version = 2\nroot = \"/r\"\n[plugins.x]\n  a.b = 1\n"
                           "[plugins.\"io.containerd.grpc.v1.cri\".registry]\n"
                           "  mirrors.\"docker.io\" = { endpoint = [\"https://m\"] }\n";
        struct flat f;
        _cleanup_free_ char *out = configure(fine, false, &f);
        flat_clear(&f);
        assert_non_null(strstr(out, "\n  mirrors.\"docker.io\" = { endpoint = [\"https://m\"] }\n"));
}

/* Running again: the same drop-in (config.toml importing it changes
 * nothing); after an edit of the section, the copy follows it. */
static void test_again(void **state)
{
        (void)state;
        _cleanup_free_ char *src = fixture("containerd-1.7-default.toml");
        struct ctk_dropin d = dropin(src, false);
        _cleanup_free_ char *first = made(&d);
        char *imported = NULL;
        int version;
        assert_int_equal(ctk_dropin_containerd_imports(src, strlen(src), "config.toml",
                                                       "/etc/containerd/conf.d/99-amd.toml", true, 2, &imported,
                                                       &version, NULL),
                         0);
        d = dropin(imported, false);
        _cleanup_free_ char *second = made(&d);
        assert_string_equal(first, second);
        char *at = strstr(imported, "sandbox_image = \"registry.k8s.io/pause:3.8\"");
        assert_non_null(at);
        at[strlen("sandbox_image = \"registry.k8s.io/pause:3.")] = '9';
        d = dropin(imported, false);
        _cleanup_free_ char *third = made(&d);
        assert_non_null(strstr(third, "sandbox_image = \"registry.k8s.io/pause:3.9\"\n"));
        assert_null(strstr(third, "pause:3.8"));
        free(imported);
}

/* Lines ending in CRLF and a last line without a newline are copied whole. */
static void test_line_ends(void **state)
{
        (void)state;
        const char *src = "version = 2\r\n[plugins.\"io.containerd.grpc.v1.cri\".cni]\r\n  bin_dir = \"/usr/lib/cni\"";
        struct flat f;
        _cleanup_free_ char *out = configure(src, false, &f);
        flat_clear(&f);
        assert_non_null(strstr(out, "\n[plugins.\"io.containerd.grpc.v1.cri\".cni]\r\n  bin_dir = \"/usr/lib/cni\"\n"));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_refusals),
            cmocka_unit_test(test_again),
            cmocka_unit_test(test_line_ends),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
