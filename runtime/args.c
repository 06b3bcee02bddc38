/* Parsing runc's command line the way runc (Go flag + urfave/cli) and crun
 * read it, to find the subcommand, the bundle and the container id.
 *
 * Options may be spelled -name, --name, -name=value, --name value; options
 * of a subcommand may follow its positional arguments (urfave/cli reorders
 * them); "--" ends option parsing. */
#include "args.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define PROGRAM "amd-container-runtime"

struct opt {
        const char *name;
        bool takes_value;
};

/* runc 1.1/1.2 and crun global options. */
static const struct opt global_opts[] = {
    {"debug", false},
    {"log", true},
    {"log-format", true},
    {"log-level", true},
    {"root", true},
    {"criu", true},
    {"systemd-cgroup", false},
    {"rootless", true},
    {"cgroup-manager", true},
    {"help", false},
    {"h", false},
    {"version", false},
    {"v", false},
    {"V", false},
    {NULL, false},
};

/* create and run (runc and crun). */
static const struct opt create_opts[] = {
    {"bundle", true},   {"b", true},         {"console-socket", true},  {"pidfd-socket", true},
    {"pid-file", true}, {"no-pivot", false}, {"no-new-keyring", false}, {"preserve-fds", true},
    {"detach", false},  {"d", false},        {"keep", false},           {"no-subreaper", false},
    {"config", true},   {"f", true},         {"help", false},           {"h", false},
    {NULL, false},
};

static const struct opt delete_opts[] = {
    {"force", false}, {"f", false}, {"help", false}, {"h", false}, {NULL, false},
};

/* A boolean flag's value as Go's strconv.ParseBool reads it: NULL (no
 * value) is true; anything it refuses is false here (runc fails then). */
static bool bool_value(const char *value)
{
        static const char *const yes[] = {"1", "t", "T", "true", "TRUE", "True"};
        if (value == NULL)
                return true;
        for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
                if (strcmp(value, yes[i]) == 0)
                        return true;
        return false;
}

static bool is_option(const char *arg)
{
        return arg[0] == '-' && arg[1] != '\0' && strcmp(arg, "--") != 0;
}

/* Splits "-name", "--name=value" into name (length *namelen) and inline value. */
static const char *option_name(const char *arg, size_t *namelen, const char **inline_value)
{
        const char *name = arg + 1;
        if (*name == '-')
                name++;
        const char *eq = strchr(name, '=');
        *namelen = eq != NULL ? (size_t)(eq - name) : strlen(name);
        *inline_value = eq != NULL ? eq + 1 : NULL;
        return name;
}

static const struct opt *find_opt(const struct opt *tab, const char *name, size_t len)
{
        for (; tab->name != NULL; tab++)
                if (strlen(tab->name) == len && strncmp(tab->name, name, len) == 0)
                        return tab;
        return NULL;
}

static bool name_is(const char *name, size_t len, const char *want)
{
        return strlen(want) == len && strncmp(name, want, len) == 0;
}

/* Consumes the option at argv[*i]: returns its table entry (NULL if unknown)
 * and its value (inline or the next argument). */
static const struct opt *take_option(const struct opt *tab, int argc, char *const argv[], int *i, const char **name,
                                     size_t *len, const char **value)
{
        const char *inline_value;
        *name = option_name(argv[*i], len, &inline_value);
        const struct opt *o = find_opt(tab, *name, *len);
        *value = inline_value;
        if (o != NULL && o->takes_value && inline_value == NULL && *i + 1 < argc)
                *value = argv[++*i];
        return o;
}

static int parse_leading(int argc, char *const argv[], struct rt_args *out, struct ctk_error **err)
{
        static const char prefix[] = "--amd-";
        int i = 1;
        while (i < argc && strncmp(argv[i], prefix, sizeof(prefix) - 1) == 0) {
                size_t len;
                const char *value;
                const char *name = option_name(argv[i], &len, &value);
                out->usage_error = true;
                if (!name_is(name, len, "amd-config"))
                        return ctk_error_set(err, EINVAL, "unknown option '%s'" CTK_CMDLINE_SEE_HELP,
                                             CTK_CUTN(argv[i], (size_t)(name - argv[i]) + len), PROGRAM);
                if (value == NULL) {
                        if (i + 1 >= argc)
                                return ctk_error_set(
                                    err, EINVAL, "option '--amd-config' needs a value" CTK_CMDLINE_SEE_HELP, PROGRAM);
                        value = argv[++i];
                }
                out->usage_error = false;
                if (*value == '\0')
                        return ctk_error_set(err, EINVAL, "invalid value '' for --amd-config (a file name)");
                out->amd_config = value;
                i++;
        }
        out->runc_argi = i;
        return i;
}

static int parse_globals(int argc, char *const argv[], int i, struct rt_args *out)
{
        while (i < argc && is_option(argv[i])) {
                const char *name, *value;
                size_t len;
                const struct opt *o = take_option(global_opts, argc, argv, &i, &name, &len, &value);
                i++;
                if (o == NULL)
                        continue; /* unknown: runc reports it */
                if (name_is(name, len, "root"))
                        out->root = value;
                else if (name_is(name, len, "log"))
                        out->log = value;
                else if (name_is(name, len, "log-format"))
                        out->log_format = value;
                else if (name_is(name, len, "debug"))
                        out->debug = value == NULL || strcmp(value, "false") != 0;
                else if (name_is(name, len, "help") || name_is(name, len, "h")) {
                        out->help = out->help_ours = true;
                        out->help_man = value != NULL && strcmp(value, "man") == 0;
                } else if (name_is(name, len, "version") || name_is(name, len, "v") || name_is(name, len, "V"))
                        out->version = true;
        }
        if (i < argc && strcmp(argv[i], "--") == 0)
                i++;
        return i;
}

static void parse_command_options(int argc, char *const argv[], int i, const struct opt *tab, struct rt_args *out)
{
        bool options_done = false;
        for (; i < argc; i++) {
                if (options_done || !is_option(argv[i])) {
                        if (strcmp(argv[i], "--") == 0 && !options_done) {
                                options_done = true;
                                continue;
                        }
                        if (out->id == NULL)
                                out->id = argv[i];
                        continue;
                }
                const char *name, *value;
                size_t len;
                const struct opt *o = take_option(tab, argc, argv, &i, &name, &len, &value);
                if (o == NULL)
                        continue;
                if (name_is(name, len, "bundle") || name_is(name, len, "b"))
                        out->bundle = value;
                else if (tab == create_opts && (name_is(name, len, "config") || name_is(name, len, "f")))
                        out->config = value;
                else if (tab == delete_opts && (name_is(name, len, "force") || name_is(name, len, "f")))
                        out->force = bool_value(value);
                else if (name_is(name, len, "help") || name_is(name, len, "h"))
                        out->help = true;
        }
}

int rt_args_parse(int argc, char *const argv[], struct rt_args *out, struct ctk_error **err)
{
        *out = (struct rt_args){0};
        int i = parse_leading(argc, argv, out, err);
        if (i < 0)
                return -1;
        i = parse_globals(argc, argv, i, out);
        if (i >= argc) {
                out->command = RT_CMD_NONE;
                if (!out->version) /* runc prints its help: ours first */
                        out->help = out->help_ours = true;
                return 0;
        }
        out->command_argi = i;
        const char *cmd = argv[i++];
        out->command_name = cmd;
        if (strcmp(cmd, "create") == 0) {
                out->command = RT_CMD_CREATE;
                parse_command_options(argc, argv, i, create_opts, out);
        } else if (strcmp(cmd, "run") == 0) {
                out->command = RT_CMD_RUN;
                parse_command_options(argc, argv, i, create_opts, out);
        } else if (strcmp(cmd, "delete") == 0) {
                out->command = RT_CMD_DELETE;
                parse_command_options(argc, argv, i, delete_opts, out);
        } else {
                out->command = RT_CMD_OTHER;
                if (strcmp(cmd, "help") == 0 || strcmp(cmd, "h") == 0) {
                        out->help = true;
                        out->help_ours = i >= argc;     /* `help COMMAND`: runc's help of COMMAND */
                } else if (strcmp(cmd, "version") == 0) /* runc has no such command: --version */
                        out->version = true;
        }
        return 0;
}

bool rt_args_edits_spec(const struct rt_args *a)
{
        return (a->command == RT_CMD_CREATE || a->command == RT_CMD_RUN) && !a->help && !a->version;
}

const char *rt_args_config_file(const struct rt_args *a)
{
        if (a->amd_config != NULL)
                return a->amd_config;
        const char *env = getenv("AMD_CTK_CONFIG");
        return env != NULL && env[0] != '\0' ? env : NULL;
}
