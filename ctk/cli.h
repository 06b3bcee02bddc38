/* amd-ctk command registry and shared command-line state.
 *
 * Each command group lives in its own file (ctk/cmd_<group>.c) and registers
 * itself with CTK_COMMAND(); main.c parses the global options and dispatches.
 * A command returns the process exit code (0 ok, 1 failure, 2 usage). */
#ifndef CTK_CLI_H
#define CTK_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "core/device/device.h"
#include "core/config/config.h"
#include "core/base/base.h"

struct ctk_cli {
        const char *root;        /* --root DIR or AMD_CTK_ROOT */
        const char *profile;     /* --profile FILE or AMD_CTK_PROFILE */
        const char *config_path; /* --config FILE or AMD_CTK_CONFIG; NULL = default path */
        bool debug;              /* --debug / -d */
        struct ctk_config config;
        bool config_loaded;
};

struct ctk_command {
        const char *name;    /* "gpu", "cdi", "runtime", "gpu-tracker", ... */
        const char *summary; /* one line for the top-level help */
        int order;           /* position in the top-level help */
        /* argv[0] is the command name; argv[argc] == NULL. */
        int (*run)(struct ctk_cli *cli, int argc, char **argv);
};

/* Adds a command to amd-ctk's table (from each command file's constructor). */
void ctk_register_command(const struct ctk_command *cmd);

#define CTK_COMMAND(ident, ...)                                                                                        \
        static const struct ctk_command ident = {__VA_ARGS__};                                                         \
        __attribute__((constructor)) static void ident##_register(void)                                                \
        {                                                                                                              \
                ctk_register_command(&ident);                                                                          \
        }

/* The configuration (loaded once; --config/AMD_CTK_CONFIG or the default path). */
int ctk_cli_config(struct ctk_cli *cli, const struct ctk_config **out, struct ctk_error **err);

/* The backend chosen by --root/--profile, their env twins, then the config file. */
int ctk_cli_open_backend(struct ctk_cli *cli, struct ctk_backend **out, struct ctk_error **err);

/* Prints "amd-ctk: <message>" (one line) to stderr and returns 1. */
int ctk_cli_fail(const struct ctk_error *err);

/* True if argv[1..] contains -h/--help before any "--". */
bool ctk_cli_wants_help(int argc, char **argv);

#endif
