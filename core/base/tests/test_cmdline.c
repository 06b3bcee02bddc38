/* The command-line grammar (core/base/cmdline.h): parsing, the built-in
 * help, the one-line usage errors and their exit statuses, the help text's
 * layout and the man page. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/base/cleanup.h"
#include "core/base/cmdline.h"
#include "core/base/strv.h"

/* What the last run saw. */
static struct {
        int runs;
        char *args;    /* the positional arguments, joined by '|' */
        char *out;     /* stdout */
        char *err;     /* stderr */
        bool json, on; /* list --json; generate --force's value */
        const char *output, *kind;
        size_t ndirs;
} seen;

static void join_args(const struct ctk_cmdline *cl)
{
        struct ctk_strv v _cleanup_strv_ = {0};
        for (int i = 0; i < cl->nargs; i++)
                ctk_strv_push(&v, cl->args[i]);
        free(seen.args);
        seen.args = ctk_strv_join(&v, "|");
}

enum { L_JSON, L_DIR };
enum { G_OUTPUT, G_FORCE, G_KIND };

static int run_list(void *ctx, const struct ctk_cmdline *cl)
{
        (void)ctx;
        seen.runs++;
        join_args(cl);
        seen.json = cl->opt[L_JSON].on;
        seen.ndirs = cl->opt[L_DIR].values.n;
        return 0;
}

static int run_generate(void *ctx, const struct ctk_cmdline *cl)
{
        (void)ctx;
        seen.runs++;
        join_args(cl);
        seen.output = cl->opt[G_OUTPUT].value;
        seen.on = cl->opt[G_FORCE].on;
        seen.kind =
            cl->opt[G_KIND].count > 0 ? (cl->opt[G_KIND].value != NULL ? cl->opt[G_KIND].value : "(none)") : NULL;
        if (seen.output != NULL && strcmp(seen.output, "bad") == 0)
                return ctk_cmdline_bad_value(cl, "--output", seen.output, "a good one");
        return 0;
}

static const struct ctk_opt list_opts[] = {
    [L_JSON] = CTK_FLAG("json j", "print JSON"),
    [L_DIR] = CTK_VALUES("dir", "DIR", "a directory (repeatable)"),
    {0},
};
static const struct ctk_opt generate_opts[] = {
    [G_OUTPUT] = CTK_VALUE("output o", "PATH",
                           "the file to write; a help long enough to be filled over more than one line of the "
                           "eighty columns of the help text"),
    [G_FORCE] = CTK_FLAG("force", "write anyway"),
    [G_KIND] = CTK_OPTIONAL("kind", "KIND", "a kind"),
    {0},
};

static const struct ctk_cmd list = {
    .name = "list", .summary = "List things", .args = "[NAME...]", .max_args = -1, .opts = list_opts, .run = run_list};
static const struct ctk_cmd generate = {
    .name = "generate",
    .summary = "Generate things",
    .args = "A B",
    .min_args = 2,
    .max_args = 2,
    .description = "First paragraph, long enough to be filled: the quick brown fox jumps over the lazy dog, "
                   "and again the quick brown fox jumps over the lazy dog.\n"
                   "\n"
                   "   kept  as it is\n"
                   ".starts with a dot\n",
    .opts = generate_opts,
    .run = run_generate,
    .files = "/etc/x-y.json\tthe file",
    .see_also = "runc(8)",
};
static const struct ctk_cmd hook = {.name = "hook", .summary = "Hidden", .run = run_list, .hidden = true};
static const struct ctk_cmd *const things_subs[] = {&list, &generate, &hook, NULL};
static const struct ctk_cmd things = {.name = "things", .summary = "Things", .subs = things_subs};
static const struct ctk_cmd *const prog_subs[] = {&things, NULL};
static const struct ctk_opt global_opts[] = {CTK_VALUE("root", "DIR", "the root"), {0}};

static void print_version(void)
{
        puts("prog 1.0");
}

static const struct ctk_cmd prog = {
    .name = "prog",
    .summary = "a program",
    .opts = global_opts,
    .subs = prog_subs,
    .print_version = print_version,
    .version = "1.0",
    .date = "2026-01-02T03:04:05+0000",
    .see_also = "other-prog(1)",
};

/* A file's text, read and removed. */
static char *slurp(FILE *f)
{
        rewind(f);
        char *buf = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&buf, &len);
        for (int c; (c = fgetc(f)) != EOF;)
                fputc(c, m);
        fclose(m);
        fclose(f);
        return buf;
}

/* Runs prog with the words given (up to a NULL), capturing its output;
 * returns the exit status. */
#define run(...) run_words((const char *const[]){__VA_ARGS__, NULL})
static int run_words(const char *const *words)
{
        char *argv[16] = {(char *)"prog"};
        int argc = 1;
        for (size_t i = 0; words[i] != NULL && argc < 15; i++)
                argv[argc++] = (char *)words[i];
        argv[argc] = NULL;
        free(seen.args);
        free(seen.out);
        free(seen.err);
        memset(&seen, 0, sizeof(seen));
        fflush(stdout);
        fflush(stderr);
        FILE *o = tmpfile(), *e = tmpfile();
        int so = dup(1), se = dup(2);
        dup2(fileno(o), 1);
        dup2(fileno(e), 2);
        int rc = ctk_cmdline_main(&prog, argc, argv, NULL);
        fflush(stdout);
        fflush(stderr);
        dup2(so, 1);
        dup2(se, 2);
        close(so);
        close(se);
        seen.out = slurp(o);
        seen.err = slurp(e);
        return rc;
}

static void test_options_and_arguments(void **state)
{
        (void)state;
        assert_int_equal(run("things", "list", "a", "--json", "b", "--", "--c"), 0);
        assert_int_equal(seen.runs, 1);
        assert_string_equal(seen.args, "a|b|--c");
        assert_true(seen.json);
        assert_int_equal(run("things", "list", "-json=false", "-j", "--dir", "x", "-dir=y"), 0);
        assert_true(seen.json); /* the last one given */
        assert_int_equal(seen.ndirs, 2);
        assert_int_equal(run("--root", "/r", "things", "generate", "-o", "f", "1", "--force=false", "2"), 0);
        assert_string_equal(seen.output, "f");
        assert_false(seen.on);
        assert_string_equal(seen.args, "1|2");
        assert_int_equal(run("things", "generate", "--kind", "1", "2"), 0);
        assert_string_equal(seen.kind, "(none)"); /* an optional value only after '=' */
        assert_int_equal(run("things", "generate", "--kind=K", "1", "2"), 0);
        assert_string_equal(seen.kind, "K");
        assert_int_equal(run("things", "hook"), 0); /* hidden, yet runs */
        assert_int_equal(seen.runs, 1);
        assert_string_equal(seen.out, "");
        assert_string_equal(seen.err, "");
}

static void test_usage_errors(void **state)
{
        (void)state;
        static const struct {
                const char *argv[5];
                const char *err;
        } cases[] = {
            {{"things", "generate", "--ouput=x", NULL},
             "prog things generate: unknown option '--ouput' (see 'prog things generate --help')\n"},
            {{"things", "frob", NULL}, "prog things: unknown command 'frob' (see 'prog things --help')\n"},
            {{"frob", NULL}, "prog: unknown command 'frob' (see 'prog --help')\n"},
            {{"--bogus", "things", NULL}, "prog: unknown option '--bogus' (see 'prog --help')\n"},
            {{"things", "--root", "/r", NULL}, "prog things: unknown option '--root' (see 'prog things --help')\n"},
            {{"things", "generate", "1", "-o", NULL},
             "prog things generate: option '-o' needs a value (see 'prog things generate --help')\n"},
            {{"things", "generate", "1", NULL},
             "prog things generate: missing argument: expected A B (see 'prog things generate --help')\n"},
            {{"things", "generate", "1", "2", "3"},
             "prog things generate: unexpected argument '3' (see 'prog things generate --help')\n"},
            {{"help", "things", "nope", NULL}, "prog things: unknown command 'nope' (see 'prog things --help')\n"},
            {{"--version=x", NULL}, "prog: option '--version' takes no value (see 'prog --help')\n"},
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                const char *const *a = cases[i].argv;
                assert_int_equal(run(a[0], a[1], a[2], a[3], a[4]), CTK_CMDLINE_USAGE);
                assert_string_equal(seen.err, cases[i].err);
                assert_string_equal(seen.out, "");
                assert_int_equal(seen.runs, 0);
        }
        /* values refused: exit 1, one line */
        assert_int_equal(run("things", "list", "--json=yes"), 1);
        assert_string_equal(seen.err, "prog things list: invalid value 'yes' for --json (true or false)\n");
        assert_int_equal(run("things", "generate", "--output", "bad", "1", "2"), 1);
        assert_string_equal(seen.err, "prog things generate: invalid value 'bad' for --output (a good one)\n");
        /* what a message quotes stays on one line */
        assert_int_equal(run("things", "fr\nob"), CTK_CMDLINE_USAGE);
        assert_string_equal(seen.err, "prog things: unknown command 'fr\\nob' (see 'prog things --help')\n");
}

static void test_help_everywhere(void **state)
{
        (void)state;
        /* the same text, on stdout, exit 0, whichever way it is asked for */
        assert_int_equal(run("things", "--help"), 0);
        _cleanup_free_ char *want = strdup(seen.out);
        const char *ways[][4] = {{"things", "-h", NULL},
                                 {"things", NULL},
                                 {"help", "things", NULL},
                                 {"h", "things", NULL},
                                 {"things", "help", NULL},
                                 {"things", "-help", NULL},
                                 {"things", "--help", "frob", NULL},
                                 {"--root", "/r", "things", NULL}};
        for (size_t i = 0; i < sizeof(ways) / sizeof(ways[0]); i++) {
                assert_int_equal(run(ways[i][0], ways[i][1], ways[i][2]), 0);
                assert_string_equal(seen.out, want);
                assert_string_equal(seen.err, "");
        }
        assert_non_null(strstr(want, "NAME:\n   prog things - Things\n"));
        assert_non_null(strstr(want, "COMMANDS:\n   list      List things\n   generate  Generate things\n"
                                     "   help, h   Shows a list of commands or help for one command\n"));
        assert_null(strstr(want, "hook")); /* hidden */
        /* a leaf's help, asked three ways */
        assert_int_equal(run("things", "generate", "-h"), 0);
        _cleanup_free_ char *leaf = strdup(seen.out);
        assert_int_equal(run("help", "things", "generate"), 0);
        assert_string_equal(seen.out, leaf);
        assert_int_equal(run("things", "h", "generate"), 0);
        assert_string_equal(seen.out, leaf);
        /* the program: its help, its version */
        assert_int_equal(run(NULL), 0);
        assert_non_null(strstr(seen.out, "GLOBAL OPTIONS:\n   --root DIR     the root\n   --help, -h     show help\n"
                                         "   --version, -v  print the version\n"));
        assert_int_equal(run("-v", "things"), 0);
        assert_string_equal(seen.out, "prog 1.0\n");
        assert_int_equal(run("things", "--version"), CTK_CMDLINE_USAGE); /* the program's option only */
}

static void test_help_layout(void **state)
{
        (void)state;
        assert_int_equal(run("things", "generate", "--help"), 0);
        const char *want = "NAME:\n"
                           "   prog things generate - Generate things\n"
                           "\n"
                           "USAGE:\n"
                           "   prog things generate [options] A B\n"
                           "\n"
                           "DESCRIPTION:\n"
                           "   First paragraph, long enough to be filled: the quick brown fox jumps over the\n"
                           "   lazy dog, and again the quick brown fox jumps over the lazy dog.\n"
                           "\n"
                           "      kept  as it is\n"
                           "   .starts with a dot\n"
                           "\n"
                           "OPTIONS:\n"
                           "   --output PATH, -o PATH  the file to write; a help long enough to be filled\n"
                           "                           over more than one line of the eighty columns of the\n"
                           "                           help text\n"
                           "   --force                 write anyway\n"
                           "   --kind[=KIND]           a kind\n"
                           "   --help, -h              show help\n";
        assert_string_equal(seen.out, want);
}

static void test_man_page(void **state)
{
        (void)state;
        assert_int_equal(run("things", "generate", "--help=man"), 0);
        const char *m = seen.out;
        const char *th = ".TH PROG\\-THINGS\\-GENERATE 1 \"2026-01-02\" \"amd-container-toolkit 1.0\"";
        assert_true(strncmp(m, th, strlen(th)) == 0);
        static const char see_also[] = "\n.SH SEE ALSO\n.BR prog (1),\n.BR prog\\-things (1),\n"
                                       ".BR other\\-prog (1),\n.BR runc (8)\n";
        const char *sections[] = {"\n.SH NAME\nprog\\-things\\-generate \\- Generate things\n",
                                  "\n.SH SYNOPSIS\n",
                                  "\n.SH DESCRIPTION\n",
                                  "\n.SH OPTIONS\n",
                                  "\n.SH EXIT STATUS\n",
                                  "\n.SH FILES\n.TP\n\\fI/etc/x\\-y.json\\fR\nthe file\n",
                                  "\n.SH EXAMPLES\n",
                                  see_also};
        const char *at = m;
        for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
                const char *s = strstr(at, sections[i]);
                assert_non_null(s);
                at = s + 1; /* in this order */
        }
        assert_non_null(strstr(m, "\n\\&.starts with a dot\n"));
        assert_non_null(strstr(m, "\\fB\\-\\-output\\fR \\fIPATH\\fR, \\fB\\-o\\fR \\fIPATH\\fR\n"));
        for (const char *l = m; *l != '\0'; l = strchr(l, '\n') + 1) /* text lines, for mandoc's lint */
                if (l[0] != '.' && strchr(l, '\n') - l > 80)
                        fail_msg("a text line over 80 bytes: %.*s", (int)(strchr(l, '\n') - l), l);
        /* a group's page lists its visible commands */
        assert_int_equal(run("things", "--help=man"), 0);
        assert_non_null(strstr(seen.out, ".SH COMMANDS\n.TP\n.B list\nList things\n"));
        assert_null(strstr(seen.out, "hook"));
        assert_non_null(strstr(seen.out, ".BR prog\\-things\\-list (1),\n.BR prog\\-things\\-generate (1)"));
        assert_int_equal(run("things", "--help=roff"), 1);
}

static void test_text_blocks(void **state)
{
        (void)state;
        const char *t = "a b\nc\n  pre 1\n  pre 2\nd\n\n\ne";
        struct ctk_text_block b;
        assert_true(ctk_text_next_block(&t, &b));
        assert_false(b.pre);
        assert_int_equal(b.len, 5);
        assert_true(ctk_text_next_block(&t, &b));
        assert_true(b.pre);
        assert_false(b.new_para);
        assert_int_equal(b.len, 15);
        assert_true(ctk_text_next_block(&t, &b));
        assert_string_equal(b.s, "d\n\n\ne");
        assert_int_equal(b.len, 1);
        assert_true(ctk_text_next_block(&t, &b));
        assert_true(b.new_para);
        assert_string_equal(b.s, "e");
        assert_false(ctk_text_next_block(&t, &b));
}

static int teardown(void **state)
{
        (void)state;
        free(seen.args);
        free(seen.out);
        free(seen.err);
        memset(&seen, 0, sizeof(seen));
        return 0;
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_options_and_arguments),
            cmocka_unit_test(test_usage_errors),
            cmocka_unit_test(test_help_everywhere),
            cmocka_unit_test(test_help_layout),
            cmocka_unit_test(test_man_page),
            cmocka_unit_test(test_text_blocks),
        };
        return cmocka_run_group_tests(tests, NULL, teardown);
}
