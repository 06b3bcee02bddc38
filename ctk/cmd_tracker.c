/* amd-ctk gpu-tracker enable|disable|reset|status [--json]
 * amd-ctk gpu-tracker IDS exclusive|shared   (cmd_tracker_access.c)
 * amd-ctk gpu-tracker release [ID]      (hidden: the poststop hook)
 * amd-ctk gpu-tracker init              (hidden: installation)
 *
 * Messages, exit codes and the status table are the Go toolkit's, as in the
 * user documentation. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmd_tracker.h"
#include "core/base/base.h"
#include "core/json/json.h"
#include "core/device/device.h"
#include "core/tracker/tracker.h"
#include "tracker_print.h"

static const char usage_text[] =
    "NAME:\n"
    "   AMD Container Toolkit CLI gpu-tracker - GPU Tracker related commands\n"
    "\n"
    "USAGE:\n"
    "   amd-ctk gpu-tracker [gpu-ids] [accessibility]\n"
    "\n"
    "     Arguments:\n"
    "       gpu-ids        Comma-separated list of GPU IDs (comma separated list, range operator, all)\n"
    "       accessibility  Must be either 'exclusive' or 'shared'\n"
    "\n"
    "     Examples:\n"
    "       amd-ctk gpu-tracker 0,1,2 exclusive\n"
    "       amd-ctk gpu-tracker 0,1-2 shared\n"
    "       amd-ctk gpu-tracker all shared\n"
    "\n"
    "   OR\n"
    "\n"
    "   amd-ctk gpu-tracker [command] [options]\n"
    "\n"
    "COMMANDS:\n"
    "   disable  Disable the GPU Tracker\n"
    "   enable   Enable the GPU Tracker\n"
    "   reset    Reset the GPU Tracker\n"
    "   status   Show Status of GPUs\n"
    "   help, h  Shows a list of commands or help for one command\n"
    "\n"
    "OPTIONS:\n"
    "   --help, -h  show help\n";

struct subcommand {
        const char *name;
        const char *summary;
        const char *options; /* extra option lines for the help, or NULL */
        int (*run)(struct ctk_cli *cli, int argc, char **argv);
        bool hidden;
};

static const struct subcommand *find_sub(const char *name);

static void sub_usage(FILE *f, const struct subcommand *s)
{
        fprintf(f,
                "NAME:\n"
                "   AMD Container Toolkit CLI gpu-tracker %s - %s\n"
                "\n"
                "USAGE:\n"
                "   amd-ctk gpu-tracker %s%s\n"
                "\n"
                "OPTIONS:\n"
                "%s"
                "   --help, -h  show help\n",
                s->name, s->summary, s->name,
                strcmp(s->name, "status") == 0    ? " [--json]"
                : strcmp(s->name, "release") == 0 ? " [container-id]"
                                                  : "",
                s->options ? s->options : "");
}

/* Errors the documentation shows verbatim are printed as they are; others
 * get the usual "amd-ctk: " prefix. */
int ctk_cli_tracker_fail(struct ctk_cli *cli, struct ctk_tracker *t, const struct ctk_error *err)
{
        if (err != NULL && err->code == ESTALE) {
                fprintf(stderr, "%s\n", err->msg);
                if (cli->debug && t != NULL) {
                        _cleanup_tracker_state_ struct ctk_tracker_state st = {0};
                        _cleanup_backend_ struct ctk_backend *b = NULL;
                        _cleanup_gpu_list_ struct ctk_gpu_list gpus = {0};
                        _cleanup_free_ char *why = NULL;
                        bool missing;
                        if (ctk_tracker_load(&t->paths, &st, &missing, NULL) == 0 &&
                            ctk_cli_open_backend(cli, &b, NULL) == 0 && ctk_discover_gpus(b, &gpus, NULL) == 0 &&
                            !ctk_tracker_topology_matches(&st, &gpus, &why) && why != NULL)
                                fprintf(stderr, "amd-ctk: debug: %s\n", why);
                }
                return 1;
        }
        return ctk_cli_fail(err);
}

int ctk_cli_tracker_open(struct ctk_cli *cli, struct ctk_tracker **t, struct ctk_error **err)
{
        const struct ctk_config *cfg;
        if (ctk_cli_config(cli, &cfg, err) < 0)
                return -1;
        struct ctk_tracker_opts o = {.state_dir = cfg->state_dir};
        return ctk_tracker_new(&o, t, err);
}

int ctk_cli_tracker_discover(struct ctk_cli *cli, struct ctk_gpu_list *gpus, struct ctk_error **err)
{
        _cleanup_backend_ struct ctk_backend *b = NULL;
        if (ctk_cli_open_backend(cli, &b, err) < 0)
                return -1;
        return ctk_discover_gpus(b, gpus, err);
}

int ctk_cli_tracker_print(const char *text)
{
        if (text == NULL) {
                struct ctk_error e = {.code = ENOMEM, .msg = (char *)"out of memory"};
                return ctk_cli_fail(&e);
        }
        fputs(text, stdout);
        return 0;
}

static int no_arguments(const struct subcommand *s, int argc, char **argv)
{
        if (argc <= 1)
                return 0;
        fprintf(stderr, "amd-ctk: gpu-tracker %s: unexpected argument '%s'\n\n", s->name, argv[1]);
        sub_usage(stderr, s);
        return 2;
}

static int run_enable(struct ctk_cli *cli, int argc, char **argv)
{
        int rc = no_arguments(find_sub("enable"), argc, argv);
        if (rc != 0)
                return rc;
        _cleanup_error_ struct ctk_error *err = NULL;
        _cleanup_tracker_ struct ctk_tracker *t = NULL;
        _cleanup_gpu_list_ struct ctk_gpu_list gpus = {0};
        bool enabled, changed;
        if (ctk_cli_tracker_open(cli, &t, &err) < 0 || ctk_tracker_is_enabled(t, &enabled, &err) < 0)
                return ctk_cli_tracker_fail(cli, t, err);
        if (!enabled && ctk_cli_tracker_discover(cli, &gpus, &err) < 0)
                return ctk_cli_tracker_fail(cli, t, err);
        if (ctk_tracker_enable(t, enabled ? NULL : &gpus, &changed, &err) < 0)
                return ctk_cli_tracker_fail(cli, t, err);
        return ctk_cli_tracker_print(changed ? "GPU Tracker has been enabled\n" : "GPU Tracker is already enabled\n");
}

static int run_disable(struct ctk_cli *cli, int argc, char **argv)
{
        int rc = no_arguments(find_sub("disable"), argc, argv);
        if (rc != 0)
                return rc;
        _cleanup_error_ struct ctk_error *err = NULL;
        _cleanup_tracker_ struct ctk_tracker *t = NULL;
        bool changed;
        if (ctk_cli_tracker_open(cli, &t, &err) < 0 || ctk_tracker_disable(t, &changed, &err) < 0)
                return ctk_cli_tracker_fail(cli, t, err);
        return ctk_cli_tracker_print(changed ? "GPU Tracker has been disabled\n" : "GPU Tracker is already disabled\n");
}

static int run_reset(struct ctk_cli *cli, int argc, char **argv)
{
        int rc = no_arguments(find_sub("reset"), argc, argv);
        if (rc != 0)
                return rc;
        _cleanup_error_ struct ctk_error *err = NULL, *discover_err = NULL;
        _cleanup_tracker_ struct ctk_tracker *t = NULL;
        _cleanup_gpu_list_ struct ctk_gpu_list gpus = {0};
        bool was_enabled;
        if (ctk_cli_tracker_open(cli, &t, &err) < 0)
                return ctk_cli_tracker_fail(cli, t, err);
        /* The GPUs are needed only when the tracker stays enabled. */
        bool have_gpus = ctk_cli_tracker_discover(cli, &gpus, &discover_err) == 0;
        if (ctk_tracker_reset(t, have_gpus ? &gpus : NULL, &was_enabled, &err) < 0)
                return ctk_cli_tracker_fail(cli, t, have_gpus ? err : discover_err);
        return ctk_cli_tracker_print(
            was_enabled ? "GPU Tracker has been reset\n"
                          "Since GPU Tracker was enabled, it is recommended to stop and restart running "
                          "containers to get the most accurate GPU Tracker status\n"
                        : "GPU Tracker has been reset\n");
}

static int run_status(struct ctk_cli *cli, int argc, char **argv)
{
        bool json = false;
        for (int i = 1; i < argc; i++) {
                if (strcmp(argv[i], "--json") != 0)
                        return no_arguments(find_sub("status"), 2, (char *[]){argv[0], argv[i], NULL});
                json = true;
        }
        _cleanup_error_ struct ctk_error *err = NULL;
        _cleanup_tracker_ struct ctk_tracker *t = NULL;
        _cleanup_gpu_list_ struct ctk_gpu_list gpus = {0};
        _cleanup_tracker_state_ struct ctk_tracker_state st = {0};
        bool enabled;
        if (ctk_cli_tracker_open(cli, &t, &err) < 0 || ctk_tracker_is_enabled(t, &enabled, &err) < 0)
                return ctk_cli_tracker_fail(cli, t, err);
        if (enabled && ctk_cli_tracker_discover(cli, &gpus, &err) < 0)
                return ctk_cli_tracker_fail(cli, t, err);
        int r = ctk_tracker_status(t, enabled ? &gpus : NULL, &st, &err);
        if (r < 0 && err->code == EAGAIN && !enabled) { /* enabled meanwhile */
                ctk_error_free(ctk_steal(&err));
                r = ctk_cli_tracker_discover(cli, &gpus, &err) < 0 ? -1 : ctk_tracker_status(t, &gpus, &st, &err);
        }
        if (r < 0)
                return ctk_cli_tracker_fail(cli, t, err);
        if (json) {
                _cleanup_free_ char *text = ctk_tracker_status_json(&st);
                return ctk_cli_tracker_print(text);
        }
        if (!st.enabled)
                return ctk_cli_tracker_print("GPU Tracker is disabled\n");
        _cleanup_free_ char *text = ctk_tracker_status_table(&st);
        return ctk_cli_tracker_print(text);
}

/* The container id from an OCI state on stdin (how runc calls hooks). */
static char *id_from_stdin(struct ctk_error **err)
{
        json_error_t jerr;
        _cleanup_json_ json_t *state = json_loadf(stdin, JSON_DISABLE_EOF_CHECK, &jerr);
        const char *id = NULL;
        if (state == NULL || json_unpack(state, "{s:s}", "id", &id) < 0) {
                ctk_error_set(err, EINVAL, "no container id given and no OCI state with an \"id\" on stdin");
                return NULL;
        }
        return strdup(id);
}

static int run_release(struct ctk_cli *cli, int argc, char **argv)
{
        if (argc > 2)
                return no_arguments(find_sub("release"), 2, (char *[]){argv[0], argv[2], NULL});
        _cleanup_error_ struct ctk_error *err = NULL;
        _cleanup_tracker_ struct ctk_tracker *t = NULL;
        _cleanup_free_ char *id = argc == 2 ? strdup(argv[1]) : id_from_stdin(&err);
        if (id == NULL)
                return ctk_cli_tracker_fail(cli, t, err);
        if (ctk_cli_tracker_open(cli, &t, &err) < 0)
                return ctk_cli_tracker_fail(cli, t, err);
        /* runc runs this hook on every delete, mostly after the runtime's
         * own delete released the container: then there is no lock to
         * wait for and nothing to parse. */
        if (!ctk_tracker_may_hold(t, id))
                return 0;
        if (ctk_tracker_release(t, id, NULL, &err) < 0) {
                ctk_error_prefix(&err, "failed to release GPUs for container %s", id);
                return ctk_cli_tracker_fail(cli, t, err);
        }
        return 0;
}

static int run_init(struct ctk_cli *cli, int argc, char **argv)
{
        int rc = no_arguments(find_sub("init"), argc, argv);
        if (rc != 0)
                return rc;
        _cleanup_error_ struct ctk_error *err = NULL;
        _cleanup_tracker_ struct ctk_tracker *t = NULL;
        if (ctk_cli_tracker_open(cli, &t, &err) < 0 || ctk_tracker_init(t, &err) < 0)
                return ctk_cli_tracker_fail(cli, t, err);
        return 0;
}

static const struct subcommand subcommands[] = {
    {"disable", "Disable the GPU Tracker", NULL, run_disable, false},
    {"enable", "Enable the GPU Tracker", NULL, run_enable, false},
    {"reset", "Reset the GPU Tracker", NULL, run_reset, false},
    {"status", "Show Status of GPUs", "   --json      print the status as JSON\n", run_status, false},
    {"init", "Initialize the GPU Tracker", NULL, run_init, true},
    {"release", "Release GPUs used by a container", NULL, run_release, true},
};

static const struct subcommand *find_sub(const char *name)
{
        for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
                if (strcmp(subcommands[i].name, name) == 0)
                        return &subcommands[i];
        return NULL;
}

static bool is_root(void)
{
        return geteuid() == 0;
}

static int run_gpu_tracker(struct ctk_cli *cli, int argc, char **argv)
{
        if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
                fputs(usage_text, stdout);
                return 0;
        }
        if (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "h") == 0) {
                const struct subcommand *s = argc > 2 ? find_sub(argv[2]) : NULL;
                if (s != NULL)
                        sub_usage(stdout, s);
                else
                        fputs(usage_text, stdout);
                return 0;
        }
        const struct subcommand *s = find_sub(argv[1]);
        if (s != NULL && ctk_cli_wants_help(argc - 1, argv + 1)) {
                sub_usage(stdout, s);
                return 0;
        }
        if (!is_root()) {
                fputs("Permission denied: Not running as root\n", stderr);
                return 1;
        }
        if (s != NULL)
                return s->run(cli, argc - 1, argv + 1);
        return ctk_cli_tracker_access_main(cli, argc, argv);
}

CTK_COMMAND(gpu_tracker_command, .name = "gpu-tracker", .summary = "GPU Tracker related commands", .order = 50,
            .run = run_gpu_tracker)
