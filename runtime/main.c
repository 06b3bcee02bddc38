/* amd-container-runtime: an OCI runtime shim over runc/crun.
 *
 * On create/run it gives the container the GPUs its spec asks for, then it
 * execs the low-level runtime with the same arguments (minus our leading
 * options).  With the GPU tracker enabled, the GPUs are recorded before the
 * low-level runtime runs, and a delete runs it as a child and releases the
 * GPUs once the container is gone.  A create whose spec names no GPU
 * variable and no request annotation is handed over before anything else
 * is read (bundle.h).  It never writes to stdout: stdout belongs to runc. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "args.h"
#include "core/base/base.h"
#include "core/config/config.h"
#include "create.h"
#include "help.h"
#include "lowlevel.h"
#include "runc_log.h"
#include "tracker_glue.h"

#define IDENT "amd-container-runtime"

static int fail(const struct rt_args *a, const struct ctk_error *err)
{
        const char *msg = err != NULL ? err->msg : "unknown error";
        ctk_log_msg(CTK_LOG_ERROR, msg, NULL);
        return rt_report_error(a, msg);
}

/* The runtime carries no simulator: it reads hosts through the sysfs
 * backend, a simulated one as a directory (config key root). */
static int refuse_profile(const char *config, const char *profile, struct ctk_error **err)
{
        bool from_env = profile == NULL;
        if (from_env)
                profile = getenv("AMD_CTK_PROFILE");
        if (profile == NULL || profile[0] == '\0')
                return 0;
        return ctk_error_set(err, EINVAL,
                             "%s%s%s: amd-container-runtime carries no simulator: serve the host with "
                             "'amd-ctk-fakefs mount %s DIR' or write it with 'amd-ctk-fakefs materialize %s DIR', "
                             "then set \"root\" to DIR in %s",
                             from_env ? "AMD_CTK_PROFILE=" : config, from_env ? "" : ": \"profile\" is ", profile,
                             profile, profile, config);
}

static int load_config(const struct rt_args *a, struct ctk_config *cfg, struct ctk_error **err)
{
        const char *named = rt_args_config_file(a);
        const char *path = named != NULL ? named : CTK_DEFAULT_CONFIG_PATH;
        if (ctk_config_load(path, named == NULL, cfg, err) < 0)
                return -1;
        return refuse_profile(path, cfg->profile, err);
}

/* --help, --version: ours on stdout, before the low-level runtime's. */
static void print_ours(const struct rt_args *a, const char *runtime)
{
        if (a->version)
                rt_print_version();
        else if (a->help_ours) {
                ctk_cmdline_help(stdout, (const struct ctk_cmd *const[]){&rt_program}, 1);
                printf("\nThe other options and commands are those of the low-level runtime, %s:\n\n", runtime);
        }
        (void)fflush(stdout);
}

/* jansson seeds its hash function from /dev/urandom (open, read, close) on
 * first use; one getrandom() call does the same on the start path. */
static void seed_json_hash(void)
{
        size_t seed = 0;
        if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) == (ssize_t)sizeof(seed) && seed != 0)
                json_object_seed(seed);
}

int main(int argc, char **argv)
{
        seed_json_hash();
        struct rt_args a;
        _cleanup_error_ struct ctk_error *err = NULL;
        if (rt_args_parse(argc, argv, &a, &err) < 0) {
                int r = fail(&a, err);
                return a.usage_error ? CTK_CMDLINE_USAGE : r;
        }
        if (a.help_man) { /* the man page (make install) */
                ctk_cmdline_man(stdout, (const struct ctk_cmd *const[]){&rt_program}, 1);
                return ctk_stdout_close(&err) < 0 ? fail(&a, err) : 0;
        }

        struct ctk_config cfg = {0};
        if (load_config(&a, &cfg, &err) < 0) {
                int r = fail(&a, err);
                ctk_config_clear(&cfg);
                return r;
        }
        /* A log only for container operations (not --help, --version). */
        if (!a.help && !a.version)
                ctk_log_open(IDENT, cfg.log_file,
                             a.debug ? CTK_LOG_DEBUG : ctk_log_level_or(cfg.log_level, CTK_LOG_INFO));

        _cleanup_free_ char *runtime = NULL;
        int r = rt_lowlevel_find(cfg.runtime_path, getenv("PATH"), "/proc/self/exe", &runtime, &err);
        if (r == 0 && rt_args_edits_spec(&a))
                r = rt_create_prepare(&cfg, &a, runtime, &err);
        int status = -1; /* >= 0: the low-level runtime ran as a child; exit with this */
        /* With the GPU tracker enabled, runc's delete runs as a child and the
         * container's GPUs are released once it is gone (-1: exec). */
        if (r == 0 && a.command == RT_CMD_DELETE)
                status = rt_tracker_delete(&cfg, &a, runtime, argv + a.runc_argi, argc - a.runc_argi);
        if (r < 0 || status >= 0) {
                if (r < 0)
                        status = fail(&a, err);
                ctk_config_clear(&cfg);
                ctk_log_close();
                return status;
        }

        if (a.version || a.help_ours)
                print_ours(&a, runtime);
        ctk_log(CTK_LOG_DEBUG, "%s %s: exec %s", CTK_CUT(a.command_name != NULL ? a.command_name : "(no command)"),
                CTK_CUT(a.id != NULL ? a.id : ""), CTK_CUT(runtime));
        if (a.version && a.command_name != NULL && strcmp(a.command_name, "version") == 0)
                rt_lowlevel_exec(runtime, (char *[]){(char *)"--version", NULL}, 1, &err); /* runc has no `version` */
        else
                rt_lowlevel_exec(runtime, argv + a.runc_argi, argc - a.runc_argi, &err);
        if (rt_args_edits_spec(&a) && a.id != NULL) /* the container will not exist */
                rt_tracker_release(&cfg, a.id);
        ctk_config_clear(&cfg);
        return fail(&a, err);
}
