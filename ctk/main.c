/* amd-ctk: the command tree, the global options and their state. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/open.h"
#include "cli.h"
#include "core/base/base.h"
#include "core/tracker/tracker.h"

enum { G_ROOT, G_PROFILE, G_CONFIG, G_DEBUG };

static const struct ctk_opt global_opts[] = {
    [G_ROOT] = CTK_VALUE("root", "DIR", "read sysfs and /dev below DIR (env AMD_CTK_ROOT; default /)"),
    [G_PROFILE] = CTK_VALUE("profile", "FILE", "simulate the host a profile describes (env AMD_CTK_PROFILE)"),
    [G_CONFIG] = CTK_VALUE("config", "FILE",
                           "the toolkit configuration (env AMD_CTK_CONFIG; default " CTK_DEFAULT_CONFIG_PATH ")"),
    [G_DEBUG] = CTK_FLAG("debug d", "debug output on standard error"),
    {0},
};

int ctk_cli_fail(const struct ctk_error *err)
{
        fprintf(stderr, "amd-ctk: %s\n", err != NULL ? err->msg : "unknown error");
        return 1;
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

/* The host's root and profile: the command line's, else the config's. */
static int host(struct ctk_cli *cli, const char **root, const char **profile, struct ctk_error **err)
{
        *root = cli->root;
        *profile = cli->profile;
        if (*root == NULL && *profile == NULL) {
                const struct ctk_config *c;
                if (ctk_cli_config(cli, &c, err) < 0)
                        return -1;
                *root = c->root;
                *profile = c->profile;
        }
        if (*root != NULL && *profile != NULL)
                return ctk_error_set(err, EINVAL, "--root and --profile cannot be used together");
        return 0;
}

int ctk_cli_root(struct ctk_cli *cli, const char **root, struct ctk_error **err)
{
        const char *profile;
        return host(cli, root, &profile, err);
}

int ctk_cli_open_backend(struct ctk_cli *cli, struct ctk_backend **out, struct ctk_error **err)
{
        const char *root, *profile;
        if (host(cli, &root, &profile, err) < 0)
                return -1;
        return ctk_backend_open(root, profile, out, err);
}

int ctk_cli_state_dir(struct ctk_cli *cli, const char **out, struct ctk_error **err)
{
        const struct ctk_config *c;
        const char *root, *profile;
        if (ctk_cli_config(cli, &c, err) < 0 || host(cli, &root, &profile, err) < 0)
                return -1;
        char real[PATH_MAX];
        bool simulated = profile != NULL || (root != NULL && (realpath(root, real) == NULL || strcmp(real, "/") != 0));
        if (simulated && !ctk_config_given(c, "state-dir"))
                return ctk_error_set(err, EINVAL,
                                     "the host is simulated (%s %s): its state would go to this host's %s; set "
                                     "state-dir in a configuration file (--config FILE) for it",
                                     profile != NULL ? "--profile" : "--root",
                                     CTK_CUT(profile != NULL ? profile : root), CTK_CUT(c->state_dir));
        *out = c->state_dir;
        return 0;
}

/* The global options over their env twins (of --root and --profile, the
 * one given last wins). */
static int before(void *ctx, const struct ctk_cmdline *cl)
{
        struct ctk_cli *cli = ctx;
        const struct ctk_optval *g = cl->global;
        cli->root = getenv("AMD_CTK_ROOT");
        cli->profile = getenv("AMD_CTK_PROFILE");
        cli->config_path = getenv("AMD_CTK_CONFIG");
        if (cli->root != NULL && cli->root[0] == '\0')
                cli->root = NULL;
        if (cli->profile != NULL && cli->profile[0] == '\0')
                cli->profile = NULL;
        if (cli->config_path != NULL && cli->config_path[0] == '\0')
                cli->config_path = NULL;
        if (g[G_ROOT].count > 0 || g[G_PROFILE].count > 0) {
                bool root_last = g[G_ROOT].count > 0 && (g[G_PROFILE].count == 0 || g[G_ROOT].at > g[G_PROFILE].at);
                cli->root = root_last ? g[G_ROOT].value : NULL;
                cli->profile = root_last ? NULL : g[G_PROFILE].value;
        }
        if (g[G_CONFIG].count > 0)
                cli->config_path = g[G_CONFIG].value;
        cli->debug = g[G_DEBUG].on;
        if ((cli->root != NULL && cli->root[0] == '\0') || (cli->profile != NULL && cli->profile[0] == '\0') ||
            (cli->config_path != NULL && cli->config_path[0] == '\0'))
                return ctk_cmdline_fail(cl, "--root, --profile and --config need a non-empty value");
        return 0;
}

static const struct ctk_cmd *const commands[] = {
    &ctk_cmd_version,     &ctk_cmd_runtime, &ctk_cmd_cdi,     &ctk_cmd_gpu,
    &ctk_cmd_gpu_tracker, &ctk_cmd_config,  &ctk_cmd_seccomp, NULL,
};

static const struct ctk_cmd amd_ctk = {
    .name = "amd-ctk",
    .summary = "configure the AMD Container Toolkit",
    .description = "Lists the AMD GPUs of a host, writes the CDI specification of them, configures container "
                   "engines (Docker, containerd, Podman, CRI-O) to run amd-container-runtime, and manages the GPU "
                   "Tracker, which gives GPUs to one container at a time.\n"
                   "\n"
                   "Every command reads the host's sysfs and /dev: the real host's, the ones below a directory "
                   "(--root), or a simulated host (--profile).",
    .opts = global_opts,
    .subs = commands,
    .before = before,
    .print_version = ctk_cmdline_print_version,
    .version = ctk_version,
    .date = ctk_build_date,
    .environment = "AMD_CTK_ROOT\tthe host's root directory, as --root\n"
                   "AMD_CTK_PROFILE\ta host profile to simulate, as --profile\n"
                   "AMD_CTK_CONFIG\tthe configuration file, as --config",
    .files = CTK_DEFAULT_CONFIG_PATH "\tthe toolkit configuration ('amd-ctk config default' prints every key)",
    .examples = "The GPUs of this host, then the CDI specification of them:\n"
                "\n"
                "    amd-ctk gpu list\n"
                "    sudo amd-ctk cdi generate\n"
                "\n"
                "A simulated host (the profiles of the amd-container-toolkit sources):\n"
                "\n"
                "    amd-ctk --profile sim/profiles/mi300x-cpx-x8.json cdi list",
    .see_also = "amd-container-runtime(1) amd-ctk-fakefs(1)",
};

int main(int argc, char **argv)
{
        struct ctk_cli cli = {0};
        int rc = ctk_cmdline_main(&amd_ctk, argc, argv, &cli);
        if (cli.config_loaded)
                ctk_config_clear(&cli.config);
        /* output cut by a full disk or a closed pipe fails a command that
         * did not fail already */
        _cleanup_error_ struct ctk_error *err = NULL;
        if (rc == 0 && ctk_stdout_close(&err) < 0)
                rc = ctk_cli_fail(err);
        return rc;
}
