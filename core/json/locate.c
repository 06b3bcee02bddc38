/* A small scanner over JSON text that follows a path to a value and reports
 * where it starts (see locate.h). */
#include "locate.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_NESTING 2048 /* jansson's own limit */

struct cursor {
        const char *s;
        size_t len, off;
        int line, col;
};

static int peek(const struct cursor *c)
{
        return c->off < c->len ? (unsigned char)c->s[c->off] : -1;
}

static void advance(struct cursor *c)
{
        if (c->s[c->off] == '\n') {
                c->line++;
                c->col = 1;
        } else {
                c->col++;
        }
        c->off++;
}

static void skip_ws(struct cursor *c)
{
        for (int ch = peek(c); ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n'; ch = peek(c))
                advance(c);
}

static bool expect(struct cursor *c, int ch)
{
        skip_ws(c);
        if (peek(c) != ch)
                return false;
        advance(c);
        return true;
}

static int skip_string(struct cursor *c)
{
        if (peek(c) != '"')
                return -1;
        advance(c);
        while (c->off < c->len) {
                int ch = peek(c);
                advance(c);
                if (ch == '"')
                        return 0;
                if (ch == '\\') {
                        if (c->off >= c->len)
                                return -1;
                        advance(c);
                }
        }
        return -1;
}

static int skip_value(struct cursor *c, int nest);

static int skip_container(struct cursor *c, int nest, int close, bool members)
{
        advance(c);
        skip_ws(c);
        if (peek(c) == close) {
                advance(c);
                return 0;
        }
        for (;;) {
                skip_ws(c);
                if (members && (skip_string(c) < 0 || !expect(c, ':')))
                        return -1;
                if (skip_value(c, nest + 1) < 0)
                        return -1;
                skip_ws(c);
                if (peek(c) == close) {
                        advance(c);
                        return 0;
                }
                if (!expect(c, ','))
                        return -1;
        }
}

static int skip_value(struct cursor *c, int nest)
{
        if (nest > MAX_NESTING)
                return -1;
        skip_ws(c);
        int ch = peek(c);
        if (ch == '"')
                return skip_string(c);
        if (ch == '{')
                return skip_container(c, nest, '}', true);
        if (ch == '[')
                return skip_container(c, nest, ']', false);
        size_t start = c->off;
        while ((ch = peek(c)) != -1 && strchr(",]} \t\r\n", ch) == NULL)
                advance(c);
        return c->off > start ? 0 : -1;
}

/* 2: key equals want, 1: equal without regard to ASCII case, 0: different. */
static int key_match(const char *raw, size_t n, const char *want)
{
        json_t *j = json_loadb(raw, n, JSON_DECODE_ANY, NULL);
        const char *k = json_string_value(j);
        int m = 0;
        if (k != NULL)
                m = strcmp(k, want) == 0 ? 2 : strcasecmp(k, want) == 0 ? 1 : 0;
        json_decref(j);
        return m;
}

static void set_pos(const struct cursor *c, struct ctk_json_pos *out)
{
        out->line = c->line;
        out->column = c->col;
}

static int find(struct cursor *c, const struct ctk_json_step *path, size_t depth, struct ctk_json_pos *out, int nest);

static int find_member(struct cursor *c, const struct ctk_json_step *path, size_t depth, struct ctk_json_pos *out,
                       int nest)
{
        struct cursor fold_key = {0}, fold_val = {0};
        bool have_fold = false;
        if (peek(c) != '{')
                return -1;
        advance(c);
        skip_ws(c);
        if (peek(c) == '}')
                return -1;
        for (;;) {
                skip_ws(c);
                struct cursor key = *c;
                if (skip_string(c) < 0)
                        return -1;
                int m = key_match(c->s + key.off, c->off - key.off, path->key);
                if (!expect(c, ':'))
                        return -1;
                skip_ws(c);
                if (m == 2) {
                        if (depth == 1) {
                                set_pos(&key, out);
                                return 0;
                        }
                        return find(c, path + 1, depth - 1, out, nest + 1);
                }
                if (m == 1 && !have_fold) {
                        have_fold = true;
                        fold_key = key;
                        fold_val = *c;
                }
                if (skip_value(c, nest + 1) < 0)
                        return -1;
                skip_ws(c);
                if (peek(c) == '}')
                        break;
                if (!expect(c, ','))
                        return -1;
        }
        if (!have_fold)
                return -1;
        if (depth == 1) {
                set_pos(&fold_key, out);
                return 0;
        }
        *c = fold_val;
        return find(c, path + 1, depth - 1, out, nest + 1);
}

static int find_element(struct cursor *c, const struct ctk_json_step *path, size_t depth, struct ctk_json_pos *out,
                        int nest)
{
        if (peek(c) != '[')
                return -1;
        advance(c);
        skip_ws(c);
        if (peek(c) == ']')
                return -1;
        for (size_t i = 0;; i++) {
                if (i == path->index)
                        return find(c, path + 1, depth - 1, out, nest + 1);
                if (skip_value(c, nest + 1) < 0 || !expect(c, ','))
                        return -1;
        }
}

static int find(struct cursor *c, const struct ctk_json_step *path, size_t depth, struct ctk_json_pos *out, int nest)
{
        if (nest > MAX_NESTING)
                return -1;
        skip_ws(c);
        if (depth == 0) {
                if (c->off >= c->len)
                        return -1;
                set_pos(c, out);
                return 0;
        }
        if (path->key != NULL)
                return find_member(c, path, depth, out, nest);
        return find_element(c, path, depth, out, nest);
}

int ctk_json_locate(const char *text, size_t len, const struct ctk_json_step *path, size_t depth,
                    struct ctk_json_pos *out)
{
        struct cursor c = {.s = text, .len = len, .off = 0, .line = 1, .col = 1};
        if (text == NULL)
                return -1;
        return find(&c, path, depth, out, 0);
}
