/* The help text of a command (cmdline.h), in the layout of the Go
 * toolkit's CLI: NAME, USAGE, DESCRIPTION, COMMANDS, OPTIONS, each section's
 * text indented by three spaces and filled to 80 columns. */
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"

#define WIDTH     80
#define INDENT    3
#define SPEC_MAX  30 /* a longer option spec puts its help on the next line */
#define MAX_SHOWN 40

static const char help_cmd_names[] = "help, h";
static const char help_cmd_summary[] = "Shows a list of commands or help for one command";

bool ctk_text_next_block(const char **p, struct ctk_text_block *b)
{
        const char *s = *p;
        bool blank = false;
        while (*s == '\n') { /* blank lines */
                blank = true;
                s++;
        }
        if (*s == '\0') {
                *p = s;
                return false;
        }
        b->pre = *s == ' ';
        b->new_para = blank;
        b->s = s;
        /* the lines of the same kind that follow, up to a blank line */
        const char *end = s;
        for (;;) {
                const char *nl = strchr(end, '\n');
                end = nl != NULL ? nl : end + strlen(end);
                if (*end == '\0' || end[1] == '\n' || end[1] == '\0' || (end[1] == ' ') != b->pre)
                        break;
                end++;
        }
        b->len = (size_t)(end - s);
        *p = *end == '\n' ? end + 1 : end;
        return true;
}

/* Writes the words of text[0..len) from column *col on, filling lines to
 * WIDTH; new lines start at column indent. */
static void fill(FILE *f, const char *text, size_t len, size_t *col, size_t indent)
{
        const char *p = text, *end = text + len;
        while (p < end) {
                while (p < end && (*p == ' ' || *p == '\n'))
                        p++;
                const char *w = p;
                while (p < end && *p != ' ' && *p != '\n')
                        p++;
                size_t wlen = (size_t)(p - w);
                if (wlen == 0)
                        break;
                if (*col > indent && *col + 1 + wlen > WIDTH) {
                        (void)fprintf(f, "\n%*s", (int)indent, "");
                        *col = indent;
                } else if (*col > indent) {
                        (void)fputc(' ', f);
                        (*col)++;
                }
                for (; *col < indent; (*col)++)
                        (void)fputc(' ', f);
                (void)fwrite(w, 1, wlen, f);
                *col += wlen;
        }
}

/* A description-like text, indented. */
static void paragraphs(FILE *f, const char *text)
{
        struct ctk_text_block b;
        bool first = true;
        while (ctk_text_next_block(&text, &b)) {
                if (b.new_para && !first)
                        (void)fputc('\n', f);
                first = false;
                if (!b.pre) {
                        size_t col = 0;
                        fill(f, b.s, b.len, &col, INDENT);
                        (void)fputc('\n', f);
                        continue;
                }
                for (const char *l = b.s, *end = b.s + b.len; l < end;) {
                        const char *nl = memchr(l, '\n', (size_t)(end - l));
                        size_t n = nl != NULL ? (size_t)(nl - l) : (size_t)(end - l);
                        while (n > 0 && l[n - 1] == ' ')
                                n--;
                        (void)fprintf(f, "%*s%.*s\n", n > 0 ? INDENT : 0, "", (int)n, l);
                        l = nl != NULL ? nl + 1 : end;
                }
        }
}

static void usage(FILE *f, const struct ctk_cmd *const *path, size_t depth)
{
        const struct ctk_cmd *cmd = path[depth - 1];
        if (cmd->usage != NULL) {
                for (const char *l = cmd->usage; *l != '\0';) {
                        size_t n = strcspn(l, "\n");
                        (void)fprintf(f, "%*s%.*s\n", n > 0 ? INDENT : 0, "", (int)n, l);
                        l += n;
                        if (*l == '\n')
                                l++;
                }
                return;
        }
        char *name = ctk_cmd_path_name(path, depth, ' ');
        bool own_opts = cmd->opts != NULL && cmd->opts[0].names != NULL;
        (void)fprintf(f, "%*s%s", INDENT, "", name != NULL ? name : cmd->name);
        if (ctk_cmd_is_group(cmd))
                (void)fprintf(f, "%s command [options]%s\n", depth == 1 && own_opts ? " [global options]" : "",
                              depth == 1 ? " [arguments]" : "");
        else
                (void)fprintf(f, " [options]%s%s\n", cmd->args != NULL ? " " : "", cmd->args != NULL ? cmd->args : "");
        free(name);
}

static void commands(FILE *f, const struct ctk_cmd *cmd)
{
        size_t width = strlen(help_cmd_names);
        for (size_t i = 0; cmd->subs[i] != NULL; i++)
                if (!cmd->subs[i]->hidden && strlen(cmd->subs[i]->name) > width)
                        width = strlen(cmd->subs[i]->name);
        width += 2;
        for (size_t i = 0;; i++) {
                const struct ctk_cmd *s = cmd->subs[i];
                if (s != NULL && s->hidden)
                        continue;
                const char *name = s != NULL ? s->name : help_cmd_names;
                const char *summary = s != NULL ? s->summary : help_cmd_summary;
                size_t col = INDENT + strlen(name);
                (void)fprintf(f, "%*s%s", INDENT, "", name);
                fill(f, summary, strlen(summary), &col, INDENT + width);
                (void)fputc('\n', f);
                if (s == NULL)
                        break;
        }
}

static void options(FILE *f, const struct ctk_cmd *cmd, bool is_program)
{
        const struct ctk_opt *shown[MAX_SHOWN];
        size_t n = ctk_cmd_shown_opts(cmd, is_program, shown, MAX_SHOWN);
        char *specs[MAX_SHOWN];
        size_t width = 0;
        for (size_t i = 0; i < n; i++) {
                specs[i] = ctk_opt_spec(shown[i]);
                size_t l = specs[i] != NULL ? strlen(specs[i]) : 0;
                if (l <= SPEC_MAX && l > width)
                        width = l;
        }
        width += 2;
        for (size_t i = 0; i < n; i++) {
                const char *spec = specs[i] != NULL ? specs[i] : "?";
                size_t col = INDENT + strlen(spec);
                (void)fprintf(f, "%*s%s", INDENT, "", spec);
                if (col > INDENT + width - 2) {
                        (void)fputc('\n', f);
                        col = 0;
                }
                fill(f, shown[i]->help, strlen(shown[i]->help), &col, INDENT + width);
                (void)fputc('\n', f);
                free(specs[i]);
        }
}

void ctk_cmdline_help(FILE *f, const struct ctk_cmd *const *path, size_t depth)
{
        const struct ctk_cmd *cmd = path[depth - 1];
        char *name = cmd->help_name != NULL ? NULL : ctk_cmd_path_name(path, depth, ' ');
        (void)fprintf(f, "NAME:\n%*s%s - %s\n\nUSAGE:\n", INDENT, "",
                      cmd->help_name != NULL ? cmd->help_name
                      : name != NULL         ? name
                                             : cmd->name,
                      cmd->summary);
        free(name);
        usage(f, path, depth);
        if (cmd->description != NULL) {
                (void)fputs("\nDESCRIPTION:\n", f);
                paragraphs(f, cmd->description);
        }
        if (ctk_cmd_is_group(cmd)) {
                (void)fputs("\nCOMMANDS:\n", f);
                commands(f, cmd);
        }
        (void)fputs(depth == 1 && ctk_cmd_is_group(cmd) ? "\nGLOBAL OPTIONS:\n" : "\nOPTIONS:\n", f);
        options(f, cmd, depth == 1);
}
