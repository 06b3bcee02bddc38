/* amd-ctk: global options and command dispatch. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/open.h"
#include "cli.h"
#include "core/base/base.h"

#define MAX_COMMANDS 32

static const struct ctk_command *commands[MAX_COMMANDS];
static size_t ncommands;

void ctk_register_command(const struct ctk_command *cmd)
{
        if (ncommands < MAX_COMMANDS)
                commands[ncommands++] = cmd;
}

static const struct ctk_command *find_command(const char *name)
{
        for (size_t i = 0; i < ncommands; i++)
                if (strcmp(commands[i]->name, name) == 0)
                        return commands[i];
        return NULL;
}

static int by_order(const void *a, const void *b)
{
        const struct ctk_command *x = *(const struct ctk_command *const *)a;
        const struct ctk_command *y = *(const struct ctk_command *const *)b;
        return x->order - y->order;
}

static void usage(FILE *f)
{
        // NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers
        qsort(commands, ncommands, sizeof(commands[0]), by_order);
        fputs("NAME:\n"
              "   amd-ctk - configure the AMD Container Toolkit\n"
              "\n"
              "USAGE:\n"
              "   amd-ctk [global options] command [options] [arguments]\n"
              "\n"
              "COMMANDS:\n",
              f);
        for (size_t i = 0; i < ncommands; i++)
                fprintf(f, "   %-13s%s\n", commands[i]->name, commands[i]->summary);
        fputs("\n"
              "GLOBAL OPTIONS:\n"
              "   --root DIR       read sysfs and /dev below DIR (env AMD_CTK_ROOT; default /)\n"
              "   --profile FILE   simulate the host described by a profile (env AMD_CTK_PROFILE)\n"
              "   --config FILE    toolkit configuration (env AMD_CTK_CONFIG;\n"
              "                    default " CTK_DEFAULT_CONFIG_PATH ")\n"
              "   --debug, -d      debug output on stderr\n"
              "   --help, -h       show help\n"
              "\n"
              "Run 'amd-ctk COMMAND --help' for the options of a command.\n",
              f);
}

int ctk_cli_fail(const struct ctk_error *err)
{
        fprintf(stderr, "amd-ctk: %s\n", err != NULL ? err->msg : "unknown error");
        return 1;
}

bool ctk_cli_wants_help(int argc, char **argv)
{
        return ctk_argv_wants_help(argc, argv);
}

int ctk_cli_config(struct ctk_cli *cli, const struct ctk_config **out, struct ctk_error **err)
{
        if (!cli->config_loaded) {
                const char *path = cli->config_path != NULL ? cli->config_path : CTK_DEFAULT_CONFIG_PATH;
                if (ctk_config_load(path, cli->config_path == NULL, &cli->config, err) < 0)
                        return -1;
                cli->config_loaded = true;
        }
        *out = &cli->config;
        return 0;
}

int ctk_cli_open_backend(struct ctk_cli *cli, struct ctk_backend **out, struct ctk_error **err)
{
        const char *root = cli->root, *profile = cli->profile;
        if (root == NULL && profile == NULL) {
                const struct ctk_config *c;
                if (ctk_cli_config(cli, &c, err) < 0)
                        return -1;
                root = c->root;
                profile = c->profile;
        }
        if (root != NULL && profile != NULL)
                return ctk_error_set(err, EINVAL, "--root and --profile cannot be used together");
        return ctk_backend_open(root, profile, out, err);
}

static int run(int argc, char **argv)
{
        struct ctk_cli cli = {0};
        cli.root = getenv("AMD_CTK_ROOT");
        cli.profile = getenv("AMD_CTK_PROFILE");
        cli.config_path = getenv("AMD_CTK_CONFIG");
        if (cli.root != NULL && cli.root[0] == '\0')
                cli.root = NULL;
        if (cli.profile != NULL && cli.profile[0] == '\0')
                cli.profile = NULL;
        if (cli.config_path != NULL && cli.config_path[0] == '\0')
                cli.config_path = NULL;

        int i = 1;
        for (; i < argc && argv[i][0] == '-'; i++) {
                bool missing = false;
                const char *v;
                if ((v = ctk_argv_option_value(argc, argv, &i, "--root", &missing)) != NULL) {
                        cli.root = v;
                        cli.profile = NULL;
                } else if ((v = ctk_argv_option_value(argc, argv, &i, "--profile", &missing)) != NULL) {
                        cli.profile = v;
                        cli.root = NULL;
                } else if ((v = ctk_argv_option_value(argc, argv, &i, "--config", &missing)) != NULL) {
                        cli.config_path = v;
                } else if (missing) {
                        fprintf(stderr, "amd-ctk: option %s needs a value\n", argv[i]);
                        return 2;
                } else if (strcmp(argv[i], "--debug") == 0 || strcmp(argv[i], "-d") == 0) {
                        cli.debug = true;
                } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
                        usage(stdout);
                        return 0;
                } else {
                        fprintf(stderr, "amd-ctk: unknown global option '%s'\n\n", argv[i]);
                        usage(stderr);
                        return 2;
                }
        }
        if (i >= argc) {
                usage(stderr);
                return 2;
        }
        if (strcmp(argv[i], "help") == 0) {
                if (i + 1 >= argc) {
                        usage(stdout);
                        return 0;
                }
                i++; /* help COMMAND: COMMAND --help; an unknown COMMAND is a usage error */
                if (find_command(argv[i]) != NULL) {
                        char *hargv[] = {argv[i], (char *)"--help", NULL};
                        return find_command(argv[i])->run(&cli, 2, hargv);
                }
        }
        const struct ctk_command *cmd = find_command(argv[i]);
        if (cmd == NULL) {
                fprintf(stderr, "amd-ctk: unknown command '%s'\n\n", argv[i]);
                usage(stderr);
                return 2;
        }
        int rc = cmd->run(&cli, argc - i, argv + i);
        if (cli.config_loaded)
                ctk_config_clear(&cli.config);
        return rc;
}

int main(int argc, char **argv)
{
        int rc = run(argc, argv);
        /* output cut by a full disk or a closed pipe fails a command that
         * did not fail already */
        _cleanup_error_ struct ctk_error *err = NULL;
        if (rc == 0 && ctk_stdout_close(&err) < 0)
                rc = ctk_cli_fail(err);
        return rc;
}
