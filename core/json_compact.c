#include "json_compact.h"

#include <stdbool.h>
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

static void put(struct ctk_json_out *o, const char *s, size_t len)
{
        ctk_json_out_put(o, s, len);
}

static void put_char(struct ctk_json_out *o, char c)
{
        ctk_json_out_putc(o, c);
}

static void put_integer(struct ctk_json_out *o, json_int_t v)
{
        if (v < 0)
                put_char(o, '-');
        ctk_json_out_uint(o, v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v);
}

/* Escapes as jansson does (valid UTF-8 by construction). */
static void put_string(struct ctk_json_out *o, const char *s, size_t len)
{
        ctk_json_out_quote(o, s, len, CTK_JSON_ESC_JANSSON);
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
        return ctk_json_out_finish(&o.b, len);
}
