/* amd-ctk-fakefs: simulated AMD GPU hosts from host profiles. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fakefs_cli.h"

static const struct fakefs_cmd *const commands[] = {
    &fakefs_cmd_materialize,
    &fakefs_cmd_import_kfd,
    &fakefs_cmd_mount,
    &fakefs_cmd_umount,
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
        fputs("NAME:\n"
              "   amd-ctk-fakefs - simulated AMD GPU hosts (fake /sys and /dev) from host profiles\n"
              "\n"
              "USAGE:\n"
              "   amd-ctk-fakefs COMMAND [options] [arguments]\n"
              "\n"
              "COMMANDS:\n",
              f);
        for (size_t i = 0; i < NCOMMANDS; i++)
                fprintf(f, "   %-12s %s\n", commands[i]->name, commands[i]->summary);
        fputs("\n"
              "OPTIONS:\n"
              "   --help, -h   show help\n"
              "\n"
              "Host profiles are JSON files (see sim/profiles/README.md).\n"
              "Run 'amd-ctk-fakefs COMMAND --help' for the options of a command.\n",
              f);
}

int fakefs_fail(const struct ctk_error *err)
{
        fprintf(stderr, "amd-ctk-fakefs: %s\n", err != NULL ? err->msg : "unknown error");
        return 1;
}

int fakefs_usage_error(const char *cmd, const char *fmt, ...)
{
        va_list ap;
        fprintf(stderr, "amd-ctk-fakefs %s: ", cmd);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fprintf(stderr, "\nTry 'amd-ctk-fakefs %s --help'.\n", cmd);
        return 2;
}

/* argv[0] is the command's name. */
static int run_command(const struct fakefs_cmd *c, int argc, char **argv)
{
        if (ctk_argv_wants_help(argc, argv)) {
                fputs(c->help, stdout);
                return 0;
        }
        return c->run(argc, argv);
}

static int run(int argc, char **argv)
{
        if (argc < 2) {
                usage(stderr);
                return 2;
        }
        if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0) {
                if (argc > 2) {
                        for (size_t i = 0; i < NCOMMANDS; i++) {
                                if (strcmp(argv[2], commands[i]->name) == 0) {
                                        char *hargv[] = {argv[2], (char *)"--help", NULL};
                                        return run_command(commands[i], 2, hargv);
                                }
                        }
                }
                usage(stdout);
                return 0;
        }
        for (size_t i = 0; i < NCOMMANDS; i++)
                if (strcmp(argv[1], commands[i]->name) == 0)
                        return run_command(commands[i], argc - 1, argv + 1);
        fprintf(stderr, "amd-ctk-fakefs: unknown command '%s'\n\n", argv[1]);
        usage(stderr);
        return 2;
}

int main(int argc, char **argv)
{
        int rc = run(argc, argv);
        /* output cut by a full disk or a closed pipe fails a command that
         * did not fail already */
        _cleanup_error_ struct ctk_error *err = NULL;
        if (rc == 0 && ctk_stdout_close(&err) < 0)
                rc = fakefs_fail(err);
        return rc;
}
