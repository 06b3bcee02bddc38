/* The command-line grammar of cmdline.h: parsing, the built-in --help,
 * help, --version, and the one-line errors. */
#include "cmdline.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "format.h"
#include "version.h"

static const struct ctk_opt help_opt = CTK_FLAG("help h", "show help");
static const struct ctk_opt version_opt = CTK_FLAG("version v", "print the version");

void ctk_cmdline_print_version(void)
{
        printf("Version: %s\nBuild Date: %s\nGitCommit: %s\n", ctk_version, ctk_build_date, ctk_git_commit);
}

bool ctk_cmd_is_group(const struct ctk_cmd *cmd)
{
        return cmd->subs != NULL && cmd->subs[0] != NULL;
}

size_t ctk_cmd_shown_opts(const struct ctk_cmd *cmd, bool is_program, const struct ctk_opt *out[], size_t max)
{
        size_t n = 0;
        for (const struct ctk_opt *o = cmd->opts; o != NULL && o->names != NULL && n < max; o++)
                if (!o->hidden)
                        out[n++] = o;
        if (n < max)
                out[n++] = &help_opt;
        if (is_program && cmd->print_version != NULL && n < max)
                out[n++] = &version_opt;
        return n;
}

char *ctk_cmd_path_name(const struct ctk_cmd *const *path, size_t depth, char sep)
{
        size_t len = 1;
        for (size_t i = 0; i < depth; i++)
                len += strlen(path[i]->name) + 1;
        char *s = malloc(len), *p = s;
        if (s == NULL)
                return NULL;
        for (size_t i = 0; i < depth; i++) {
                if (i > 0)
                        *p++ = sep;
                p = stpcpy(p, path[i]->name);
        }
        *p = '\0';
        return s;
}

/* Whether one of the space-separated names is name[0..len). */
static bool names_match(const char *names, const char *name, size_t len)
{
        for (const char *n = names; *n != '\0';) {
                size_t l = strcspn(n, " ");
                if (l == len && strncmp(n, name, len) == 0)
                        return true;
                n += l;
                n += strspn(n, " ");
        }
        return false;
}

char *ctk_opt_spec(const struct ctk_opt *o)
{
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (f == NULL)
                return NULL;
        bool first = true;
        for (const char *n = o->names; *n != '\0';) {
                size_t l = strcspn(n, " ");
                (void)fprintf(f, "%s%s%.*s", first ? "" : ", ", l == 1 ? "-" : "--", (int)l, n);
                if (o->type == CTK_OPT_VALUE)
                        (void)fprintf(f, " %s", o->arg != NULL ? o->arg : "VALUE");
                else if (o->type == CTK_OPT_OPTIONAL)
                        (void)fprintf(f, "[=%s]", o->arg != NULL ? o->arg : "VALUE");
                first = false;
                n += l;
                n += strspn(n, " ");
        }
        if (fclose(f) != 0) {
                free(buf);
                return NULL;
        }
        return buf;
}

/* "PATH: message", with " (see 'PATH --help')" when see_help, as one line on
 * stderr (the values it quotes cut by the caller, format.h). */
__attribute__((format(printf, 3, 0))) static void print_line(const struct ctk_cmdline *cl, bool see_help,
                                                             const char *fmt, va_list ap)
{
        char *msg = ctk_one_line(ctk_vformat(fmt, ap));
        const char *name = cl->name != NULL ? cl->name : cl->path[0]->name;
        (void)fprintf(stderr, "%s: %s", name, msg != NULL ? msg : "out of memory");
        if (see_help)
                (void)fprintf(stderr, CTK_CMDLINE_SEE_HELP, name);
        (void)fputc('\n', stderr);
        free(msg);
}

int ctk_cmdline_usage_error(const struct ctk_cmdline *cl, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        print_line(cl, true, fmt, ap);
        va_end(ap);
        return CTK_CMDLINE_USAGE;
}

int ctk_cmdline_fail(const struct ctk_cmdline *cl, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        print_line(cl, false, fmt, ap);
        va_end(ap);
        return 1;
}

int ctk_cmdline_bad_value(const struct ctk_cmdline *cl, const char *what, const char *value, const char *expected)
{
        return ctk_cmdline_fail(cl, "invalid value '%s' for %s (%s)", CTK_CUT(value), what, expected);
}

static void clear_values(struct ctk_optval *v)
{
        for (size_t i = 0; i < CTK_CMDLINE_MAX_OPTS; i++)
                ctk_strv_clear(&v[i].values);
        memset(v, 0, sizeof(*v) * CTK_CMDLINE_MAX_OPTS);
}

static void cmdline_clear(struct ctk_cmdline *cl)
{
        clear_values(cl->global);
        clear_values(cl->opt);
        free(cl->args);
        free(cl->name);
        memset(cl, 0, sizeof(*cl));
}

static int push(struct ctk_cmdline *cl, const struct ctk_cmd *cmd)
{
        if (cl->depth == CTK_CMDLINE_MAX_DEPTH)
                return ctk_cmdline_fail(cl, "commands nested too deep");
        cl->path[cl->depth++] = cmd;
        free(cl->name);
        cl->name = ctk_cmd_path_name(cl->path, cl->depth, ' ');
        if (cl->name == NULL)
                return ctk_cmdline_fail(cl, "out of memory");
        return 0;
}

static const struct ctk_cmd *find_sub(const struct ctk_cmd *cmd, const char *name)
{
        for (size_t i = 0; cmd->subs != NULL && cmd->subs[i] != NULL; i++)
                if (strcmp(cmd->subs[i]->name, name) == 0)
                        return cmd->subs[i];
        return NULL;
}

static int print_help(const struct ctk_cmdline *cl, bool man)
{
        if (man)
                ctk_cmdline_man(stdout, cl->path, cl->depth);
        else
                ctk_cmdline_help(stdout, cl->path, cl->depth);
        return 0;
}

/* `help [COMMAND...]` (or `h`) where a command is expected: the help of
 * the command the words name below the current one. */
static int help_command(struct ctk_cmdline *cl, int n, char **words)
{
        for (int i = 0; i < n; i++) {
                const struct ctk_cmd *sub = find_sub(ctk_cmdline_cmd(cl), words[i]);
                if (sub == NULL)
                        return ctk_cmdline_usage_error(cl, "unknown command '%s'", CTK_CUT(words[i]));
                int r = push(cl, sub);
                if (r != 0)
                        return r;
        }
        return print_help(cl, false);
}

/* The option at argv[*i] for the current command.  0: go on; 1: done,
 * with *status (the help, the version, or an error was printed). */
static int take_option(struct ctk_cmdline *cl, struct ctk_optval *vals, int argc, char **argv, int *i, int *status)
{
        const struct ctk_cmd *cmd = ctk_cmdline_cmd(cl);
        const char *arg = argv[*i];
        const char *name = arg + (arg[1] == '-' ? 2 : 1);
        const char *eq = strchr(name, '=');
        size_t len = eq != NULL ? (size_t)(eq - name) : strlen(name);
        const char *value = eq != NULL ? eq + 1 : NULL;
        int shown = (int)(name - arg + (ptrdiff_t)len); /* the option as typed, without its value */

        if (names_match(help_opt.names, name, len)) {
                if (value != NULL && strcmp(value, "man") != 0)
                        *status = ctk_cmdline_bad_value(cl, "--help", value, "only man: the manual page");
                else
                        *status = print_help(cl, value != NULL);
                return 1;
        }
        if (cl->depth == 1 && cmd->print_version != NULL && names_match(version_opt.names, name, len)) {
                if (value != NULL)
                        *status = ctk_cmdline_usage_error(cl, "option '%s' takes no value", CTK_CUTN(arg, shown));
                else
                        cmd->print_version();
                return 1;
        }
        size_t idx = 0;
        while (cmd->opts != NULL && cmd->opts[idx].names != NULL && !names_match(cmd->opts[idx].names, name, len))
                idx++;
        if (cmd->opts == NULL || cmd->opts[idx].names == NULL || idx >= CTK_CMDLINE_MAX_OPTS) {
                *status = ctk_cmdline_usage_error(cl, "unknown option '%s'", CTK_CUTN(arg, shown));
                return 1;
        }
        const struct ctk_opt *o = &cmd->opts[idx];
        struct ctk_optval *v = &vals[idx];
        if (o->type == CTK_OPT_FLAG) {
                if (value != NULL && strcmp(value, "true") != 0 && strcmp(value, "false") != 0) {
                        *status = ctk_cmdline_fail(cl, "invalid value '%s' for %s (true or false)", CTK_CUT(value),
                                                   CTK_CUTN(arg, shown));
                        return 1;
                }
                v->on = value == NULL || strcmp(value, "true") == 0;
        } else if (o->type == CTK_OPT_OPTIONAL) {
                v->on = true;
                v->value = value;
        } else {
                if (value == NULL) {
                        if (*i + 1 >= argc) {
                                *status =
                                    ctk_cmdline_usage_error(cl, "option '%s' needs a value", CTK_CUTN(arg, shown));
                                return 1;
                        }
                        value = argv[++*i];
                }
                v->value = value;
                if (o->repeat && ctk_strv_push(&v->values, value) < 0) {
                        *status = ctk_cmdline_fail(cl, "out of memory");
                        return 1;
                }
        }
        v->count++;
        v->at = *i;
        return 0;
}

/* Parses argv into cl.  0: run the command; 1: done, with *status. */
static int parse(const struct ctk_cmd *prog, int argc, char **argv, struct ctk_cmdline *cl, int *status)
{
        *status = 0;
        if (push(cl, prog) != 0 || (cl->args = calloc((size_t)argc + 1, sizeof(*cl->args))) == NULL) {
                *status = 1;
                return 1;
        }
        struct ctk_optval *vals = cl->global;
        bool options_done = false;
        for (int i = 1; i < argc; i++) {
                const char *a = argv[i];
                if (!options_done && strcmp(a, "--") == 0) {
                        options_done = true;
                        continue;
                }
                if (!options_done && a[0] == '-' && a[1] != '\0') {
                        if (take_option(cl, vals, argc, argv, &i, status) != 0)
                                return 1;
                        continue;
                }
                const struct ctk_cmd *cmd = ctk_cmdline_cmd(cl);
                if (ctk_cmd_is_group(cmd) && cl->nargs == 0) {
                        if (strcmp(a, "help") == 0 || strcmp(a, "h") == 0) {
                                *status = help_command(cl, argc - i - 1, argv + i + 1);
                                return 1;
                        }
                        const struct ctk_cmd *sub = find_sub(cmd, a);
                        if (sub != NULL) {
                                if ((*status = push(cl, sub)) != 0)
                                        return 1;
                                clear_values(cl->opt);
                                vals = cl->opt;
                                continue;
                        }
                        if (cmd->run == NULL) {
                                *status = ctk_cmdline_usage_error(cl, "unknown command '%s'", CTK_CUT(a));
                                return 1;
                        }
                }
                cl->args[cl->nargs++] = argv[i];
        }
        const struct ctk_cmd *cmd = ctk_cmdline_cmd(cl);
        if ((ctk_cmd_is_group(cmd) && cl->nargs == 0) || cmd->run == NULL) {
                *status = print_help(cl, false);
                return 1;
        }
        if (cl->nargs < cmd->min_args) {
                *status = ctk_cmdline_usage_error(cl, "missing argument: expected %s", cmd->args);
                return 1;
        }
        if (cmd->max_args >= 0 && cl->nargs > cmd->max_args) {
                *status = ctk_cmdline_usage_error(cl, "unexpected argument '%s'", cl->args[cmd->max_args]);
                return 1;
        }
        return 0;
}

int ctk_cmdline_main(const struct ctk_cmd *prog, int argc, char **argv, void *ctx)
{
        struct ctk_cmdline cl = {0};
        int status;
        if (parse(prog, argc, argv, &cl, &status) == 0) {
                if (prog->before != NULL)
                        status = prog->before(ctx, &cl);
                if (status == 0)
                        status = ctk_cmdline_cmd(&cl)->run(ctx, &cl);
        }
        cmdline_clear(&cl);
        return status;
}
