/* One command-line grammar for the toolkit's programs (amd-ctk,
 * amd-ctk-fakefs, amd-container-runtime).
 *
 * A program is a tree of commands (struct ctk_cmd), each with its options
 * and its documentation.  ctk_cmdline_main parses argv against the tree,
 * answers --help/-h, `help`/`h` and --version itself, reports a usage error
 * as one line (exit CTK_CMDLINE_USAGE), and runs the command.  The same tree
 * renders the help text (cmdline_help.c) and the man pages (cmdline_man.c,
 * `--help=man`), so neither can disagree with the parser.
 *
 * The grammar, the same for every command:
 *   - options are --name or -name (Go's flag spelling, as the Go toolkit
 *     takes them), with a value as --name VALUE or --name=VALUE; a flag also
 *     takes =true or =false; one-letter names are shown as -x;
 *   - options and arguments may come in any order; "--" ends the options;
 *   - a program's own (global) options come before the command;
 *   - --help/-h anywhere (before "--") prints the help of the command named
 *     so far; `help [COMMAND...]` and `h` do the same where a command name is
 *     expected; a group named without a subcommand prints its help; all on
 *     standard output with exit status 0;
 *   - an unknown command or option, a missing value or argument, an
 *     unexpected argument: one line on standard error,
 *       PROGRAM COMMAND: unknown option '--ouput' (see 'PROGRAM COMMAND --help')
 *     and exit status 2;
 *   - a value a command refuses: one line "PROGRAM COMMAND: what", exit 1. */
#ifndef CTK_CMDLINE_H
#define CTK_CMDLINE_H

#include <stdbool.h>
#include <stdio.h>

#include "strv.h"

#define CTK_CMDLINE_USAGE     2 /* exit status of a usage error */
#define CTK_CMDLINE_MAX_DEPTH 4 /* program, group, command, ... */
#define CTK_CMDLINE_MAX_OPTS  24
/* The end of a usage error line (printf format; the command's path). */
#define CTK_CMDLINE_SEE_HELP " (see '%s --help')"

enum ctk_opt_type {
        CTK_OPT_FLAG,     /* --name, or --name=true / --name=false */
        CTK_OPT_VALUE,    /* --name VALUE or --name=VALUE */
        CTK_OPT_OPTIONAL, /* --name, or --name=VALUE (a value only after '=') */
};

struct ctk_opt {
        const char *names; /* space-separated, e.g. "output o"; the first is the one shown first */
        const char *arg;   /* the value's name in the help ("PATH") */
        const char *help;  /* one paragraph */
        enum ctk_opt_type type;
        bool repeat; /* may be given more than once: every value is kept */
        bool hidden; /* accepted, not shown */
};

/* Table entries: names, the value's name, the help. */
#define CTK_FLAG(names_, help_)                                                                                        \
        {                                                                                                              \
                .names = (names_), .type = CTK_OPT_FLAG, .help = (help_)                                               \
        }
#define CTK_VALUE(names_, arg_, help_)                                                                                 \
        {                                                                                                              \
                .names = (names_), .type = CTK_OPT_VALUE, .arg = (arg_), .help = (help_)                               \
        }
#define CTK_VALUES(names_, arg_, help_)                                                                                \
        {                                                                                                              \
                .names = (names_), .type = CTK_OPT_VALUE, .arg = (arg_), .help = (help_), .repeat = true               \
        }
#define CTK_OPTIONAL(names_, arg_, help_)                                                                              \
        {                                                                                                              \
                .names = (names_), .type = CTK_OPT_OPTIONAL, .arg = (arg_), .help = (help_)                            \
        }

/* What the command line said of one option. */
struct ctk_optval {
        unsigned count;         /* times given */
        int at;                 /* argv index of the last occurrence */
        bool on;                /* FLAG: the last value given (true unless =false) */
        const char *value;      /* VALUE, OPTIONAL with '=': the last value */
        struct ctk_strv values; /* repeat: every value, in order */
};

struct ctk_cmdline;

struct ctk_cmd {
        const char *name;                  /* as typed; a program's: its name */
        const char *summary;               /* one line: NAME, and the COMMANDS list of the parent */
        const char *args;                  /* positional arguments for USAGE ("PROFILE DIR"), NULL: none */
        int min_args, max_args;            /* how many positional arguments (max_args < 0: any number) */
        const char *usage;                 /* USAGE lines as written, instead of the generated ones */
        const char *help_name;             /* the name NAME shows in --help, instead of the command's path */
        const char *description;           /* paragraphs (blank line between); an indented line is kept as it is */
        const char *details;               /* more paragraphs, for the man page only */
        const struct ctk_opt *opts;        /* ends with {0}; --help (and a program's --version) come on top */
        const struct ctk_cmd *const *subs; /* subcommands, NULL-terminated, or NULL */
        int (*run)(void *ctx, const struct ctk_cmdline *cl); /* NULL for a group that only groups */
        bool hidden;                                         /* not listed (hooks, installation steps) */
        /* The man page's sections (cmdline_man.c): lines "KEY<TAB>text". */
        const char *exit_status; /* "1\tthe spec is invalid": replaces or adds to the usual 0, 1, 2 */
        const char *environment; /* "AMD_CTK_ROOT\tas --root" */
        const char *files;       /* "/etc/cdi/amd.json\tthe spec written"; "-": none */
        const char *examples;    /* paragraphs like the description's; commands indented */
        const char *see_also;    /* other pages: "runc(8) crun(1)" */
        /* A program's (the root of the tree) only. */
        int (*before)(void *ctx, const struct ctk_cmdline *cl); /* after parsing, before run: 0 to go on */
        void (*print_version)(void);                            /* --version, -v; NULL: no such option */
        const char *version;                                    /* for the man pages' footer */
        const char *date;                                       /* YYYY-MM-DD..., for the man pages */
};

/* A parsed command line. */
struct ctk_cmdline {
        const struct ctk_cmd *path[CTK_CMDLINE_MAX_DEPTH]; /* the program, ..., the command */
        size_t depth;
        char *name;                                     /* "amd-ctk cdi generate" */
        struct ctk_optval global[CTK_CMDLINE_MAX_OPTS]; /* the program's options, by index in its opts */
        struct ctk_optval opt[CTK_CMDLINE_MAX_OPTS];    /* the command's options, by index in its opts */
        char **args;                                    /* positional arguments */
        int nargs;
};

/* Parses argv (argv[0] is the program) against prog and runs the command
 * with ctx; returns the exit status. */
int ctk_cmdline_main(const struct ctk_cmd *prog, int argc, char **argv, void *ctx);

/* The command (the last of the path). */
static inline const struct ctk_cmd *ctk_cmdline_cmd(const struct ctk_cmdline *cl)
{
        return cl->path[cl->depth - 1];
}

/* "PATH: <message> (see 'PATH --help')" on stderr; returns CTK_CMDLINE_USAGE. */
int ctk_cmdline_usage_error(const struct ctk_cmdline *cl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "PATH: invalid value 'VALUE' for WHAT (EXPECTED)" on stderr (an option's
 * or argument's value the command refuses); returns 1. */
int ctk_cmdline_bad_value(const struct ctk_cmdline *cl, const char *what, const char *value, const char *expected);
/* "PATH: <message>" on stderr (a command line the command refuses); returns 1. */
int ctk_cmdline_fail(const struct ctk_cmdline *cl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "Version: V\nBuild Date: D\nGitCommit: C\n" (version.h) on stdout: the
 * version lines of amd-ctk and amd-ctk-fakefs (as the Go toolkit's). */
void ctk_cmdline_print_version(void);

/* The help text of path[depth-1] (the program's path[0]) on f. */
void ctk_cmdline_help(FILE *f, const struct ctk_cmd *const *path, size_t depth);
/* Its man page (roff, section 1) on f. */
void ctk_cmdline_man(FILE *f, const struct ctk_cmd *const *path, size_t depth);

/* For the renderers (cmdline_help.c, cmdline_man.c): */
/* Whether cmd has subcommands. */
bool ctk_cmd_is_group(const struct ctk_cmd *cmd);
/* The options shown for cmd: its own, then --help (and --version when is_program). */
size_t ctk_cmd_shown_opts(const struct ctk_cmd *cmd, bool is_program, const struct ctk_opt *out[], size_t max);
/* "--output PATH, -o PATH" for o (malloc'ed; NULL on ENOMEM). */
char *ctk_opt_spec(const struct ctk_opt *o);
/* The path's names joined by sep ("amd-ctk cdi generate"), malloc'ed. */
char *ctk_cmd_path_name(const struct ctk_cmd *const *path, size_t depth, char sep);

/* A documentation text (description, details, examples) as blocks: a run of
 * lines that start with a letter is prose (to be filled), a run of indented
 * lines is kept line by line; blank lines separate paragraphs. */
struct ctk_text_block {
        bool pre;      /* indented lines, kept as they are */
        bool new_para; /* a blank line came before it */
        const char *s; /* the block's text (lines, '\n' between them) */
        size_t len;
};
/* The block at *p, advancing *p past it; false at the end of the text. */
bool ctk_text_next_block(const char **p, struct ctk_text_block *b);

#endif
