#include "json_compact.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 2048 /* jansson's JSON_PARSER_DEFAULT_DEPTH */

struct out {
        struct ctk_json_out b;
        const struct ctk_json_extra *extra; /* elements appended to arrays */
        size_t nextra, extra_done;
};

/* An extra's text goes after the array's own elements. */
static void put_extra(struct out *o, const json_t *array, bool nonempty);

static bool reserve(struct ctk_json_out *o, size_t more)
{
        if (o->failed)
                return false;
        if (o->n + more + 1 <= o->cap)
                return true;
        size_t cap = o->cap != 0 ? o->cap : 4096;
        while (cap < o->n + more + 1)
                cap *= 2;
        char *p = realloc(o->p, cap);
        if (p == NULL) {
                o->failed = true;
                return false;
        }
        o->p = p;
        o->cap = cap;
        return true;
}

static void put(struct ctk_json_out *o, const char *s, size_t len)
{
        if (!reserve(o, len))
                return;
        memcpy(o->p + o->n, s, len);
        o->n += len;
}

static void put_char(struct ctk_json_out *o, char c)
{
        if (!reserve(o, 1))
                return;
        o->p[o->n++] = c;
}

static void put_integer(struct ctk_json_out *o, json_int_t v)
{
        char buf[24], *e = buf + sizeof(buf), *p = e;
        unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
        do {
                *--p = (char)('0' + u % 10);
                u /= 10;
        } while (u != 0);
        if (v < 0)
                *--p = '-';
        put(o, p, (size_t)(e - p));
}

/* Escapes as jansson does: \" \\ \b \f \n \r \t, other control characters
 * as \u00XX; everything else (valid UTF-8 by construction) as is. */
static void put_string(struct ctk_json_out *o, const char *s, size_t len)
{
        put_char(o, '"');
        size_t run = 0;
        for (size_t i = 0; i < len; i++) {
                unsigned char c = (unsigned char)s[i];
                if (c >= 0x20 && c != '"' && c != '\\')
                        continue;
                put(o, s + run, i - run);
                run = i + 1;
                char esc[8];
                switch (c) {
                case '"':
                        put(o, "\\\"", 2);
                        break;
                case '\\':
                        put(o, "\\\\", 2);
                        break;
                case '\b':
                        put(o, "\\b", 2);
                        break;
                case '\f':
                        put(o, "\\f", 2);
                        break;
                case '\n':
                        put(o, "\\n", 2);
                        break;
                case '\r':
                        put(o, "\\r", 2);
                        break;
                case '\t':
                        put(o, "\\t", 2);
                        break;
                default:
                        snprintf(esc, sizeof(esc), "\\u%04X", c);
                        put(o, esc, 6);
                }
        }
        put(o, s + run, len - run);
        put_char(o, '"');
}

/* Reals are rare in specs: jansson formats them itself. */
static void put_real(struct out *o, const json_t *j)
{
        char *s = json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT);
        if (s == NULL) {
                o->b.failed = true;
                return;
        }
        put(&o->b, s, strlen(s));
        free(s);
}

static void encode(struct out *o, const json_t *j, int depth)
{
        if (depth > MAX_DEPTH) {
                o->b.failed = true;
                return;
        }
        switch (json_typeof(j)) {
        case JSON_OBJECT: {
                const char *key;
                json_t *v;
                bool first = true;
                put_char(&o->b, '{');
                json_object_foreach((json_t *)j, key, v)
                {
                        if (!first)
                                put_char(&o->b, ',');
                        first = false;
                        put_string(&o->b, key, strlen(key));
                        put_char(&o->b, ':');
                        encode(o, v, depth + 1);
                }
                put_char(&o->b, '}');
                break;
        }
        case JSON_ARRAY: {
                size_t i;
                json_t *v;
                put_char(&o->b, '[');
                json_array_foreach(j, i, v)
                {
                        if (i > 0)
                                put_char(&o->b, ',');
                        encode(o, v, depth + 1);
                }
                if (o->nextra > 0)
                        put_extra(o, j, json_array_size(j) > 0);
                put_char(&o->b, ']');
                break;
        }
        case JSON_STRING:
                put_string(&o->b, json_string_value(j), json_string_length(j));
                break;
        case JSON_INTEGER:
                put_integer(&o->b, json_integer_value(j));
                break;
        case JSON_REAL:
                put_real(o, j);
                break;
        case JSON_TRUE:
                put(&o->b, "true", 4);
                break;
        case JSON_FALSE:
                put(&o->b, "false", 5);
                break;
        case JSON_NULL:
                put(&o->b, "null", 4);
                break;
        }
}

static void put_extra(struct out *o, const json_t *array, bool nonempty)
{
        for (size_t i = 0; i < o->nextra; i++) {
                const struct ctk_json_extra *x = &o->extra[i];
                if (x->array != array || x->len == 0)
                        continue;
                if (nonempty)
                        put_char(&o->b, ',');
                put(&o->b, x->text, x->len);
                nonempty = true;
                o->extra_done++;
        }
}

void ctk_json_out_raw(struct ctk_json_out *b, const char *s, size_t len)
{
        put(b, s, len);
}

void ctk_json_out_string(struct ctk_json_out *b, const char *s, size_t len)
{
        put_string(b, s, len);
}

void ctk_json_out_integer(struct ctk_json_out *b, json_int_t v)
{
        put_integer(b, v);
}

char *ctk_json_compact(const json_t *j, size_t *len)
{
        return ctk_json_compact_extra(j, NULL, 0, len);
}

char *ctk_json_compact_extra(const json_t *j, const struct ctk_json_extra *extra, size_t nextra, size_t *len)
{
        struct out o = {.extra = extra, .nextra = nextra};
        if (j == NULL)
                return NULL;
        size_t want = 0;
        for (size_t i = 0; i < nextra; i++)
                want += extra[i].len > 0;
        encode(&o, j, 0);
        if (o.extra_done != want) /* an array the extras were meant for is not in the document */
                o.b.failed = true;
        if (!reserve(&o.b, 0)) {
                free(o.b.p);
                return NULL;
        }
        o.b.p[o.b.n] = '\0';
        if (len != NULL)
                *len = o.b.n;
        return o.b.p;
}
