/* CDI specs written as YAML, read into the jansson document the JSON path
 * checks (libyaml's event parser; the conversion CDI runtimes make with
 * their strict YAML decoder, then JSON):
 *
 *   one document (a leading "---" is fine; a second document is an error)
 *   mappings -> objects (keys are scalars, taken as text; a key twice is an
 *               error, as in the strict decoder), sequences -> arrays
 *   quoted, literal and folded scalars -> strings
 *   plain scalars, as YAML 1.1 resolves them: ~, null, empty -> null;
 *     true/false, yes/no, on/off, y/n (each lower, Capitalised or UPPER)
 *     -> booleans; integers (decimal, 0x hex, 0o or leading-0 octal, 0b
 *     binary, a sign, '_' separators) -> integers; decimals -> reals;
 *     anything else -> a string
 *   tags !!str, !!int, !!bool, !!null, !!float, !!map, !!seq are honoured;
 *     other tags, anchors, aliases and merge keys are errors (a spec has
 *     no use for them)
 *
 * Problems are one line, "FILE:LINE:COLUMN: what", with the position in
 * the YAML text. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "cdi.h"
#include "core/base/base.h"
#include "core/json/json.h"

#define YAML_MAX_DEPTH 64 /* a CDI spec is 6 deep; more is not a spec */

struct reader {
        yaml_parser_t parser;
        yaml_event_t event; /* the current event (owned while has_event) */
        bool has_event;
        const char *file;
        char *problem; /* the first problem, "FILE:LINE:COLUMN: what" */
};

static void problem_at(struct reader *r, yaml_mark_t mark, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void problem_at(struct reader *r, yaml_mark_t mark, const char *fmt, ...)
{
        if (r->problem != NULL)
                return;
        va_list ap;
        va_start(ap, fmt);
        char *what = ctk_vformat(fmt, ap);
        va_end(ap);
        /* through an error: its message is one line whatever it quotes */
        struct ctk_error *e = NULL;
        if (what != NULL) {
                ctk_error_set_msg(&e, EINVAL, what);
                ctk_error_prefix(&e, "%s:%zu:%zu", CTK_CUT(r->file), mark.line + 1, mark.column + 1);
        }
        if (e != NULL)
                r->problem = ctk_steal(&e->msg);
        ctk_error_free(e);
        free(what);
}

/* Moves to the next event; false (a problem set) on a parse error. */
static bool next(struct reader *r)
{
        if (r->has_event)
                yaml_event_delete(&r->event);
        r->has_event = false;
        if (!yaml_parser_parse(&r->parser, &r->event)) {
                const char *what = r->parser.problem != NULL ? r->parser.problem : "invalid YAML";
                if (r->parser.context != NULL)
                        problem_at(r, r->parser.problem_mark, "%s %s", CTK_CUT(what), r->parser.context);
                else
                        problem_at(r, r->parser.problem_mark, "%s", CTK_CUT(what));
                return false;
        }
        r->has_event = true;
        return true;
}

static bool is_one_of(const char *s, const char *const *words)
{
        for (size_t i = 0; words[i] != NULL; i++)
                if (strcmp(s, words[i]) == 0)
                        return true;
        return false;
}

static const char *const null_words[] = {"", "~", "null", "Null", "NULL", NULL};
static const char *const true_words[] = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON", "y", "Y", NULL};
static const char *const false_words[] = {"false", "False", "FALSE", "no", "No", "NO",
                                          "off",   "Off",   "OFF",   "n",  "N",  NULL};

/* An integer of YAML 1.1 into *out: 1 when s is one, 0 when not, -1 when
 * it is one out of range. */
static int as_integer(const char *s, json_int_t *out)
{
        char digits[72];
        size_t n = 0;
        for (const char *p = s; *p != '\0'; p++) {
                if (*p == '_')
                        continue;
                if (n + 1 >= sizeof(digits))
                        return 0;
                digits[n++] = *p;
        }
        digits[n] = '\0';
        const char *p = digits;
        bool negative = *p == '-';
        if (*p == '-' || *p == '+')
                p++;
        int base = 10;
        if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
                base = 16;
                p += 2;
        } else if (p[0] == '0' && (p[1] == 'o' || p[1] == 'O')) {
                base = 8;
                p += 2;
        } else if (p[0] == '0' && (p[1] == 'b' || p[1] == 'B')) {
                base = 2;
                p += 2;
        } else if (p[0] == '0' && p[1] != '\0') {
                base = 8;
                p++;
        }
        if (*p == '\0')
                return 0;
        uint64_t v = 0;
        bool overflow = false;
        for (; *p != '\0'; p++) {
                int d = *p >= '0' && *p <= '9'   ? *p - '0'
                        : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10
                        : *p >= 'A' && *p <= 'F' ? *p - 'A' + 10
                                                 : 99;
                if (d >= base)
                        return 0;
                if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
                        overflow = true;
                else
                        v = v * (uint64_t)base + (uint64_t)d;
        }
        if (overflow || (!negative && v > (uint64_t)INT64_MAX) || (negative && v > (uint64_t)INT64_MAX + 1))
                return -1;
        *out = negative ? (json_int_t)(0 - v) : (json_int_t)v;
        return 1;
}

/* [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)? */
static bool looks_like_float(const char *s)
{
        const char *p = s + (*s == '-' || *s == '+');
        size_t before = strspn(p, "0123456789");
        p += before;
        size_t after = 0;
        if (*p == '.') {
                p++;
                after = strspn(p, "0123456789");
                p += after;
        }
        if (before == 0 && after == 0)
                return false;
        if (*p == 'e' || *p == 'E') {
                p++;
                p += *p == '-' || *p == '+';
                size_t exp = strspn(p, "0123456789");
                if (exp == 0)
                        return false;
                p += exp;
        }
        return *p == '\0';
}

enum tag { TAG_NONE, TAG_STR, TAG_INT, TAG_BOOL, TAG_NULL, TAG_FLOAT, TAG_MAP, TAG_SEQ, TAG_OTHER };

static enum tag tag_of(const yaml_char_t *tag)
{
        static const struct {
                const char *name;
                enum tag tag;
        } known[] = {
            {YAML_STR_TAG, TAG_STR},     {YAML_INT_TAG, TAG_INT}, {YAML_BOOL_TAG, TAG_BOOL}, {YAML_NULL_TAG, TAG_NULL},
            {YAML_FLOAT_TAG, TAG_FLOAT}, {YAML_MAP_TAG, TAG_MAP}, {YAML_SEQ_TAG, TAG_SEQ},   {"!", TAG_NONE},
        };
        if (tag == NULL)
                return TAG_NONE;
        for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
                if (strcmp((const char *)tag, known[i].name) == 0)
                        return known[i].tag;
        return TAG_OTHER;
}

static json_t *scalar(struct reader *r)
{
        const yaml_event_t *e = &r->event;
        const char *s = (const char *)e->data.scalar.value;
        size_t len = e->data.scalar.length;
        enum tag tag = tag_of(e->data.scalar.tag);
        bool plain = e->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
        if (tag == TAG_OTHER || tag == TAG_MAP || tag == TAG_SEQ) {
                problem_at(r, e->start_mark, "unsupported tag %s", CTK_CUT((const char *)e->data.scalar.tag));
                return NULL;
        }
        if (tag == TAG_STR || (tag == TAG_NONE && (!plain || e->data.scalar.tag != NULL))) {
                json_t *j = json_stringn(s, len);
                if (j == NULL)
                        problem_at(r, e->start_mark, "a string that is not valid UTF-8 or holds a NUL byte");
                return j;
        }
        if (strlen(s) != len) {
                problem_at(r, e->start_mark, "a NUL byte in a value");
                return NULL;
        }
        if ((tag == TAG_NONE || tag == TAG_NULL) && is_one_of(s, null_words))
                return json_null();
        if ((tag == TAG_NONE || tag == TAG_BOOL) && is_one_of(s, true_words))
                return json_true();
        if ((tag == TAG_NONE || tag == TAG_BOOL) && is_one_of(s, false_words))
                return json_false();
        json_int_t i;
        int is_int = tag == TAG_NONE || tag == TAG_INT ? as_integer(s, &i) : 0;
        if (is_int > 0)
                return json_integer(i);
        if (is_int < 0) {
                problem_at(r, e->start_mark, "integer %s is out of range", CTK_CUT(s));
                return NULL;
        }
        if ((tag == TAG_NONE || tag == TAG_FLOAT) && looks_like_float(s)) {
                double d = strtod(s, NULL);
                if (!isfinite(d)) {
                        problem_at(r, e->start_mark, "number %s is out of range", CTK_CUT(s));
                        return NULL;
                }
                return json_real(d);
        }
        if (tag != TAG_NONE) {
                problem_at(r, e->start_mark, "\"%s\" is not a value of tag %s", CTK_CUT(s),
                           CTK_CUT((const char *)e->data.scalar.tag));
                return NULL;
        }
        json_t *j = json_stringn(s, len);
        if (j == NULL)
                problem_at(r, e->start_mark, "a string that is not valid UTF-8");
        return j;
}

static json_t *node(struct reader *r, size_t depth);

static json_t *sequence(struct reader *r, size_t depth)
{
        _cleanup_json_ json_t *a = json_array();
        if (a == NULL)
                return NULL;
        for (;;) {
                if (!next(r))
                        return NULL;
                if (r->event.type == YAML_SEQUENCE_END_EVENT)
                        return ctk_steal(&a);
                json_t *item = node(r, depth + 1);
                if (item == NULL || json_array_append_new(a, item) < 0)
                        return NULL;
        }
}

static json_t *mapping(struct reader *r, size_t depth)
{
        _cleanup_json_ json_t *o = json_object();
        if (o == NULL)
                return NULL;
        for (;;) {
                if (!next(r))
                        return NULL;
                if (r->event.type == YAML_MAPPING_END_EVENT)
                        return ctk_steal(&o);
                if (r->event.type != YAML_SCALAR_EVENT) {
                        problem_at(r, r->event.start_mark, "a mapping key must be a plain value");
                        return NULL;
                }
                if (r->event.data.scalar.anchor != NULL) {
                        problem_at(r, r->event.start_mark, "anchors and aliases are not supported in CDI specs");
                        return NULL;
                }
                const char *key = (const char *)r->event.data.scalar.value;
                if (r->event.data.scalar.style == YAML_PLAIN_SCALAR_STYLE && strcmp(key, "<<") == 0) {
                        problem_at(r, r->event.start_mark, "merge keys (<<) are not supported in CDI specs");
                        return NULL;
                }
                if (strlen(key) != r->event.data.scalar.length) {
                        problem_at(r, r->event.start_mark, "a NUL byte in a key");
                        return NULL;
                }
                if (json_object_get(o, key) != NULL) {
                        problem_at(r, r->event.start_mark, "duplicate key \"%s\"", CTK_CUT(key));
                        return NULL;
                }
                _cleanup_free_ char *k = strdup(key);
                if (k == NULL || !next(r))
                        return NULL;
                json_t *value = node(r, depth + 1);
                if (value == NULL)
                        return NULL;
                if (json_object_set_new(o, k, value) < 0) {
                        problem_at(r, r->event.start_mark, "a key that is not valid UTF-8");
                        return NULL;
                }
        }
}

/* A sequence or mapping without an anchor, untagged or tagged as what it is. */
static bool plain_collection(struct reader *r, const yaml_char_t *anchor, const yaml_char_t *tag, enum tag want)
{
        if (anchor == NULL && (tag_of(tag) == TAG_NONE || tag_of(tag) == want))
                return true;
        problem_at(r, r->event.start_mark, "%s",
                   anchor != NULL ? "anchors and aliases are not supported in CDI specs"
                                  : "unsupported tag on a sequence or mapping");
        return false;
}

/* The node that starts at the current event. */
static json_t *node(struct reader *r, size_t depth)
{
        const yaml_event_t *e = &r->event;
        if (depth > YAML_MAX_DEPTH) {
                problem_at(r, e->start_mark, "nested deeper than %d levels", YAML_MAX_DEPTH);
                return NULL;
        }
        switch (e->type) {
        case YAML_ALIAS_EVENT:
                problem_at(r, e->start_mark, "anchors and aliases are not supported in CDI specs");
                return NULL;
        case YAML_SCALAR_EVENT:
                if (e->data.scalar.anchor != NULL) {
                        problem_at(r, e->start_mark, "anchors and aliases are not supported in CDI specs");
                        return NULL;
                }
                return scalar(r);
        case YAML_SEQUENCE_START_EVENT:
                if (!plain_collection(r, e->data.sequence_start.anchor, e->data.sequence_start.tag, TAG_SEQ))
                        return NULL;
                return sequence(r, depth);
        case YAML_MAPPING_START_EVENT:
                if (!plain_collection(r, e->data.mapping_start.anchor, e->data.mapping_start.tag, TAG_MAP))
                        return NULL;
                return mapping(r, depth);
        default:
                problem_at(r, e->start_mark, "unexpected YAML event");
                return NULL;
        }
}

static json_t *document(struct reader *r)
{
        if (!next(r) || r->event.type != YAML_STREAM_START_EVENT || !next(r))
                return NULL;
        if (r->event.type == YAML_STREAM_END_EVENT) {
                problem_at(r, r->event.start_mark, "no YAML document (the file is empty)");
                return NULL;
        }
        if (r->event.type != YAML_DOCUMENT_START_EVENT || !next(r))
                return NULL;
        _cleanup_json_ json_t *root = node(r, 0);
        if (root == NULL || !next(r))
                return NULL;
        if (r->event.type != YAML_DOCUMENT_END_EVENT || !next(r))
                return NULL;
        if (r->event.type != YAML_STREAM_END_EVENT) {
                problem_at(r, r->event.start_mark, "a second YAML document: a CDI spec is one document");
                return NULL;
        }
        return ctk_steal(&root);
}

int ctk_cdi_yaml_to_json(const char *file, const char *text, size_t len, json_t **out, char **problem)
{
        *out = NULL;
        *problem = NULL;
        struct reader r = {.file = file != NULL ? file : "-"};
        if (!yaml_parser_initialize(&r.parser))
                return -1;
        yaml_parser_set_input_string(&r.parser, (const unsigned char *)text, len);
        json_t *root = document(&r);
        if (r.has_event)
                yaml_event_delete(&r.event);
        yaml_parser_delete(&r.parser);
        if (root != NULL) {
                free(r.problem);
                *out = root;
                return 0;
        }
        if (r.problem == NULL) { /* a failed allocation left nothing to say */
                if (asprintf(&r.problem, "%s: out of memory", r.file) < 0)
                        return -1;
        }
        *problem = r.problem;
        return 0;
}
