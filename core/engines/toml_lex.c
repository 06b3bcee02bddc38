#include "toml_lex.h"

#include "toml.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((format(printf, 6, 0))) static int vfail(const char *text, size_t len, const char *name, size_t at,
                                                       struct ctk_error **err, const char *fmt, va_list ap)
{
        int line = 1, col = 1;
        for (size_t i = 0; i < at && i < len; i++) {
                if (text[i] == '\n') {
                        line++;
                        col = 1;
                } else {
                        col++;
                }
        }
        _cleanup_free_ char *msg = ctk_vformat(fmt, ap);
        if (msg == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        ctk_error_set_msg(err, EINVAL, msg);
        return ctk_error_prefix(err, "%s:%d:%d", CTK_CUT(name), line, col);
}

int ctk_toml_error_at(const char *text, size_t len, const char *name, size_t at, struct ctk_error **err,
                      const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        int r = vfail(text, len, name, at, err, fmt, ap);
        va_end(ap);
        return r;
}

int ctk_toml_fail(struct ctk_toml_parser *p, size_t at, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        int r = vfail(p->s, p->len, p->name, at, p->err, fmt, ap);
        va_end(ap);
        return r;
}

int ctk_toml_peek(const struct ctk_toml_parser *p)
{
        return p->pos < p->len ? (unsigned char)p->s[p->pos] : -1;
}

bool ctk_toml_at(const struct ctk_toml_parser *p, const char *word)
{
        size_t n = strlen(word);
        return p->len - p->pos >= n && memcmp(p->s + p->pos, word, n) == 0;
}

void ctk_toml_skip_ws(struct ctk_toml_parser *p)
{
        while (ctk_toml_peek(p) == ' ' || ctk_toml_peek(p) == '\t')
                p->pos++;
}

/* A comment from '#' to the end of the line (not consumed). */
int ctk_toml_skip_comment(struct ctk_toml_parser *p)
{
        if (ctk_toml_peek(p) != '#')
                return 0;
        for (; p->pos < p->len && p->s[p->pos] != '\n'; p->pos++) {
                unsigned char c = (unsigned char)p->s[p->pos];
                if ((c < 0x20 && c != '\t' && !(c == '\r' && p->pos + 1 < p->len && p->s[p->pos + 1] == '\n')) ||
                    c == 0x7f)
                        return ctk_toml_fail(p, p->pos, "control character in a comment");
        }
        return 0;
}

/* Whitespace, comments and newlines (inside arrays). */
int ctk_toml_skip_blank(struct ctk_toml_parser *p)
{
        for (;;) {
                ctk_toml_skip_ws(p);
                if (ctk_toml_skip_comment(p) < 0)
                        return -1;
                if (ctk_toml_at(p, "\r\n"))
                        p->pos += 2;
                else if (ctk_toml_peek(p) == '\n')
                        p->pos++;
                else
                        return 0;
        }
}

/* The end of a statement: spaces, a comment, then a newline or the end. */
int ctk_toml_end_of_line(struct ctk_toml_parser *p)
{
        ctk_toml_skip_ws(p);
        if (ctk_toml_skip_comment(p) < 0)
                return -1;
        if (p->pos == p->len)
                return 0;
        if (ctk_toml_at(p, "\r\n")) {
                p->pos += 2;
                return 0;
        }
        if (ctk_toml_peek(p) == '\n') {
                p->pos++;
                return 0;
        }
        return ctk_toml_fail(p, p->pos, "expected the end of the line");
}

static void ctk_toml_put_utf8(char **o, uint32_t cp)
{
        char *d = *o;
        if (cp < 0x80) {
                *d++ = (char)cp;
        } else if (cp < 0x800) {
                *d++ = (char)(0xc0 | (cp >> 6));
                *d++ = (char)(0x80 | (cp & 0x3f));
        } else if (cp < 0x10000) {
                *d++ = (char)(0xe0 | (cp >> 12));
                *d++ = (char)(0x80 | ((cp >> 6) & 0x3f));
                *d++ = (char)(0x80 | (cp & 0x3f));
        } else {
                *d++ = (char)(0xf0 | (cp >> 18));
                *d++ = (char)(0x80 | ((cp >> 12) & 0x3f));
                *d++ = (char)(0x80 | ((cp >> 6) & 0x3f));
                *d++ = (char)(0x80 | (cp & 0x3f));
        }
        *o = d;
}

/* A string of any of the four kinds at p->pos; its value in *out when out
 * is not NULL (owned). */
int ctk_toml_string(struct ctk_toml_parser *p, char **out)
{
        size_t start = p->pos;
        bool literal = ctk_toml_peek(p) == '\'';
        const char *q = literal ? "'''" : "\"\"\"";
        bool multi = ctk_toml_at(p, q);
        p->pos += multi ? 3 : 1;
        if (multi && ctk_toml_at(p, "\r\n"))
                p->pos += 2;
        else if (multi && ctk_toml_peek(p) == '\n')
                p->pos++; /* a newline right after the opening quotes is not part of it */
        char *buf = out != NULL ? malloc(p->len - p->pos + 1) : NULL, *o = buf;
        if (out != NULL && buf == NULL)
                return ctk_error_set(p->err, ENOMEM, "out of memory");
        for (;;) {
                if (p->pos >= p->len) {
                        free(buf);
                        return ctk_toml_fail(p, start, "unterminated string");
                }
                unsigned char c = (unsigned char)p->s[p->pos];
                if (multi ? ctk_toml_at(p, q) : c == (unsigned char)q[0]) {
                        p->pos += multi ? 3 : 1;
                        /* up to two more quotes belong to the string */
                        for (int extra = 0; multi && extra < 2 && ctk_toml_peek(p) == q[0]; extra++) {
                                if (o != NULL)
                                        *o++ = q[0];
                                p->pos++;
                        }
                        break;
                }
                if (c == '\n' || c == '\r') {
                        if (!multi || (c == '\r' && !ctk_toml_at(p, "\r\n"))) {
                                free(buf);
                                return ctk_toml_fail(p, p->pos, "newline in a single-line string");
                        }
                } else if ((c < 0x20 && c != '\t') || c == 0x7f) {
                        free(buf);
                        return ctk_toml_fail(p, p->pos, "control character in a string (escape it)");
                }
                if (c != '\\' || literal) {
                        if (o != NULL)
                                *o++ = (char)c;
                        p->pos++;
                        continue;
                }
                size_t esc = p->pos++;
                int e = ctk_toml_peek(p);
                static const char from[] = "btnfr\"\\", to[] = "\b\t\n\f\r\"\\";
                const char *k = e > 0 ? strchr(from, e) : NULL;
                if (k != NULL && *k != '\0') {
                        if (o != NULL)
                                *o++ = to[k - from];
                        p->pos++;
                } else if (e == 'u' || e == 'U') {
                        size_t n = e == 'u' ? 4 : 8;
                        uint32_t cp = 0;
                        for (size_t i = 1; i <= n; i++) {
                                int h = p->pos + i < p->len ? (unsigned char)p->s[p->pos + i] : -1;
                                int v = h >= '0' && h <= '9'   ? h - '0'
                                        : h >= 'a' && h <= 'f' ? h - 'a' + 10
                                        : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                                               : -1;
                                if (v < 0) {
                                        free(buf);
                                        return ctk_toml_fail(p, esc, "\\%c needs %zu hexadecimal digits", e, n);
                                }
                                cp = cp * 16 + (uint32_t)v;
                        }
                        if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
                                free(buf);
                                return ctk_toml_fail(p, esc, "\\%c escape is not a Unicode scalar value", e);
                        }
                        if (o != NULL)
                                ctk_toml_put_utf8(&o, cp);
                        p->pos += n + 1;
                } else if (multi && (e == ' ' || e == '\t' || e == '\n' || e == '\r')) {
                        /* a line-ending backslash: the newline and the blanks after it go */
                        size_t save = p->pos;
                        ctk_toml_skip_ws(p);
                        if (ctk_toml_peek(p) != '\n' && !ctk_toml_at(p, "\r\n")) {
                                free(buf);
                                return ctk_toml_fail(p, save - 1, "invalid escape in a string");
                        }
                        while (ctk_toml_peek(p) == ' ' || ctk_toml_peek(p) == '\t' || ctk_toml_peek(p) == '\n' ||
                               ctk_toml_peek(p) == '\r')
                                p->pos++;
                } else {
                        free(buf);
                        return ctk_toml_fail(p, esc, "invalid escape in a string");
                }
        }
        if (out != NULL) {
                *o = '\0';
                *out = buf;
        }
        return 0;
}

bool ctk_toml_bare_key_char(int c)
{
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

/* A dotted key; parts (if not NULL) gets its parts. */
int ctk_toml_key(struct ctk_toml_parser *p, struct ctk_strv *parts)
{
        for (;;) {
                ctk_toml_skip_ws(p);
                char *part = NULL;
                if (ctk_toml_peek(p) == '"' || ctk_toml_peek(p) == '\'') {
                        if (ctk_toml_at(p, "\"\"\"") || ctk_toml_at(p, "'''"))
                                return ctk_toml_fail(p, p->pos, "a key cannot be a multi-line string");
                        if (ctk_toml_string(p, parts != NULL ? &part : NULL) < 0)
                                return -1;
                } else {
                        size_t s = p->pos;
                        while (ctk_toml_bare_key_char(ctk_toml_peek(p)))
                                p->pos++;
                        if (p->pos == s)
                                return ctk_toml_fail(p, p->pos, "expected a key");
                        if (parts != NULL && (part = strndup(p->s + s, p->pos - s)) == NULL)
                                return ctk_error_set(p->err, ENOMEM, "out of memory");
                }
                if (part != NULL && ctk_strv_push_take(parts, part) < 0)
                        return ctk_error_set(p->err, ENOMEM, "out of memory");
                ctk_toml_skip_ws(p);
                if (ctk_toml_peek(p) != '.')
                        return 0;
                p->pos++;
        }
}
