/* containerd's drop-in: a copy of config.toml's whole CRI plugin section
 * (every table and key, values byte for byte) with the amd runtime, CDI and
 * the default runtime set in it, from Debian 12's and 13's files (1.6 and
 * 1.7's `containerd config default`, the config.toml Debian ships), no
 * file, an empty one, an amd runtime or a default already there, schema 3;
 * keys of ours replace the copy's.  (Refusals and running again:
 * test_dropin_cri_again.c.) */
#include "core/engines/tests/cri_flat.h"

/* Debian 12's (1.6) and 13's (1.7) `containerd config default`: the whole
 * section, enable_cdi replaced, amd a copy of runc with our BinaryName. */
static void test_defaults(void **state)
{
        (void)state;
        static const char *const files[] = {"containerd-1.6-default.toml", "containerd-1.7-default.toml"};
        for (size_t i = 0; i < 2; i++) {
                for (int set_default = 0; set_default < 2; set_default++) {
                        _cleanup_free_ char *src = fixture(files[i]);
                        struct flat f;
                        _cleanup_free_ char *out = configure(src, set_default, &f);
                        has(&f, "version", "2");
                        has(&f, CRI "enable_cdi", "true");
                        has(&f, CRI "cdi_spec_dirs", "[\"/etc/cdi\", \"/var/run/cdi\"]");
                        has(&f, CRI "containerd/default_runtime_name", set_default ? "\"amd\"" : "\"runc\"");
                        has(&f, AMD "runtime_type", "\"io.containerd.runc.v2\"");
                        has(&f, AMD "options/BinaryName", PATH_RT);
                        has(&f, AMD "options/SystemdCgroup", "false"); /* runc's, copied */
                        has(&f, AMD "privileged_without_host_devices", "false");
                        has(&f, RUNC "options/BinaryName", "\"\"");
                        flat_clear(&f);
                }
        }
}

/* The config.toml Debian 12 and 13 ship: a CRI section without runtimes,
 * so runc (containerd's default) is defined beside ours. */
static void test_debian_file(void **state)
{
        (void)state;
        _cleanup_free_ char *src = fixture("containerd-debian-config.toml");
        struct flat f;
        _cleanup_free_ char *out = configure(src, true, &f);
        assert_non_null(strstr(out, "\n  [plugins.\"io.containerd.grpc.v1.cri\"]\n"
                                    "    enable_cdi = true\n"
                                    "    cdi_spec_dirs = [\"/etc/cdi\", \"/var/run/cdi\"]\n\n"
                                    "    [plugins.\"io.containerd.grpc.v1.cri\".cni]\n"
                                    "      bin_dir = \"/usr/lib/cni\"\n"
                                    "      conf_dir = \"/etc/cni/net.d\"\n"));
        has(&f, CRI "containerd/default_runtime_name", "\"amd\"");
        has(&f, RUNC "runtime_type", "\"io.containerd.runc.v2\"");
        has(&f, AMD "options/BinaryName", PATH_RT);
        assert_null(flat_get(&f, "plugins/io.containerd.internal.v1.opt/path"));
        flat_clear(&f);
}

static const char plain[] =
    CTK_DROPIN_MARK "\n"
                    "# containerd before 2.1 replaces a plugin's whole section of config.toml with\n"
                    "# the one of an imported file, so this file holds a copy of config.toml's\n"
                    "# [plugins.\"io.containerd.grpc.v1.cri\"] section, with the amd runtime\n"
                    "# and CDI set in it.  After editing that section of config.toml, run\n"
                    "# amd-ctk runtime configure again.\n"
                    "version = 2\n"
                    "\n[plugins.\"io.containerd.grpc.v1.cri\"]\n"
                    "  enable_cdi = true\n"
                    "  cdi_spec_dirs = [\"/etc/cdi\", \"/var/run/cdi\"]\n"
                    "\n[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.amd]\n"
                    "  runtime_type = \"io.containerd.runc.v2\"\n"
                    "\n[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.amd.options]\n"
                    "  BinaryName = \"/usr/bin/amd-container-runtime\"\n"
                    "\n[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc]\n"
                    "  runtime_type = \"io.containerd.runc.v2\"\n";

/* No file, an empty one, one without a CRI section: the runtime the
 * CRI plugin's built-in default names (runc) is defined beside ours. */
static void test_no_section(void **state)
{
        (void)state;
        static const char *const sources[] = {NULL, "", "# nothing\n", "version = 2\n[plugins.x]\n  a = 1\n"};
        for (size_t i = 0; i < 4; i++) {
                struct ctk_dropin d = dropin(sources[i], false);
                _cleanup_free_ char *out = made(&d);
                assert_string_equal(out, plain);
        }
        struct ctk_dropin d = dropin(NULL, true);
        _cleanup_free_ char *out = made(&d);
        assert_non_null(strstr(out, "\n[plugins.\"io.containerd.grpc.v1.cri\".containerd]\n"
                                    "  default_runtime_name = \"amd\"\n"));
        struct flat f;
        flatten(out, &f);
        has(&f, RUNC "runtime_type", "\"io.containerd.runc.v2\"");
        flat_clear(&f);
}

/* An amd runtime and amd as the default in config.toml: ours replaces
 * theirs (a copy of runc's), the default goes unless --set-as-default. */
static void test_existing_amd(void **state)
{
        (void)state;
        const char *src = "version = 2\n"
                          "[plugins.\"io.containerd.grpc.v1.cri\".containerd]\n"
                          "  default_runtime_name = \"amd\"\n"
                          "  snapshotter = \"overlayfs\"\n"
                          "[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.\"amd\"]\n"
                          "  runtime_type = \"io.containerd.runc.v2\"\n"
                          "  privileged_without_host_devices = true\n"
                          "[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.amd.options]\n"
                          "  BinaryName = \"/old/amd-container-runtime\"\n"
                          "[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc]\n"
                          "  runtime_type = \"io.containerd.runc.v2\"\n"
                          "[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc.options]\n"
                          "  SystemdCgroup = true\n";
        for (int set_default = 0; set_default < 2; set_default++) {
                struct flat f;
                _cleanup_free_ char *out = configure(src, set_default, &f);
                if (set_default)
                        has(&f, CRI "containerd/default_runtime_name", "\"amd\"");
                else
                        assert_null(flat_get(&f, CRI "containerd/default_runtime_name"));
                has(&f, CRI "containerd/snapshotter", "\"overlayfs\"");
                has(&f, AMD "options/BinaryName", PATH_RT);
                has(&f, AMD "options/SystemdCgroup", "true");
                assert_null(flat_get(&f, AMD "privileged_without_host_devices"));
                assert_null(strstr(out, "/old/"));
                flat_clear(&f);
        }
}

/* default_runtime_name set: ours copies that runtime when it is of runc's
 * kind (else runc's, else a plain one); runc is added only when it is the
 * default or the section has no runtime. */
static void test_default_runtime_name(void **state)
{
        (void)state;
        const char *crun = "version = 2\n"
                           "[plugins.\"io.containerd.grpc.v1.cri\".containerd]\n"
                           "  default_runtime_name = \"crun\"\n"
                           "[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.crun]\n"
                           "  runtime_type = \"io.containerd.runc.v2\"\n"
                           "[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.crun.options]\n"
                           "  BinaryName = \"/usr/bin/crun\"\n"
                           "  SystemdCgroup = true\n";
        struct flat f;
        _cleanup_free_ char *out = configure(crun, false, &f);
        has(&f, CRI "containerd/default_runtime_name", "\"crun\"");
        has(&f, AMD "options/SystemdCgroup", "true");
        has(&f, AMD "options/BinaryName", PATH_RT);
        has(&f, CRI "containerd/runtimes/crun/options/BinaryName", "\"/usr/bin/crun\"");
        assert_null(flat_get(&f, RUNC "runtime_type"));
        flat_clear(&f);
        /* a default of another kind (kata's shim) is not copied */
        const char *kata = "version = 2\n"
                           "[plugins.\"io.containerd.grpc.v1.cri\".containerd]\n"
                           "  default_runtime_name = \"kata\"\n"
                           "[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.kata]\n"
                           "  runtime_type = \"io.containerd.kata.v2\"\n"
                           "[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.kata.options]\n"
                           "  ConfigPath = \"/etc/kata/configuration.toml\"\n";
        _cleanup_free_ char *out2 = configure(kata, false, &f);
        has(&f, AMD "runtime_type", "\"io.containerd.runc.v2\"");
        assert_null(flat_get(&f, AMD "options/ConfigPath"));
        assert_null(flat_get(&f, RUNC "runtime_type"));
        flat_clear(&f);
}

/* enable_cdi and cdi_spec_dirs already there: replaced, never twice */
static void test_cdi_already_set(void **state)
{
        (void)state;
        const char *src = "version = 2\n"
                          "[plugins.\"io.containerd.grpc.v1.cri\"]\n"
                          "  enable_cdi = true\n"
                          "  \"cdi_spec_dirs\" = [\"/opt/cdi\"]\n"
                          "  sandbox_image = \"registry.k8s.io/pause:3.8\" # kept\n";
        struct flat f;
        _cleanup_free_ char *out = configure(src, false, &f);
        flat_clear(&f);
        assert_non_null(strstr(out, "\n[plugins.\"io.containerd.grpc.v1.cri\"]\n"
                                    "  sandbox_image = \"registry.k8s.io/pause:3.8\" # kept\n"
                                    "  enable_cdi = true\n"
                                    "  cdi_spec_dirs = [\"/etc/cdi\", \"/var/run/cdi\"]\n"));
        assert_null(strstr(out, "/opt/cdi"));
}

/* Schema 3 (containerd 2.x): the runtime plugin's section is copied, the
 * images plugin's and the others are not. */
static void test_schema_3(void **state)
{
        (void)state;
        const char *src = "version = 3\n"
                          "[plugins]\n"
                          "  [plugins.'io.containerd.cri.v1.images']\n"
                          "    snapshotter = 'overlayfs'\n"
                          "  [plugins.'io.containerd.cri.v1.runtime']\n"
                          "    enable_cdi = false\n"
                          "    [plugins.'io.containerd.cri.v1.runtime'.cni]\n"
                          "      bin_dirs = ['/opt/cni/bin']\n"
                          "    [plugins.'io.containerd.cri.v1.runtime'.containerd]\n"
                          "      default_runtime_name = 'runc'\n"
                          "      [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes]\n"
                          "        [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]\n"
                          "          runtime_type = 'io.containerd.runc.v2'\n"
                          "          [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]\n"
                          "            SystemdCgroup = false\n"
                          "  [plugins.'io.containerd.grpc.v1.cri']\n"
                          "    stream_server_port = '0'\n";
        struct ctk_dropin d = dropin(src, true);
        d.containerd_version = 3;
        _cleanup_free_ char *out = made(&d);
#define CRI3 "plugins/io.containerd.cri.v1.runtime/"
        copied(src, out, CRI3);
        struct flat f;
        flatten(out, &f);
        has(&f, "version", "3");
        has(&f, CRI3 "enable_cdi", "true");
        has(&f, CRI3 "cni/bin_dirs", "['/opt/cni/bin']");
        has(&f, CRI3 "containerd/default_runtime_name", "\"amd\"");
        has(&f, CRI3 "containerd/runtimes/amd/options/BinaryName", PATH_RT);
        has(&f, CRI3 "containerd/runtimes/amd/options/SystemdCgroup", "false");
        assert_null(flat_get(&f, "plugins/io.containerd.cri.v1.images"));
        assert_null(flat_get(&f, "plugins/io.containerd.grpc.v1.cri"));
        flat_clear(&f);
        assert_non_null(strstr(out, "\n        [plugins.\"io.containerd.cri.v1.runtime\".containerd.runtimes.amd]\n"));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_defaults),
            cmocka_unit_test(test_debian_file),
            cmocka_unit_test(test_no_section),
            cmocka_unit_test(test_existing_amd),
            cmocka_unit_test(test_default_runtime_name),
            cmocka_unit_test(test_cdi_already_set),
            cmocka_unit_test(test_schema_3),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
