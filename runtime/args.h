/* The command line of amd-container-runtime: our own leading options, then
 * runc's (or crun's) command line, which is passed on untouched.
 *
 *   amd-container-runtime [--amd-config=FILE] [runc global options] COMMAND [command options] ID
 *
 * Parsing is pure: every string points into argv. */
#ifndef RT_ARGS_H
#define RT_ARGS_H

#include <stdbool.h>

#include "core/base/base.h"

enum rt_command {
        RT_CMD_NONE,   /* no subcommand (runc prints its help) */
        RT_CMD_CREATE, /* create: the spec is edited */
        RT_CMD_RUN,    /* run = create + start: the spec is edited */
        RT_CMD_DELETE, /* delete: resources held for ID are released */
        RT_CMD_OTHER,  /* anything else: passed through */
};

struct rt_args {
        /* Our leading options. */
        const char *amd_config; /* --amd-config=FILE, NULL when absent */
        int runc_argi;          /* argv index of the first argument for the low-level runtime */

        /* runc global options. */
        const char *root;       /* --root: state directory */
        const char *log;        /* --log: runc's log file */
        const char *log_format; /* --log-format: "text" (default) or "json" */
        bool debug;             /* --debug */
        bool version;           /* --version / -v, or the command `version` */
        bool help;              /* --help / -h / `help` command / `COMMAND --help` / no command */
        bool help_ours;         /* the help is amd-container-runtime's too (not a command's of runc) */
        bool help_man;          /* --help=man: our man page, and nothing else */
        bool usage_error;       /* rt_args_parse failed on a usage error (exit status 2) */

        /* The subcommand. */
        enum rt_command command;
        const char *command_name; /* as given, NULL when none */
        int command_argi;         /* argv index of command_name (0 when none): runc's global options
                                     are argv[runc_argi..command_argi) */
        const char *bundle;       /* create/run: --bundle/-b, NULL = current directory */
        const char *config;       /* create/run: crun's --config/-f spec file name, NULL = config.json */
        const char *id;           /* create/run/delete: first positional argument, NULL when absent */
        bool force;               /* delete: --force/-f (true only for a value Go reads as true) */
};

/* Parses argv (argv[0] is the program).  Fails only on our own options
 * (unknown --amd-* option or missing value: out->usage_error; an empty
 * value); anything runc would reject is left for runc to report. */
int rt_args_parse(int argc, char *const argv[], struct rt_args *out, struct ctk_error **err);

/* The configuration file named for this call: --amd-config, else a
 * non-empty $AMD_CTK_CONFIG; NULL for the default one (which may be
 * missing). */
const char *rt_args_config_file(const struct rt_args *a);

/* True when the command edits the bundle's spec (create/run, not help). */
bool rt_args_edits_spec(const struct rt_args *a);

#endif
