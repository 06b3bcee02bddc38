/* A command's man page (cmdline.h), in man(7) roff: NAME, SYNOPSIS,
 * DESCRIPTION, COMMANDS, OPTIONS, EXIT STATUS, ENVIRONMENT, FILES, EXAMPLES,
 * SEE ALSO.  Every hyphen is written \- (a minus: options and names stay
 * copyable), a line never starts with a control character. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"

#define MAX_SHOWN 40

/* s[0..len) as roff text: \ and - escaped. */
static void esc(FILE *f, const char *s, size_t len)
{
        for (size_t i = 0; i < len; i++) {
                if (s[i] == '\\')
                        (void)fputs("\\e", f);
                else if (s[i] == '-')
                        (void)fputs("\\-", f);
                else
                        (void)fputc(s[i], f);
        }
}

static void esc_str(FILE *f, const char *s)
{
        esc(f, s, strlen(s));
}

/* One output line: s[0..len) escaped, protected if it starts with . or '. */
static void text_line(FILE *f, const char *s, size_t len)
{
        if (len > 0 && (s[0] == '.' || s[0] == '\''))
                (void)fputs("\\&", f);
        esc(f, s, len);
        (void)fputc('\n', f);
}

/* The width of s[0..len) once escaped. */
static size_t esc_width(const char *s, size_t len)
{
        size_t w = len;
        for (size_t i = 0; i < len; i++)
                w += s[i] == '-' || s[i] == '\\';
        return w;
}

/* Filled text: the words of s[0..len) on lines of at most 78 bytes (roff
 * fills them again; mandoc's lint asks for input lines under 80). */
static void fill(FILE *f, const char *s, size_t len)
{
        const char *p = s, *end = s + len;
        for (;;) {
                while (p < end && (*p == ' ' || *p == '\n'))
                        p++;
                if (p == end)
                        return;
                const char *start = p, *cut = p; /* the end of the words that fit */
                while (p < end) {
                        while (p < end && *p != ' ' && *p != '\n')
                                p++;
                        if (cut > start && esc_width(start, (size_t)(p - start)) > 78)
                                break;
                        cut = p;
                        while (p < end && (*p == ' ' || *p == '\n'))
                                p++;
                }
                text_line(f, start, (size_t)(cut - start));
                p = cut;
        }
}

/* A description-like text: prose lines as text lines, indented lines as
 * a no-fill block (their common indentation removed). */
static void paragraphs(FILE *f, const char *text, bool after_sh)
{
        struct ctk_text_block b;
        bool first = true;
        while (ctk_text_next_block(&text, &b)) {
                if (!(first && after_sh) && (first || b.new_para || b.pre))
                        (void)fputs(".PP\n", f);
                first = false;
                if (!b.pre) {
                        fill(f, b.s, b.len);
                        continue;
                }
                size_t strip = SIZE_MAX;
                for (const char *l = b.s, *end = b.s + b.len; l < end;) {
                        const char *nl = memchr(l, '\n', (size_t)(end - l));
                        size_t n = nl != NULL ? (size_t)(nl - l) : (size_t)(end - l);
                        size_t sp = strspn(l, " ");
                        if (sp < n && sp < strip)
                                strip = sp;
                        l = nl != NULL ? nl + 1 : end;
                }
                (void)fputs(".RS 4\n.nf\n", f);
                for (const char *l = b.s, *end = b.s + b.len; l < end;) {
                        const char *nl = memchr(l, '\n', (size_t)(end - l));
                        size_t n = nl != NULL ? (size_t)(nl - l) : (size_t)(end - l);
                        size_t skip = strip < n ? strip : n;
                        while (n > skip && l[n - 1] == ' ')
                                n--;
                        text_line(f, l + skip, n - skip);
                        l = nl != NULL ? nl + 1 : end;
                }
                (void)fputs(".fi\n.RE\n", f);
        }
}

/* "--output PATH, -o PATH" in bold and italics. */
static void opt_spec(FILE *f, const struct ctk_opt *o)
{
        bool first = true;
        for (const char *n = o->names; *n != '\0';) {
                size_t l = strcspn(n, " ");
                (void)fprintf(f, "%s\\fB%s", first ? "" : ", ", l == 1 ? "\\-" : "\\-\\-");
                esc(f, n, l);
                (void)fputs("\\fR", f);
                const char *arg = o->arg != NULL ? o->arg : "VALUE";
                if (o->type == CTK_OPT_VALUE)
                        (void)fprintf(f, " \\fI%s\\fR", arg);
                else if (o->type == CTK_OPT_OPTIONAL)
                        (void)fprintf(f, "[=\\fI%s\\fR]", arg);
                first = false;
                n += l;
                n += strspn(n, " ");
        }
        (void)fputc('\n', f);
}

/* "KEY\ttext" lines as tagged paragraphs (KEY in the font given). */
static void tagged(FILE *f, const char *list, const char *font)
{
        for (const char *l = list; *l != '\0';) {
                size_t n = strcspn(l, "\n");
                const char *tab = memchr(l, '\t', n);
                size_t k = tab != NULL ? (size_t)(tab - l) : n;
                (void)fprintf(f, ".TP\n\\f%s", font);
                esc(f, l, k);
                (void)fputs("\\fR\n", f);
                if (tab != NULL)
                        fill(f, tab + 1, n - k - 1);
                l += n;
                if (*l == '\n')
                        l++;
        }
}

static void synopsis(FILE *f, const struct ctk_cmd *const *path, size_t depth)
{
        const struct ctk_cmd *cmd = path[depth - 1];
        (void)fputs(".SH SYNOPSIS\n", f);
        if (cmd->usage != NULL) {
                (void)fputs(".nf\n", f);
                for (const char *l = cmd->usage; *l != '\0';) {
                        size_t n = strcspn(l, "\n");
                        text_line(f, l, n);
                        l += n;
                        if (*l == '\n')
                                l++;
                }
                (void)fputs(".fi\n", f);
                return;
        }
        bool global = path[0]->opts != NULL && path[0]->opts[0].names != NULL;
        (void)fputs(".B ", f);
        esc_str(f, path[0]->name);
        (void)fputc('\n', f);
        if (global && (depth > 1 || ctk_cmd_is_group(cmd)))
                (void)fputs("[\\fIglobal options\\fR]\n", f);
        if (depth > 1) {
                char *rest = ctk_cmd_path_name(path + 1, depth - 1, ' ');
                (void)fputs(".B ", f);
                esc_str(f, rest != NULL ? rest : cmd->name);
                (void)fputc('\n', f);
                free(rest);
        }
        (void)fputs(ctk_cmd_is_group(cmd) ? ".I command\n[\\fIoptions\\fR]\n" : "[\\fIoptions\\fR]\n", f);
        if (!ctk_cmd_is_group(cmd) && cmd->args != NULL) {
                (void)fputs(".I ", f);
                esc_str(f, cmd->args);
                (void)fputc('\n', f);
        }
}

static void options(FILE *f, const struct ctk_cmd *const *path, size_t depth)
{
        const struct ctk_cmd *cmd = path[depth - 1];
        const struct ctk_opt *shown[MAX_SHOWN];
        size_t n = ctk_cmd_shown_opts(cmd, depth == 1, shown, MAX_SHOWN);
        (void)fputs(depth == 1 && ctk_cmd_is_group(cmd) ? ".SH GLOBAL OPTIONS\n" : ".SH OPTIONS\n", f);
        if (depth > 1 && path[0]->opts != NULL && path[0]->opts[0].names != NULL) {
                (void)fputs("The global options of \\fB", f);
                esc_str(f, path[0]->name);
                (void)fputs("\\fR(1) come before the command.\n", f);
        }
        for (size_t i = 0; i < n; i++) {
                (void)fputs(".TP\n", f);
                opt_spec(f, shown[i]);
                fill(f, shown[i]->help, strlen(shown[i]->help));
        }
}

static void exit_status(FILE *f, const struct ctk_cmd *cmd)
{
        static const char *const usual[] = {
            "Success.",
            "Failure, or a value the command refuses: one line on standard error says what.",
            ("Usage error: an unknown command or option, a missing value or argument, an unexpected argument "
             "(one line on standard error)."),
        };
        (void)fputs(".SH EXIT STATUS\n", f);
        const char *own = cmd->exit_status != NULL ? cmd->exit_status : "";
        for (int code = 0; code < 256; code++) {
                const char *text = code < 3 ? usual[code] : NULL;
                size_t len = text != NULL ? strlen(text) : 0;
                for (const char *l = own; *l != '\0';) {
                        size_t n = strcspn(l, "\n");
                        char *end;
                        long c = strtol(l, &end, 10);
                        if (end != l && *end == '\t' && c == code) {
                                text = end + 1;
                                len = n - (size_t)(end + 1 - l);
                        }
                        l += n;
                        if (*l == '\n')
                                l++;
                }
                if (text == NULL)
                        continue;
                (void)fprintf(f, ".TP\n.B %d\n", code);
                fill(f, text, len);
        }
}

/* The nearest of the path's values of a field (offset into struct ctk_cmd). */
static const char *inherited(const struct ctk_cmd *const *path, size_t depth, size_t offset)
{
        for (size_t i = depth; i-- > 0;) {
                const char *v = *(const char *const *)((const char *)path[i] + offset);
                if (v != NULL)
                        return v;
        }
        return NULL;
}

static void see_also_ref(FILE *f, const char *name, size_t len, const char *section, bool *first)
{
        (void)fputs(*first ? "" : ",\n", f);
        (void)fputs(".BR ", f);
        esc(f, name, len);
        (void)fprintf(f, " (%s)", section);
        *first = false;
}

/* "name(sec) name(sec)" */
static void see_also_list(FILE *f, const char *list, bool *first)
{
        for (const char *p = list; p != NULL && *p != '\0';) {
                p += strspn(p, " ");
                size_t n = strcspn(p, " ");
                const char *open = memchr(p, '(', n);
                if (open != NULL && p[n - 1] == ')') {
                        char sec[8];
                        (void)snprintf(sec, sizeof(sec), "%.*s", (int)(p + n - 1 - open - 1), open + 1);
                        see_also_ref(f, p, (size_t)(open - p), sec, first);
                }
                p += n;
        }
}

static void see_also(FILE *f, const struct ctk_cmd *const *path, size_t depth)
{
        const struct ctk_cmd *cmd = path[depth - 1];
        bool first = true;
        (void)fputs(".SH SEE ALSO\n", f);
        for (size_t d = 1; d < depth; d++) { /* the program, ..., the parent */
                char *name = ctk_cmd_path_name(path, d, '-');
                if (name != NULL)
                        see_also_ref(f, name, strlen(name), "1", &first);
                free(name);
        }
        char *self = ctk_cmd_path_name(path, depth, '-');
        for (size_t i = 0; self != NULL && ctk_cmd_is_group(cmd) && cmd->subs[i] != NULL; i++) {
                if (cmd->subs[i]->hidden)
                        continue;
                (void)fputs(first ? "" : ",\n", f);
                (void)fputs(".BR ", f);
                esc_str(f, self);
                (void)fputs("\\-", f);
                esc_str(f, cmd->subs[i]->name);
                (void)fputs(" (1)", f);
                first = false;
        }
        free(self);
        see_also_list(f, path[0]->see_also, &first);
        if (depth > 1)
                see_also_list(f, cmd->see_also, &first);
        (void)fputc('\n', f);
}

void ctk_cmdline_man(FILE *f, const struct ctk_cmd *const *path, size_t depth)
{
        const struct ctk_cmd *cmd = path[depth - 1];
        char *page = ctk_cmd_path_name(path, depth, '-');
        if (page == NULL)
                return;
        char *upper = strdup(page);
        for (char *p = upper; p != NULL && *p != '\0'; p++)
                if (*p >= 'a' && *p <= 'z')
                        *p = (char)(*p - 'a' + 'A');
        (void)fputs(".TH ", f);
        esc_str(f, upper != NULL ? upper : page);
        const char *date = path[0]->date != NULL ? path[0]->date : "";
        (void)fprintf(f, " 1 \"%.10s\" \"amd-container-toolkit %s\" \"User Commands\"\n.ad l\n.nh\n.SH NAME\n", date,
                      path[0]->version != NULL ? path[0]->version : "");
        free(upper);
        char *name_line = NULL;
        if (asprintf(&name_line, "%s - %s", page, cmd->summary) >= 0)
                fill(f, name_line, strlen(name_line));
        free(name_line);
        synopsis(f, path, depth);
        (void)fputs(".SH DESCRIPTION\n", f);
        paragraphs(f, cmd->description != NULL ? cmd->description : cmd->summary, true);
        if (cmd->details != NULL)
                paragraphs(f, cmd->details, false);
        if (ctk_cmd_is_group(cmd)) {
                (void)fputs(".SH COMMANDS\n", f);
                for (size_t i = 0; cmd->subs[i] != NULL; i++) {
                        if (cmd->subs[i]->hidden)
                                continue;
                        (void)fputs(".TP\n.B ", f);
                        esc_str(f, cmd->subs[i]->name);
                        (void)fputc('\n', f);
                        fill(f, cmd->subs[i]->summary, strlen(cmd->subs[i]->summary));
                }
                (void)fputs(".TP\n.BR help \", \" h\nShows a list of commands or help for one command.\n", f);
        }
        options(f, path, depth);
        exit_status(f, cmd);
        const char *env = inherited(path, depth, offsetof(struct ctk_cmd, environment));
        if (env != NULL) {
                (void)fputs(".SH ENVIRONMENT\n", f);
                tagged(f, env, "B");
        }
        const char *files = inherited(path, depth, offsetof(struct ctk_cmd, files));
        (void)fputs(".SH FILES\n", f);
        if (files == NULL || strcmp(files, "-") == 0)
                (void)fputs("This command reads and writes no file.\n", f);
        else
                tagged(f, files, "I");
        (void)fputs(".SH EXAMPLES\n", f);
        if (cmd->examples != NULL) {
                paragraphs(f, cmd->examples, true);
        } else {
                char *line = ctk_cmd_path_name(path, depth, ' ');
                (void)fputs(".RS 4\n.nf\n", f);
                esc_str(f, line != NULL ? line : page);
                (void)fputs("\n.fi\n.RE\n", f);
                free(line);
        }
        free(page);
        see_also(f, path, depth);
}
