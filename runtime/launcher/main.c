/* amd-container-runtime, as docker (or containerd, podman) runs it.
 *
 * Most calls of an OCI runtime need nothing from us: state, start, kill,
 * delete without GPU tracking, create of a container that asks for no GPU.
 * This launcher is linked without glibc (musl, when available), so that it
 * starts in tens of microseconds instead of the ~0.5 ms glibc's start-up
 * takes on virtual machines where each of its CPUID probes traps; it execs
 * the low-level runtime itself for those calls.  Any other call with
 * something to do (a spec that may name GPUs; a delete while the GPU
 * tracker may be enabled, whose GPUs are released only once the container
 * is gone), and anything it is not sure about (an unusual configuration
 * file, --debug, --version, a failure), goes to the full runtime
 * (runtime/main.c) with the same arguments, which decides and reports
 * errors exactly as if it had been run directly. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config_scan.h"
#include "core/base/base.h"
#include "core/config/config.h"
#include "core/tracker/tracker.h"
#include "runtime/args.h"
#include "runtime/bundle.h"
#include "runtime/lowlevel.h"
#include "runtime/runc_log.h"

/* The configuration as the full runtime would read it, when the launcher
 * can read it too: trusted all the way, as the full runtime reads it (its
 * runtime-path is executed as root); else the full runtime says why. */
static bool load_config(const struct rt_args *a, struct ctk_config *cfg)
{
        const char *path = rt_args_config_file(a);
        bool missing_ok = path == NULL;
        if (path == NULL)
                path = CTK_DEFAULT_CONFIG_PATH;
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        _cleanup_error_ struct ctk_error *err = NULL;
        if (ctk_file_read_trusted(path, CTK_FILE_MAX, &text, &len, &err) < 0)
                return err->code == ENOENT && missing_ok && ctk_config_defaults(cfg, NULL) == 0;
        return rt_config_scan(text, len, cfg) == 0;
}

/* True when a create/run spec cannot ask for GPUs. */
static bool spec_is_plain(const struct rt_args *a, const struct ctk_config *cfg)
{
        _cleanup_free_ char *path = rt_spec_path(a);
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        _cleanup_error_ struct ctk_error *err = NULL;
        if (path == NULL || ctk_file_read(path, RT_SPEC_MAX, 0, &text, &len, &err) < 0)
                return false;
        return !rt_spec_may_request_gpus(text, len, &cfg->cdi_annotation_prefixes);
}

/* True when the GPU tracker is certainly not enabled, so that a delete has
 * nothing to release (its marker file is absent: tracker_file.h). */
static bool tracker_off(const struct ctk_config *cfg)
{
        char marker[PATH_MAX];
        if (snprintf(marker, sizeof(marker), "%s/%s", cfg->state_dir, CTK_TRACKER_ENABLED_FILE) >= (int)sizeof(marker))
                return false;
        return access(marker, F_OK) < 0 && errno == ENOENT;
}

/* The low-level runtime to exec directly, or NULL when the full runtime
 * has to take the call. */
static char *direct_runtime(const struct rt_args *a)
{
        if (a->version || a->help || a->debug)
                return NULL;
        _cleanup_config_ struct ctk_config cfg = {0};
        if (!load_config(a, &cfg) || strcmp(cfg.log_level, "debug") == 0)
                return NULL; /* the full runtime logs every call at debug level */
        switch (a->command) {
        case RT_CMD_CREATE:
        case RT_CMD_RUN:
                if (!spec_is_plain(a, &cfg))
                        return NULL;
                break;
        case RT_CMD_DELETE:
                if (a->id != NULL && !tracker_off(&cfg))
                        return NULL;
                break;
        case RT_CMD_NONE:
        case RT_CMD_OTHER:
                break;
        }
        _cleanup_free_ char *runtime = NULL;
        _cleanup_error_ struct ctk_error *err = NULL;
        if (rt_lowlevel_find(cfg.runtime_path, getenv("PATH"), (const char *const[]){"/proc/self/exe", NULL}, &runtime,
                             &err) < 0)
                return NULL;
        return ctk_steal(&runtime);
}

int main(int argc, char **argv)
{
        struct rt_args a = {0};
        _cleanup_error_ struct ctk_error *err = NULL;
        bool parsed = rt_args_parse(argc, argv, &a, &err) == 0;
        char msg[PATH_MAX * 3];
        if (getenv(RT_LAUNCHER_ENV) != NULL) /* the full runtime never execs the launcher */
                return rt_report_error(&a, "started by itself (" RT_LAUNCHER_ENV
                                           " is set): set runtime-path to runc or crun");

        if (parsed) {
                _cleanup_free_ char *runtime = direct_runtime(&a);
                if (runtime != NULL)
                        rt_lowlevel_exec(runtime, argv + a.runc_argi, argc - a.runc_argi, NULL);
                /* if that failed, the full runtime reports it */
        }

        char self[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
        if (n <= 0) {
                (void)snprintf(msg, sizeof(msg), "cannot read /proc/self/exe: %s", strerror(errno));
                return rt_report_error(&a, msg);
        }
        self[n] = '\0';

        char full[PATH_MAX * 2];
        const char *slash = strrchr(self, '/');
        (void)snprintf(full, sizeof(full), "%.*s/%s", (int)(slash - self), self, RT_FULL_RUNTIME);
        setenv(RT_LAUNCHER_ENV, self, 1);
        execv(full, argv);
        (void)snprintf(msg, sizeof(msg), "cannot run %s: %s (reinstall amd-container-toolkit)", full, strerror(errno));
        return rt_report_error(&a, msg);
}
