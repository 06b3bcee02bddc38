/* runc command lines as docker, containerd, podman and people write them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/base/base.h"
#include "runtime/args.h"

#define ARGV(...) ((char *[]){"amd-container-runtime", __VA_ARGS__, NULL})
#define ARGC(v)   ((int)(sizeof(v) / sizeof((v)[0])) - 1)

static struct rt_args parse_ok(int argc, char **argv)
{
        struct rt_args a;
        _cleanup_error_ struct ctk_error *err = NULL;
        int r = rt_args_parse(argc, argv, &a, &err);
        if (r < 0)
                fail_msg("unexpected error: %s", err->msg);
        return a;
}
#define PARSE(...)                                                                                                     \
        ({                                                                                                             \
                char **v_ = ARGV(__VA_ARGS__);                                                                         \
                parse_ok(ARGC(ARGV(__VA_ARGS__)), v_);                                                                 \
        })

static void assert_str(const char *got, const char *want)
{
        if (want == NULL)
                assert_null(got);
        else {
                assert_non_null(got);
                assert_string_equal(got, want);
        }
}

static void test_docker_create(void **state)
{
        (void)state;
        struct rt_args a =
            PARSE("--root", "/var/run/docker/runtime-runc/moby", "--log", "/x/log.json", "--log-format", "json",
                  "--systemd-cgroup", "create", "--bundle", "/x", "--pid-file", "/x/init.pid", "ID");
        assert_int_equal(a.command, RT_CMD_CREATE);
        assert_str(a.command_name, "create");
        assert_str(a.root, "/var/run/docker/runtime-runc/moby");
        assert_str(a.log, "/x/log.json");
        assert_str(a.log_format, "json");
        assert_str(a.bundle, "/x");
        assert_str(a.id, "ID");
        assert_null(a.amd_config);
        assert_int_equal(a.runc_argi, 1);
        assert_int_equal(a.command_argi, 8); /* the global options are argv[1..8) */
        assert_false(a.help);
        assert_false(a.version);
        assert_true(rt_args_edits_spec(&a));
}

static void test_containerd_create_with_console(void **state)
{
        (void)state;
        struct rt_args a = PARSE("--root", "/run/containerd/runc/k8s.io", "--log", "/b/log.json", "--log-format",
                                 "json", "create", "--bundle", "/b", "--pid-file", "/b/init.pid", "--console-socket",
                                 "/tmp/pty.sock", "--preserve-fds", "2", "--no-pivot", "c1");
        assert_int_equal(a.command, RT_CMD_CREATE);
        assert_str(a.bundle, "/b");
        assert_str(a.id, "c1");
}

static void test_podman_style(void **state)
{
        (void)state;
        /* podman/conmon: --systemd-cgroup, then create with -b and --pid-file. */
        struct rt_args a = PARSE("--systemd-cgroup", "--root=/run/runc", "create", "--bundle", "/var/lib/containers/b",
                                 "--pid-file", "/run/p/pidfile", "--no-new-keyring", "abc123");
        assert_str(a.root, "/run/runc");
        assert_str(a.bundle, "/var/lib/containers/b");
        assert_str(a.id, "abc123");
}

static void test_bundle_forms(void **state)
{
        (void)state;
        assert_str(PARSE("create", "-b=x", "id").bundle, "x");
        assert_str(PARSE("create", "-b", "x", "id").bundle, "x");
        assert_str(PARSE("create", "--bundle=x", "id").bundle, "x");
        assert_str(PARSE("create", "-bundle", "x", "id").bundle, "x");
        assert_str(PARSE("create", "--b", "x", "id").bundle, "x");
        /* Options may follow the id (urfave/cli reorders them). */
        struct rt_args a = PARSE("create", "id", "--bundle", "y");
        assert_str(a.bundle, "y");
        assert_str(a.id, "id");
        /* The last occurrence wins, as with Go's flag package. */
        assert_str(PARSE("create", "-b", "x", "-b", "z", "id").bundle, "z");
}

static void test_default_bundle(void **state)
{
        (void)state;
        struct rt_args a = PARSE("create", "myid");
        assert_null(a.bundle);
        assert_str(a.id, "myid");
        assert_true(rt_args_edits_spec(&a));
}

static void test_value_options_do_not_become_the_id(void **state)
{
        (void)state;
        struct rt_args a = PARSE("create", "--pid-file", "pidf", "--console-socket", "sock", "--preserve-fds", "3",
                                 "--pidfd-socket", "pfd", "the-id");
        assert_str(a.id, "the-id");
        assert_null(a.bundle);
        /* "create" as an option value is not the command. */
        a = PARSE("--root", "create", "delete", "x");
        assert_int_equal(a.command, RT_CMD_DELETE);
        assert_str(a.root, "create");
        assert_str(a.id, "x");
}

static void test_run(void **state)
{
        (void)state;
        struct rt_args a = PARSE("run", "-d", "ID");
        assert_int_equal(a.command, RT_CMD_RUN);
        assert_str(a.id, "ID");
        assert_true(rt_args_edits_spec(&a));
        a = PARSE("run", "--detach", "--keep", "--no-subreaper", "-b", "/bb", "ID2");
        assert_str(a.bundle, "/bb");
        assert_str(a.id, "ID2");
}

static void test_double_dash(void **state)
{
        (void)state;
        /* After "--" everything is positional: the id is the first one. */
        struct rt_args a = PARSE("create", "-b", "/b", "--", "--weird-id");
        assert_str(a.id, "--weird-id");
        assert_str(a.bundle, "/b");
        /* A global "--" ends global options. */
        a = PARSE("--debug", "--", "create", "id");
        assert_int_equal(a.command, RT_CMD_CREATE);
        assert_int_equal(a.command_argi, 3);
        assert_true(a.debug);
}

static void test_crun_options(void **state)
{
        (void)state;
        struct rt_args a =
            PARSE("--cgroup-manager", "systemd", "--log-level", "debug", "create", "--config", "other.json", "id");
        assert_int_equal(a.command, RT_CMD_CREATE);
        assert_str(a.config, "other.json");
        assert_str(a.id, "id");
        assert_str(PARSE("create", "-f", "c.json", "id").config, "c.json");
}

static void test_delete(void **state)
{
        (void)state;
        struct rt_args a = PARSE("--root", "/r", "delete", "--force", "ctr");
        assert_int_equal(a.command, RT_CMD_DELETE);
        assert_str(a.id, "ctr");
        assert_str(a.root, "/r");
        assert_false(rt_args_edits_spec(&a));
        assert_true(a.force);
        a = PARSE("delete", "-f", "ctr2");
        assert_str(a.id, "ctr2");
        assert_true(a.force);
        /* after the id (urfave/cli reorders), and Go's boolean spellings */
        assert_true(PARSE("delete", "ctr", "--force").force);
        assert_true(PARSE("delete", "--force=true", "ctr").force);
        assert_true(PARSE("delete", "-f=1", "ctr").force);
        assert_false(PARSE("delete", "ctr").force);
        assert_false(PARSE("delete", "--force=false", "ctr").force);
        assert_false(PARSE("delete", "-f=0", "ctr").force);
        assert_false(PARSE("delete", "--force=maybe", "ctr").force); /* runc refuses it: never forced */
        assert_false(PARSE("delete", "--", "--force").force);        /* an id */
        /* create's -f is crun's --config, not a force */
        assert_false(PARSE("create", "-f", "c.json", "id").force);
        assert_false(PARSE("--force", "delete", "ctr").force); /* not a global option */
}

static void test_pass_through_commands(void **state)
{
        (void)state;
        const char *cmds[] = {"start",  "state",  "kill",     "ps",   "exec", "pause",      "resume",
                              "update", "events", "features", "list", "spec", "checkpoint", "restore"};
        for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
                char *v[] = {"rt", "--root", "/r", (char *)cmds[i], "-b", "/b", "id", NULL};
                struct rt_args a = parse_ok(7, v);
                assert_int_equal(a.command, RT_CMD_OTHER);
                assert_str(a.command_name, cmds[i]);
                assert_null(a.bundle);
                assert_null(a.id);
                assert_false(rt_args_edits_spec(&a));
        }
}

static void test_help_and_version(void **state)
{
        (void)state;
        struct rt_args a = PARSE("--version");
        assert_true(a.version);
        assert_int_equal(a.command, RT_CMD_NONE);
        assert_true(PARSE("-v").version);
        assert_true(PARSE("--help").help);
        assert_true(PARSE("-h").help);
        assert_true(PARSE("help").help);
        assert_true(PARSE("help", "create").help);
        a = PARSE("create", "--help");
        assert_true(a.help);
        assert_false(rt_args_edits_spec(&a));
        a = PARSE("create", "-b", "/b", "id", "-h");
        assert_true(a.help);
        assert_false(rt_args_edits_spec(&a));
        char *none[] = {"rt", NULL};
        a = parse_ok(1, none);
        assert_int_equal(a.command, RT_CMD_NONE);
        assert_null(a.command_name);
        assert_int_equal(a.command_argi, 0);
        /* -v after the command is not --version (run's -d, delete's -f are
         * command options). */
        assert_false(PARSE("create", "-b", "/b", "id").version);
}

static void test_bool_flag_forms(void **state)
{
        (void)state;
        struct rt_args a = PARSE("--systemd-cgroup=true", "--debug=false", "create", "id");
        assert_false(a.debug);
        assert_int_equal(a.command, RT_CMD_CREATE);
        assert_str(a.id, "id");
        a = PARSE("-debug", "-root", "/r", "-log-format=text", "create", "id");
        assert_true(a.debug);
        assert_str(a.root, "/r");
        assert_str(a.log_format, "text");
}

static void test_amd_config(void **state)
{
        (void)state;
        struct rt_args a = PARSE("--amd-config=/etc/x.json", "--root", "/r", "create", "id");
        assert_str(a.amd_config, "/etc/x.json");
        assert_int_equal(a.runc_argi, 2);
        assert_int_equal(a.command_argi, 4);
        assert_str(a.root, "/r");
        a = PARSE("--amd-config", "/etc/y.json", "create", "id");
        assert_str(a.amd_config, "/etc/y.json");
        assert_int_equal(a.runc_argi, 3);
        assert_int_equal(a.command, RT_CMD_CREATE);
        /* Only leading: after a runc option it belongs to runc. */
        a = PARSE("--root", "/r", "--amd-config=/z", "create", "id");
        assert_null(a.amd_config);
        assert_int_equal(a.runc_argi, 1);
}

static void test_config_file(void **state)
{
        (void)state;
        unsetenv("AMD_CTK_CONFIG");
        struct rt_args a = PARSE("state", "id");
        assert_null(rt_args_config_file(&a)); /* the default file */
        setenv("AMD_CTK_CONFIG", "", 1);
        assert_null(rt_args_config_file(&a));
        setenv("AMD_CTK_CONFIG", "/env.json", 1);
        assert_string_equal(rt_args_config_file(&a), "/env.json");
        a = PARSE("--amd-config=/opt.json", "state", "id"); /* the option wins */
        assert_string_equal(rt_args_config_file(&a), "/opt.json");
        unsetenv("AMD_CTK_CONFIG");
}

static void test_amd_option_errors(void **state)
{
        (void)state;
        struct {
                char *argv[4];
                int argc;
                const char *want;
                bool usage; /* exit status 2 */
        } cases[] = {
            {{"rt", "--amd-conifg=/x", "create", NULL},
             3,
             "unknown option '--amd-conifg' (see 'amd-container-runtime --help')",
             true},
            {{"rt", "--amd-config", NULL, NULL},
             2,
             "option '--amd-config' needs a value (see 'amd-container-runtime --help')",
             true},
            {{"rt", "--amd-config=", "create", NULL}, 3, "invalid value '' for --amd-config (a file name)", false},
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct rt_args a;
                _cleanup_error_ struct ctk_error *err = NULL;
                assert_int_equal(rt_args_parse(cases[i].argc, cases[i].argv, &a, &err), -1);
                assert_non_null(err);
                assert_string_equal(err->msg, cases[i].want);
                assert_int_equal(a.usage_error, cases[i].usage);
        }
}

static void test_missing_values_are_left_to_runc(void **state)
{
        (void)state;
        struct rt_args a = PARSE("create", "-b");
        assert_int_equal(a.command, RT_CMD_CREATE);
        assert_null(a.bundle);
        assert_null(a.id);
        a = PARSE("--root");
        assert_int_equal(a.command, RT_CMD_NONE);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_docker_create),
            cmocka_unit_test(test_containerd_create_with_console),
            cmocka_unit_test(test_podman_style),
            cmocka_unit_test(test_bundle_forms),
            cmocka_unit_test(test_default_bundle),
            cmocka_unit_test(test_value_options_do_not_become_the_id),
            cmocka_unit_test(test_run),
            cmocka_unit_test(test_double_dash),
            cmocka_unit_test(test_crun_options),
            cmocka_unit_test(test_delete),
            cmocka_unit_test(test_pass_through_commands),
            cmocka_unit_test(test_help_and_version),
            cmocka_unit_test(test_bool_flag_forms),
            cmocka_unit_test(test_amd_config),
            cmocka_unit_test(test_config_file),
            cmocka_unit_test(test_amd_option_errors),
            cmocka_unit_test(test_missing_values_are_left_to_runc),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
