/* amd-ctk: the command tree and shared command-line state.
 *
 * Each command group lives in its own file (ctk/cmd_<group>.c) and defines
 * its struct ctk_cmd (core/base/cmdline.h: options, subcommands,
 * documentation); main.c lists them and parses the global options.  A
 * command's run gets the struct ctk_cli as its context and returns the
 * process exit code (0 ok, 1 failure, 2 usage). */
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

/* The command groups, in the order of amd-ctk's help. */
extern const struct ctk_cmd ctk_cmd_version;
extern const struct ctk_cmd ctk_cmd_runtime;
extern const struct ctk_cmd ctk_cmd_cdi;
extern const struct ctk_cmd ctk_cmd_gpu;
extern const struct ctk_cmd ctk_cmd_gpu_tracker;
extern const struct ctk_cmd ctk_cmd_config;
extern const struct ctk_cmd ctk_cmd_seccomp;

/* The configuration (loaded once; --config/AMD_CTK_CONFIG or the default path). */
int ctk_cli_config(struct ctk_cli *cli, const struct ctk_config **out, struct ctk_error **err);

/* The host's root (--root, AMD_CTK_ROOT, the config's root), NULL for "/" or a profile. */
int ctk_cli_root(struct ctk_cli *cli, const char **root, struct ctk_error **err);
/* The backend chosen by --root/--profile, their env twins, then the config file. */
int ctk_cli_open_backend(struct ctk_cli *cli, struct ctk_backend **out, struct ctk_error **err);

/* The state directory (config key state-dir) for files a command keeps.  A
 * simulated host (--root other than /, --profile, their env twins or config
 * keys) never gets the real host's default one: then state-dir must be set
 * in the configuration (to any directory, the default's path included),
 * else this fails saying so. */
int ctk_cli_state_dir(struct ctk_cli *cli, const char **out, struct ctk_error **err);

/* Prints "amd-ctk: <message>" (one line) to stderr and returns 1. */
int ctk_cli_fail(const struct ctk_error *err);

#endif
