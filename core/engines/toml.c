#include "toml.h"

#include "toml_lex.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64

static int value(struct ctk_toml_parser *p, int depth, long long *integer, struct ctk_strv *strings);

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
                                return ctk_toml_fail(p, s, "not a valid date or time: %s", tok);
                return 0;
        }
        /* integers and floats: underscores only between digits */
        for (size_t i = 0; i < n; i++)
                if (tok[i] == '_' && (i == 0 || i + 1 == n || !ctk_toml_bare_key_char(tok[i - 1]) ||
                                      tok[i + 1] == '_' || tok[i - 1] == '.' || tok[i + 1] == '.'))
                        return ctk_toml_fail(p, s, "misplaced underscore in a number: %s", tok);
        char clean[64], *c = clean;
        for (size_t i = 0; i < n; i++)
                if (tok[i] != '_')
                        *c++ = tok[i];
        *c = '\0';
        int base = 10;
        const char *digits = clean + (clean[0] == '+' || clean[0] == '-');
        if (digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'o' || digits[1] == 'b')) {
                if (digits != clean)
                        return ctk_toml_fail(p, s, "a sign is not allowed with a prefixed integer: %s", tok);
                base = digits[1] == 'x' ? 16 : digits[1] == 'o' ? 8 : 2;
                digits += 2;
        } else if (digits[0] == '0' && digits[1] >= '0' && digits[1] <= '9') {
                return ctk_toml_fail(p, s, "leading zero in a number: %s", tok);
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
        return ctk_toml_fail(p, s, "not a valid number: %s", tok);
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
                if (value(p, depth + 1, NULL, strings) < 0)
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

static int inline_table(struct ctk_toml_parser *p, int depth)
{
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
                if (ctk_toml_key(p, NULL) < 0)
                        return -1;
                if (ctk_toml_peek(p) != '=')
                        return ctk_toml_fail(p, p->pos, "expected '=' after a key");
                p->pos++;
                ctk_toml_skip_ws(p);
                if (value(p, depth + 1, NULL, NULL) < 0)
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

/* A value; strings (when not NULL) collects the strings of an array. */
static int value(struct ctk_toml_parser *p, int depth, long long *integer, struct ctk_strv *strings)
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
                return inline_table(p, depth);
        return scalar(p, integer);
}

int ctk_toml_check(const char *text, size_t len, const char *name, struct ctk_toml_top *top, struct ctk_error **err)
{
        struct ctk_toml_parser p = {.s = text, .len = len, .name = name, .err = err};
        memset(top, 0, sizeof(*top));
        top->body_start = len;
        bool in_table = false;
        for (;;) {
                if (ctk_toml_skip_blank(&p) < 0)
                        goto fail;
                if (p.pos >= len)
                        return 0;
                size_t line_start = p.pos;
                while (line_start > 0 && text[line_start - 1] != '\n')
                        line_start--;
                if (ctk_toml_peek(&p) == '[') {
                        bool aot = ctk_toml_at(&p, "[[");
                        if (!in_table)
                                top->body_start = line_start;
                        in_table = true;
                        p.pos += aot ? 2 : 1;
                        if (ctk_toml_key(&p, NULL) < 0)
                                goto fail;
                        if (!(aot ? ctk_toml_at(&p, "]]") : ctk_toml_peek(&p) == ']')) {
                                ctk_toml_fail(&p, p.pos, "expected '%s' to close the table header", aot ? "]]" : "]");
                                goto fail;
                        }
                        p.pos += aot ? 2 : 1;
                } else {
                        _cleanup_free_ char *k = NULL;
                        if (ctk_toml_key(&p, &k) < 0)
                                goto fail;
                        if (ctk_toml_peek(&p) != '=') {
                                ctk_toml_fail(&p, p.pos, "expected '=' after a key");
                                goto fail;
                        }
                        p.pos++;
                        ctk_toml_skip_ws(&p);
                        bool is_version = !in_table && k != NULL && strcmp(k, "version") == 0;
                        bool is_imports = !in_table && k != NULL && strcmp(k, "imports") == 0;
                        long long v = 0;
                        size_t vstart = p.pos;
                        if (value(&p, 0, is_version ? &v : NULL, is_imports ? &top->imports : NULL) < 0)
                                goto fail;
                        if (is_version) {
                                if (text[vstart] < '0' || text[vstart] > '9') {
                                        ctk_toml_fail(&p, vstart, "version must be an integer");
                                        goto fail;
                                }
                                top->has_version = true;
                                top->version = v;
                        }
                        if (is_imports) {
                                if (text[vstart] != '[') {
                                        ctk_toml_fail(&p, vstart, "imports must be an array of file names");
                                        goto fail;
                                }
                                top->has_imports = true;
                                top->imports_start = line_start;
                        }
                        if (ctk_toml_end_of_line(&p) < 0)
                                goto fail;
                        if (is_imports)
                                top->imports_end = p.pos;
                        continue;
                }
                if (ctk_toml_end_of_line(&p) < 0)
                        goto fail;
        }
fail:
        ctk_toml_top_clear(top);
        return -1;
}

void ctk_toml_top_clear(struct ctk_toml_top *top)
{
        ctk_strv_clear(&top->imports);
        memset(top, 0, sizeof(*top));
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
