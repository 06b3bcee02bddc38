#include "toml.h"

#include "toml_keys.h"
#include "toml_lex.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64

#define NO_SCOPE SIZE_MAX

static int value(struct ctk_toml_parser *p, int depth, long long *integer, struct ctk_strv *strings, size_t scope);

/* Numbers, booleans, dates and times: the token must be one of them. */
/* A byte of a number, boolean or date token (never NUL). */
static bool token_char(int c)
{
        return c > 0 && (ctk_toml_bare_key_char(c) || strchr("+.:", c) != NULL);
}

static int scalar(struct ctk_toml_parser *p, long long *integer)
{
        size_t s = p->pos;
        while (p->pos < p->len && token_char(ctk_toml_peek(p)))
                p->pos++;
        /* a date and a time may be separated by one space */
        if (p->pos - s == 10 && ctk_toml_peek(p) == ' ' && p->pos + 1 < p->len && p->s[p->pos + 1] >= '0' &&
            p->s[p->pos + 1] <= '9') {
                p->pos++;
                while (p->pos < p->len && token_char(ctk_toml_peek(p)))
                        p->pos++;
        }
        size_t n = p->pos - s;
        char tok[64];
        if (n == 0 || n >= sizeof(tok))
                return ctk_toml_fail(p, s, n == 0 ? "expected a value" : "not a TOML value");
        memcpy(tok, p->s + s, n);
        tok[n] = '\0';
        if (strcmp(tok, "true") == 0 || strcmp(tok, "false") == 0)
                return 0;
        const char *t = tok + (tok[0] == '+' || tok[0] == '-');
        if (strcmp(t, "inf") == 0 || strcmp(t, "nan") == 0)
                return 0;
        if (t[0] >= '0' && t[0] <= '9' && n >= 5 && (strchr(tok, ':') != NULL || (tok[4] == '-' && t == tok))) {
                for (const char *c = tok; *c != '\0'; c++)
                        if (strchr("0123456789-:TtZz.+ ", *c) == NULL)
                                return ctk_toml_fail(p, s, "not a valid date or time: %s", CTK_CUT(tok));
                return 0;
        }
        /* integers and floats: underscores only between digits */
        for (size_t i = 0; i < n; i++)
                if (tok[i] == '_' && (i == 0 || i + 1 == n || !ctk_toml_bare_key_char(tok[i - 1]) ||
                                      tok[i + 1] == '_' || tok[i - 1] == '.' || tok[i + 1] == '.'))
                        return ctk_toml_fail(p, s, "misplaced underscore in a number: %s", CTK_CUT(tok));
        char clean[64], *c = clean;
        for (size_t i = 0; i < n; i++)
                if (tok[i] != '_')
                        *c++ = tok[i];
        *c = '\0';
        int base = 10;
        const char *digits = clean + (clean[0] == '+' || clean[0] == '-');
        if (digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'o' || digits[1] == 'b')) {
                if (digits != clean)
                        return ctk_toml_fail(p, s, "a sign is not allowed with a prefixed integer: %s", CTK_CUT(tok));
                base = digits[1] == 'x' ? 16 : digits[1] == 'o' ? 8 : 2;
                digits += 2;
        } else if (digits[0] == '0' && digits[1] >= '0' && digits[1] <= '9') {
                return ctk_toml_fail(p, s, "leading zero in a number: %s", CTK_CUT(tok));
        }
        char *end;
        errno = 0;
        long long v = strtoll(base == 10 ? clean : digits, &end, base);
        if (*end == '\0' && end != digits && errno == 0) {
                if (integer != NULL)
                        *integer = v;
                return 0;
        }
        if (base == 10) {
                errno = 0;
                (void)strtod(clean, &end);
                if (*end == '\0' && digits[0] >= '0' && digits[0] <= '9' && strchr(clean, 'x') == NULL &&
                    end[-1] != '.' && strstr(clean, "._") == NULL && strstr(clean, ".e") == NULL &&
                    strstr(clean, ".E") == NULL)
                        return 0;
        }
        return ctk_toml_fail(p, s, "not a valid number: %s", CTK_CUT(tok));
}

static int array(struct ctk_toml_parser *p, int depth, struct ctk_strv *strings)
{
        p->pos++; /* [ */
        for (;;) {
                if (ctk_toml_skip_blank(p) < 0)
                        return -1;
                if (ctk_toml_peek(p) == ']') {
                        p->pos++;
                        return 0;
                }
                if (value(p, depth + 1, NULL, strings, NO_SCOPE) < 0)
                        return -1;
                if (ctk_toml_skip_blank(p) < 0)
                        return -1;
                if (ctk_toml_peek(p) == ',') {
                        p->pos++;
                        continue;
                }
                if (ctk_toml_peek(p) != ']')
                        return ctk_toml_fail(p, p->pos, "expected ',' or ']' in an array");
        }
}

/* An inline table: its keys are defined in scope (and only there). */
static int inline_table(struct ctk_toml_parser *p, int depth, size_t scope)
{
        if (scope == NO_SCOPE && ctk_toml_keys_scope(p, p->keys, p->pos, &scope) < 0)
                return -1;
        p->pos++; /* { */
        ctk_toml_skip_ws(p);
        if (ctk_toml_peek(p) == '}') {
                p->pos++;
                return 0;
        }
        for (;;) {
                ctk_toml_skip_ws(p);
                if (ctk_toml_peek(p) == '\n' || ctk_toml_peek(p) == '\r')
                        return ctk_toml_fail(p, p->pos, "an inline table fits on one line");
                _cleanup_strv_ struct ctk_strv key = {0};
                size_t at = p->pos, node;
                if (ctk_toml_key(p, &key) < 0)
                        return -1;
                if (ctk_toml_peek(p) != '=')
                        return ctk_toml_fail(p, p->pos, "expected '=' after a key");
                p->pos++;
                ctk_toml_skip_ws(p);
                if (ctk_toml_keys_value(p, p->keys, scope, &key, at, &node) < 0 ||
                    value(p, depth + 1, NULL, NULL, node) < 0)
                        return -1;
                ctk_toml_skip_ws(p);
                if (ctk_toml_peek(p) == '}') {
                        p->pos++;
                        return 0;
                }
                if (ctk_toml_peek(p) != ',')
                        return ctk_toml_fail(p, p->pos,
                                             "expected ',' or '}' in an inline table (which fits on one line)");
                p->pos++;
        }
}

/* A value; strings (when not NULL) collects the strings of an array; an
 * inline table's keys go to scope (NO_SCOPE: a scope of its own). */
static int value(struct ctk_toml_parser *p, int depth, long long *integer, struct ctk_strv *strings, size_t scope)
{
        if (depth > MAX_DEPTH)
                return ctk_toml_fail(p, p->pos, "values nested more than %d deep", MAX_DEPTH);
        int c = ctk_toml_peek(p);
        if (c == '"' || c == '\'') {
                char *s = NULL;
                if (ctk_toml_string(p, strings != NULL && depth > 0 ? &s : NULL) < 0)
                        return -1;
                if (s != NULL && ctk_strv_push_take(strings, s) < 0)
                        return ctk_error_set(p->err, ENOMEM, "out of memory");
                return 0;
        }
        if (c == '[')
                return array(p, depth, strings);
        if (c == '{')
                return inline_table(p, depth, scope);
        return scalar(p, integer);
}

/* A new statement at the end of *s (zeroed); NULL on ENOMEM. */
static struct ctk_toml_stmt *stmt_add(struct ctk_toml_stmts *s)
{
        if (s->n == s->cap) {
                size_t cap = s->cap != 0 ? s->cap * 2 : 64;
                struct ctk_toml_stmt *v = realloc(s->v, cap * sizeof(*v));
                if (v == NULL)
                        return NULL;
                s->v = v;
                s->cap = cap;
        }
        struct ctk_toml_stmt *st = &s->v[s->n++];
        memset(st, 0, sizeof(*st));
        return st;
}

/* A [table] or [[array of tables]] header at p->pos: the statements after
 * it go to *table. */
static int header(struct ctk_toml_parser *p, struct ctk_toml_stmt *st, size_t *table)
{
        size_t at = p->pos;
        bool aot = ctk_toml_at(p, "[[");
        p->pos += aot ? 2 : 1;
        _cleanup_strv_ struct ctk_strv key = {0};
        if (ctk_toml_key(p, &key) < 0)
                return -1;
        if (!(aot ? ctk_toml_at(p, "]]") : ctk_toml_peek(p) == ']'))
                return ctk_toml_fail(p, p->pos, "expected '%s' to close the table header", aot ? "]]" : "]");
        p->pos += aot ? 2 : 1;
        if (ctk_toml_keys_header(p, p->keys, &key, aot, at, table) < 0)
                return -1;
        if (st != NULL) {
                st->header = true;
                st->array = aot;
                st->key = key;
                memset(&key, 0, sizeof(key));
        }
        return 0;
}

/* A key = value at p->pos, in table (0: the top level). */
static int key_value(struct ctk_toml_parser *p, size_t table, size_t line_start, struct ctk_toml_top *top,
                     struct ctk_toml_stmt *st)
{
        _cleanup_strv_ struct ctk_strv key = {0};
        size_t at = p->pos, node;
        bool in_table = table != 0;
        if (ctk_toml_key(p, &key) < 0)
                return -1;
        if (ctk_toml_peek(p) != '=')
                return ctk_toml_fail(p, p->pos, "expected '=' after a key");
        p->pos++;
        ctk_toml_skip_ws(p);
        if (ctk_toml_keys_value(p, p->keys, table, &key, at, &node) < 0)
                return -1;
        bool is_version = !in_table && key.n == 1 && strcmp(key.v[0], "version") == 0;
        bool is_imports = !in_table && key.n == 1 && strcmp(key.v[0], "imports") == 0;
        long long v = 0;
        size_t vstart = p->pos;
        if (value(p, 0, is_version ? &v : NULL, is_imports ? &top->imports : NULL, node) < 0)
                return -1;
        const char *text = p->s;
        if (is_version) {
                if (text[vstart] < '0' || text[vstart] > '9')
                        return ctk_toml_fail(p, vstart, "version must be an integer");
                top->has_version = true;
                top->version = v;
        }
        if (is_imports) {
                if (text[vstart] != '[')
                        return ctk_toml_fail(p, vstart, "imports must be an array of file names");
                top->has_imports = true;
                top->imports_start = line_start;
        }
        if (st != NULL) {
                st->key = key;
                memset(&key, 0, sizeof(key));
                st->inline_table = text[vstart] == '{';
                st->value_start = vstart;
                st->value_end = p->pos;
                if (text[vstart] == '"' || text[vstart] == '\'') {
                        struct ctk_toml_parser q = *p;
                        q.pos = vstart;
                        if (ctk_toml_string(&q, &st->string) < 0)
                                return -1;
                }
        }
        if (ctk_toml_end_of_line(p) < 0)
                return -1;
        if (is_imports)
                top->imports_end = p->pos;
        return 0;
}

int ctk_toml_check(const char *text, size_t len, const char *name, struct ctk_toml_top *top,
                   struct ctk_toml_stmts *stmts, struct ctk_error **err)
{
        struct ctk_toml_keys keys;
        struct ctk_toml_parser p = {.s = text, .len = len, .name = name, .err = err, .keys = &keys};
        memset(top, 0, sizeof(*top));
        if (stmts != NULL)
                memset(stmts, 0, sizeof(*stmts));
        top->body_start = len;
        if (ctk_toml_keys_init(&keys) < 0)
                return ctk_error_set(err, ENOMEM, "out of memory");
        /* a TOML file is UTF-8 */
        size_t bad = ctk_utf8_invalid_at(text, len);
        if (bad < len) {
                ctk_toml_fail(&p, bad, "not valid UTF-8 (byte 0x%02x): a TOML file is UTF-8",
                              (unsigned)(unsigned char)text[bad]);
                goto fail;
        }
        bool in_table = false;
        size_t table = 0;
        for (;;) {
                if (ctk_toml_skip_blank(&p) < 0)
                        goto fail;
                if (p.pos >= len) {
                        ctk_toml_keys_clear(&keys);
                        return 0;
                }
                size_t line_start = p.pos;
                while (line_start > 0 && text[line_start - 1] != '\n')
                        line_start--;
                struct ctk_toml_stmt *st = NULL;
                if (stmts != NULL && (st = stmt_add(stmts)) == NULL) {
                        ctk_error_set(err, ENOMEM, "out of memory");
                        goto fail;
                }
                if (st != NULL) {
                        st->at = p.pos;
                        st->start = line_start;
                }
                if (ctk_toml_peek(&p) == '[') {
                        if (!in_table)
                                top->body_start = line_start;
                        in_table = true;
                        if (header(&p, st, &table) < 0 || ctk_toml_end_of_line(&p) < 0)
                                goto fail;
                } else if (key_value(&p, table, line_start, top, st) < 0) {
                        goto fail;
                }
                if (st != NULL)
                        st->end = p.pos;
        }
fail:
        ctk_toml_keys_clear(&keys);
        ctk_toml_top_clear(top);
        if (stmts != NULL)
                ctk_toml_stmts_clear(stmts);
        return -1;
}

void ctk_toml_top_clear(struct ctk_toml_top *top)
{
        ctk_strv_clear(&top->imports);
        memset(top, 0, sizeof(*top));
}

void ctk_toml_stmts_clear(struct ctk_toml_stmts *s)
{
        for (size_t i = 0; i < s->n; i++) {
                ctk_strv_clear(&s->v[i].key);
                free(s->v[i].string);
        }
        free(s->v);
        memset(s, 0, sizeof(*s));
}

char *ctk_toml_quote(const char *s)
{
        size_t n = strlen(s);
        char *out = malloc(n * 6 + 3), *o = out;
        if (out == NULL)
                return NULL;
        *o++ = '"';
        for (const unsigned char *c = (const unsigned char *)s; *c != '\0'; c++) {
                if (*c == '"' || *c == '\\') {
                        *o++ = '\\';
                        *o++ = (char)*c;
                } else if (*c < 0x20 || *c == 0x7f) {
                        o += sprintf(o, "\\u%04x", *c);
                } else {
                        *o++ = (char)*c;
                }
        }
        *o++ = '"';
        *o = '\0';
        return out;
}

char *ctk_toml_key_text(const char *const *parts, size_t n)
{
        char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);
        if (f == NULL)
                return NULL;
        for (size_t i = 0; i < n; i++) {
                bool bare = parts[i][0] != '\0';
                for (const char *c = parts[i]; *c != '\0'; c++)
                        bare = bare && ctk_toml_bare_key_char((unsigned char)*c);
                _cleanup_free_ char *q = bare ? NULL : ctk_toml_quote(parts[i]);
                fprintf(f, "%s%s", i > 0 ? "." : "", bare ? parts[i] : q != NULL ? q : "\"\"");
        }
        if (fclose(f) != 0) {
                free(text);
                return NULL;
        }
        return text;
}
