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
        struct ctk_tracker_opts o = {0};
        if (ctk_cli_state_dir(cli, &o.state_dir, err) < 0)
                return -1;
        return ctk_tracker_new(&o, t, err);
}

int ctk_cli_tracker_root(const struct ctk_cmdline *cl)
{
        if (geteuid() == 0)
                return 0;
        return ctk_cmdline_fail(cl, "permission denied: the GPU Tracker needs root");
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

static int run_enable(void *ctx, const struct ctk_cmdline *cl)
{
        struct ctk_cli *cli = ctx;
        int rc = ctk_cli_tracker_root(cl);
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

static int run_disable(void *ctx, const struct ctk_cmdline *cl)
{
        struct ctk_cli *cli = ctx;
        int rc = ctk_cli_tracker_root(cl);
        if (rc != 0)
                return rc;
        _cleanup_error_ struct ctk_error *err = NULL;
        _cleanup_tracker_ struct ctk_tracker *t = NULL;
        bool changed;
        if (ctk_cli_tracker_open(cli, &t, &err) < 0 || ctk_tracker_disable(t, &changed, &err) < 0)
                return ctk_cli_tracker_fail(cli, t, err);
        return ctk_cli_tracker_print(changed ? "GPU Tracker has been disabled\n" : "GPU Tracker is already disabled\n");
}

static int run_reset(void *ctx, const struct ctk_cmdline *cl)
{
        struct ctk_cli *cli = ctx;
        int rc = ctk_cli_tracker_root(cl);
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

static int run_status(void *ctx, const struct ctk_cmdline *cl)
{
        struct ctk_cli *cli = ctx;
        bool json = cl->opt[0].on;
        int rc = ctk_cli_tracker_root(cl);
        if (rc != 0)
                return rc;
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

static int run_release(void *ctx, const struct ctk_cmdline *cl)
{
        struct ctk_cli *cli = ctx;
        int rc = ctk_cli_tracker_root(cl);
        if (rc != 0)
                return rc;
        _cleanup_error_ struct ctk_error *err = NULL;
        _cleanup_tracker_ struct ctk_tracker *t = NULL;
        _cleanup_free_ char *id = cl->nargs == 1 ? strdup(cl->args[0]) : id_from_stdin(&err);
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
                ctk_error_prefix(&err, "failed to release GPUs for container %s", CTK_CUT(id));
                return ctk_cli_tracker_fail(cli, t, err);
        }
        return 0;
}

static int run_init(void *ctx, const struct ctk_cmdline *cl)
{
        struct ctk_cli *cli = ctx;
        int rc = ctk_cli_tracker_root(cl);
        if (rc != 0)
                return rc;
        _cleanup_error_ struct ctk_error *err = NULL;
        _cleanup_tracker_ struct ctk_tracker *t = NULL;
        if (ctk_cli_tracker_open(cli, &t, &err) < 0 || ctk_tracker_init(t, &err) < 0)
                return ctk_cli_tracker_fail(cli, t, err);
        return 0;
}

#define STATE_FILES                                                                                                    \
        CTK_DEFAULT_STATE_DIR                                                                                          \
        "/gpu-tracker.json\tthe GPU Tracker's state (config key state-dir)\n" CTK_DEFAULT_STATE_DIR                    \
        "/gpu-tracker.lock\tits lock"

static const struct ctk_cmd tracker_disable = {
    .name = "disable",
    .summary = "Disable the GPU Tracker",
    .description = "Stops tracking: containers started from now on get their GPUs without being recorded, and the "
                   "state of the GPUs is forgotten (enabling the tracker again starts afresh).",
    .run = run_disable,
    .files = STATE_FILES,
    .examples = "    sudo amd-ctk gpu-tracker disable",
};

static const struct ctk_cmd tracker_enable = {
    .name = "enable",
    .summary = "Enable the GPU Tracker",
    .description = "Starts tracking which containers use which GPUs, with every GPU shared: containers started "
                   "with AMD_VISIBLE_DEVICES (or DOCKER_RESOURCE_*) from now on are recorded, and a GPU made "
                   "exclusive is given to one container at a time.",
    .run = run_enable,
    .files = STATE_FILES,
    .examples = "    sudo amd-ctk gpu-tracker enable",
};

static const struct ctk_cmd tracker_reset = {
    .name = "reset",
    .summary = "Reset the GPU Tracker",
    .description = "Forgets which containers use which GPUs and makes every GPU shared; an enabled tracker stays "
                   "enabled.  Needed after a GPU was repartitioned while the tracker was enabled ('GPUs info is "
                   "invalid. Please reset GPU Tracker.'), and repairs a damaged state file.",
    .run = run_reset,
    .files = STATE_FILES,
    .examples = "    sudo amd-ctk gpu-tracker reset",
};

static const struct ctk_opt status_opts[] = {CTK_FLAG("json", "print the status as JSON"), {0}};

static const struct ctk_cmd tracker_status = {
    .name = "status",
    .summary = "Show Status of GPUs",
    .description = "Prints each GPU's index, UUID, accessibility (Shared or Exclusive) and the containers using "
                   "it, or 'GPU Tracker is disabled'.  Container ids longer than the table's last column (Docker's "
                   "64 hexadecimal digits) are shown by their first 12 characters, as 'docker ps' shows them; "
                   "--json gives them whole.  Containers that no longer exist are not shown.  Reads the state, "
                   "changes nothing.",
    .opts = status_opts,
    .run = run_status,
    .exit_status = "1\tthe state cannot be read, or the GPUs changed since the tracker was enabled ('GPUs info is "
                   "invalid. Please reset GPU Tracker.')",
    .files = STATE_FILES,
    .examples = "    amd-ctk gpu-tracker status\n"
                "    amd-ctk gpu-tracker status --json | jq '.gpus[] | select(.accessibility == \"exclusive\")'",
};

static const struct ctk_cmd tracker_init = {
    .name = "init",
    .summary = "Initialize the GPU Tracker",
    .description = "Writes a disabled tracker's state if there is none (the package's installation runs it).",
    .run = run_init,
    .hidden = true,
};

static const struct ctk_cmd tracker_release = {
    .name = "release",
    .summary = "Release GPUs used by a container",
    .args = "[container-id]",
    .max_args = 1,
    .description = "Releases the GPUs of a container: runc's poststop hook, with the container's OCI state on the "
                   "standard input when no id is given.",
    .run = run_release,
    .hidden = true,
};

static const struct ctk_cmd *const tracker_subs[] = {
    &tracker_disable, &tracker_enable, &tracker_reset, &tracker_status, &tracker_init, &tracker_release, NULL,
};

const struct ctk_cmd ctk_cmd_gpu_tracker = {
    .name = "gpu-tracker",
    .summary = "GPU Tracker related commands",
    .help_name = "AMD Container Toolkit CLI gpu-tracker",
    .usage = "amd-ctk gpu-tracker [gpu-ids] [accessibility]\n"
             "\n"
             "  Arguments:\n"
             "    gpu-ids        Comma-separated list of GPU IDs (comma separated list, range operator, all)\n"
             "    accessibility  Must be either 'exclusive' or 'shared'\n"
             "\n"
             "  Examples:\n"
             "    amd-ctk gpu-tracker 0,1,2 exclusive\n"
             "    amd-ctk gpu-tracker 0,1-2 shared\n"
             "    amd-ctk gpu-tracker all shared\n"
             "\n"
             "OR\n"
             "\n"
             "amd-ctk gpu-tracker [command] [options]",
    .args = "gpu-ids accessibility",
    .min_args = 2,
    .max_args = 2,
    .details = "The GPU Tracker records which containers use which GPUs, for containers that get GPUs through "
               "amd-container-runtime, and can make a GPU exclusive: given to at most one container at a time.  "
               "It is disabled until enabled.  A GPU is made exclusive only while at most one container uses it.  "
               "GPU ids are indices as 'amd-ctk gpu list' shows them, ranges (1-3), all, or the CDI names of "
               "this host's spec (amd.com/gpu=0).  Every gpu-tracker command but --help needs root.",
    .subs = tracker_subs,
    .run = ctk_cli_tracker_access_main,
    .exit_status = "1\tnot root, an unknown GPU, an accessibility other than exclusive or shared, or the state "
                   "cannot be read or written",
    .files = STATE_FILES,
    .examples = "    sudo amd-ctk gpu-tracker enable\n"
                "    sudo amd-ctk gpu-tracker 1-3 exclusive\n"
                "    amd-ctk gpu-tracker status",
    .see_also = "amd-container-runtime(1)",
};
