#include "spec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json/json.h"
#include "spec_literals.h"

/* The literal a placeholder s ("\x01" and an index) stands for, or NULL. */
static struct ctk_oci_literal *literal_of(const struct ctk_oci_literals *lits, const char *s)
{
        if (lits == NULL || s[0] != '\x01' || s[1] < '0' || s[1] > '9')
                return NULL;
        char *end;
        errno = 0;
        unsigned long long i = strtoull(s + 1, &end, 10);
        if (*end != '\0' || errno != 0 || i >= lits->n)
                return NULL;
        char want[24];
        (void)snprintf(want, sizeof(want), "\x01%llu", i);
        return strcmp(s, want) == 0 ? &lits->v[i] : NULL;
}

/* Binds each placeholder of the parsed document to its literal: every
 * string starting with U+0001 is one (the spec's own were set aside). */
static void bind(json_t *v, struct ctk_oci_literals *lits)
{
        if (json_is_string(v)) {
                struct ctk_oci_literal *l = literal_of(lits, json_string_value(v));
                if (l != NULL)
                        l->value = v;
        } else if (json_is_object(v)) {
                const char *k;
                json_t *m;
                json_object_foreach(v, k, m)
                {
                        struct ctk_oci_literal *l = literal_of(lits, k);
                        if (l != NULL)
                                l->object = v;
                        bind(m, lits);
                }
        } else if (json_is_array(v)) {
                size_t i;
                json_t *m;
                json_array_foreach(v, i, m) bind(m, lits);
        }
}

/* jansson's line and column (characters, not bytes) after data[0..at). */
static void line_column(const char *data, size_t at, int *line, int *column)
{
        *line = 1;
        *column = 0;
        for (size_t i = 0; i < at; i++) {
                if (data[i] == '\n') {
                        ++*line;
                        *column = 0;
                } else if (((unsigned char)data[i] & 0xc0) != 0x80) {
                        ++*column;
                }
        }
}

int ctk_oci_spec_parse(const char *data, size_t len, const char *name, json_t **out, struct ctk_oci_literals *lits,
                       struct ctk_error **err)
{
        *out = NULL;
        *lits = (struct ctk_oci_literals){0};
        if (ctk_oci_spec_check_counts(data, len, name, NULL, err) < 0) /* before a byte of it is built */
                return -1;
        struct ctk_oci_subs subs = {0};
        char *text = NULL;
        size_t text_len = 0;
        if (ctk_oci_literals_set_aside(data, len, &text, &text_len, lits, &subs) < 0) {
                ctk_oci_subs_clear(&subs);
                ctk_oci_literals_clear(lits);
                return ctk_error_set(err, ENOMEM, "out of memory");
        }
        json_error_t jerr;
        json_t *doc = json_loadb(text != NULL ? text : data, text != NULL ? text_len : len, JSON_DECODE_ANY, &jerr);
        free(text);
        if (doc == NULL) {
                int line = jerr.line, column = jerr.column;
                if (subs.n > 0) /* where it is in the spec's own text */
                        line_column(data, ctk_oci_subs_orig(&subs, (size_t)jerr.position), &line, &column);
                ctk_oci_subs_clear(&subs);
                ctk_oci_literals_clear(lits);
                return ctk_error_set(err, EINVAL, "%s:%d:%d: %s", CTK_CUT(name), line, column, jerr.text);
        }
        ctk_oci_subs_clear(&subs);
        if (!json_is_object(doc)) {
                json_decref(doc);
                ctk_oci_literals_clear(lits);
                return ctk_error_set(err, EINVAL, "%s: the spec is not a JSON object", CTK_CUT(name));
        }
        if (lits->n > 0)
                bind(doc, lits);
        *out = doc;
        return 0;
}

/* As json_dumps(JSON_COMPACT) writes v, but a placeholder still where it
 * was put is written as its literal. */
static void encode(struct ctk_json_out *o, const json_t *v, const struct ctk_oci_literals *lits)
{
        switch (json_typeof(v)) {
        case JSON_OBJECT: {
                ctk_json_out_putc(o, '{');
                const char *k;
                const json_t *m;
                bool first = true;
                json_object_foreach((json_t *)v, k, m)
                {
                        if (!first)
                                ctk_json_out_putc(o, ',');
                        first = false;
                        const struct ctk_oci_literal *l = literal_of(lits, k);
                        if (l != NULL && l->object == v)
                                ctk_json_out_puts(o, l->text);
                        else
                                ctk_json_out_quote_str(o, k, CTK_JSON_ESC_JANSSON);
                        ctk_json_out_putc(o, ':');
                        encode(o, m, lits);
                }
                ctk_json_out_putc(o, '}');
                break;
        }
        case JSON_ARRAY: {
                ctk_json_out_putc(o, '[');
                for (size_t i = 0; i < json_array_size(v); i++) {
                        if (i > 0)
                                ctk_json_out_putc(o, ',');
                        encode(o, json_array_get(v, i), lits);
                }
                ctk_json_out_putc(o, ']');
                break;
        }
        case JSON_STRING: {
                const struct ctk_oci_literal *l = literal_of(lits, json_string_value(v));
                if (l != NULL && l->value == v)
                        ctk_json_out_puts(o, l->text);
                else
                        ctk_json_out_quote(o, json_string_value(v), json_string_length(v), CTK_JSON_ESC_JANSSON);
                break;
        }
        case JSON_INTEGER: {
                char buf[32];
                int n = snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
                ctk_json_out_put(o, buf, (size_t)n);
                break;
        }
        case JSON_TRUE:
                ctk_json_out_puts(o, "true");
                break;
        case JSON_FALSE:
                ctk_json_out_puts(o, "false");
                break;
        case JSON_NULL:
                ctk_json_out_puts(o, "null");
                break;
        case JSON_REAL:
        default: { /* (none from a spec's text: set aside) */
                char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
                if (s == NULL)
                        o->failed = true;
                else
                        ctk_json_out_puts(o, s);
                free(s);
                break;
        }
        }
}

char *ctk_oci_spec_encode(const json_t *spec, const struct ctk_oci_literals *lits, size_t *len)
{
        struct ctk_json_out o = {0};
        encode(&o, spec, lits);
        ctk_json_out_putc(&o, '\n');
        return ctk_json_out_finish(&o, len);
}
