/* Reading the toolkit configuration file with jansson, and writing it (see
 * config.h; its keys: fields.h).  Unknown keys, duplicate keys and wrong
 * types are errors reported as FILE:LINE:COLUMN: what.  An empty (or
 * blank) file means all defaults. */
#include "fields.h"

#include <errno.h>
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/base.h"
#include "core/json/json.h"

/* Where a problem is: the text, its name and where errors go. */
struct where {
        const char *text;
        size_t len;
        const char *name;
        struct ctk_error **err;
};

/* Turns the positionless *inner into "NAME:LINE:COLUMN: <message>" for the
 * member `key` (its element `index`, unless SIZE_MAX), or the whole document
 * (key NULL). */
static int fail_at(const struct where *w, const char *key, size_t index, struct ctk_error *inner)
{
        if (inner->code == ENOMEM)
                return ctk_error_set_msg(w->err, ENOMEM, inner->msg);
        struct ctk_json_step path[2] = {{.key = key}, {.key = NULL, .index = index}};
        size_t depth = key == NULL ? 0 : index == SIZE_MAX ? 1 : 2;
        struct ctk_json_pos pos;
        if (ctk_json_locate(w->text, w->len, path, depth, &pos) < 0)
                pos = (struct ctk_json_pos){1, 1};
        ctk_error_set_msg(w->err, EINVAL, inner->msg);
        return ctk_error_prefix(w->err, "%s:%d:%d", CTK_CUT(w->name), pos.line, pos.column);
}

/* The members of the document w->text over *c. */
static int read_members(const struct ctk_config_table *t, const struct where *w, struct ctk_config *c)
{
        json_error_t jerr;
        _cleanup_json_ json_t *doc = json_loadb(w->text, w->len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
        if (doc == NULL)
                return ctk_error_set(w->err, EINVAL, "%s:%d:%d: %s", CTK_CUT(w->name), jerr.line, jerr.column,
                                     jerr.text);
        _cleanup_error_ struct ctk_error *inner = NULL;
        if (!json_is_object(doc)) {
                ctk_error_set(&inner, EINVAL, "the configuration must be a JSON object, not %s",
                              ctk_json_type_name(doc));
                return fail_at(w, NULL, 0, inner);
        }
        const char *key;
        json_t *v;
        json_object_foreach(doc, key, v)
        {
                size_t at;
                if (ctk_config_table_set(t, c, key, v, &at, &inner) < 0)
                        return fail_at(w, key, at, inner);
        }
        return 0;
}

int ctk_config_table_parse(const struct ctk_config_table *t, const char *text, size_t len, const char *name,
                           struct ctk_config *c, struct ctk_error **err)
{
        if (ctk_config_table_defaults(t, c, err) < 0)
                return -1;
        const struct where w = {text, len, name, err};
        _cleanup_error_ struct ctk_error *inner = NULL;
        const char *key;
        int r = 0;
        if (!ctk_json_text_is_blank(text, len))
                r = read_members(t, &w, c);
        if (r == 0 && ctk_config_finish(c, &key, &inner) < 0)
                r = fail_at(&w, key, SIZE_MAX, inner);
        if (r < 0)
                ctk_config_table_clear(t, c);
        return r;
}

int ctk_config_parse(const char *text, size_t len, const char *name, struct ctk_config *out, struct ctk_error **err)
{
        struct ctk_config c; /* *out stays as it was on failure */
        if (ctk_config_table_parse(&ctk_config_keys, text, len, name, &c, err) < 0)
                return -1;
        *out = c;
        return 0;
}

int ctk_config_load(const char *path, bool missing_ok, struct ctk_config *out, struct ctk_error **err)
{
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        _cleanup_error_ struct ctk_error *rerr = NULL;
        /* (root takes its instructions from it: trusted all the way) */
        if (ctk_file_read_trusted(path, CTK_FILE_MAX, &text, &len, &rerr) < 0) {
                if (rerr->code == ENOENT && missing_ok)
                        return ctk_config_defaults(out, err);
                ctk_error_set_msg(err, rerr->code, rerr->msg);
                return ctk_error_prefix(err, "configuration file");
        }
        return ctk_config_parse(text, len, path, out, err);
}

static int add_string(json_t *o, const char *key, const char *s)
{
        return json_object_set_new(o, key, s != NULL ? json_string(s) : json_null());
}

static int add_list(json_t *o, const char *key, const struct ctk_strv *l)
{
        json_t *a = json_array();
        if (a == NULL)
                return -1;
        for (size_t i = 0; i < l->n; i++)
                if (json_array_append_new(a, json_string(l->v[i])) < 0) {
                        json_decref(a);
                        return -1;
                }
        return json_object_set_new(o, key, a);
}

char *ctk_config_table_dump(const struct ctk_config_table *t, const struct ctk_config *c)
{
        _cleanup_json_ json_t *o = json_object();
        if (o == NULL)
                return NULL;
        for (size_t i = 0; i < t->n; i++) {
                const struct ctk_config_field *f = &t->fields[i];
                const void *m = (const char *)c + f->offset;
                int r;
                if (f->kind == CTK_CONFIG_F_BOOL)
                        r = json_object_set_new(o, f->key, json_boolean(*(const bool *)m));
                else if (ctk_config_field_is_list(f))
                        r = add_list(o, f->key, m);
                else
                        r = add_string(o, f->key, *(char *const *)m);
                if (r < 0)
                        return NULL;
        }
        _cleanup_free_ char *s = json_dumps(o, JSON_INDENT(4) | JSON_PRESERVE_ORDER);
        if (s == NULL)
                return NULL;
        char *withnl = NULL;
        if (asprintf(&withnl, "%s\n", s) < 0)
                return NULL;
        return withnl;
}

char *ctk_config_dump(const struct ctk_config *c)
{
        return ctk_config_table_dump(&ctk_config_keys, c);
}
