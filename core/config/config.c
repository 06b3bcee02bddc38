/* The toolkit configuration file (see config.h).
 *
 * A JSON object; every key is optional and overrides its default:
 *   root, profile, ctk-path   absolute path or null (= default)
 *   runtime-path              absolute path, command name on PATH, or null
 *   log-file, state-dir       absolute path
 *   log-level                 "error" | "warning" | "info" | "debug"
 *   resource-kinds            array of Docker generic resource kinds
 *   seccomp-numa              true | false
 *   cdi-spec-dirs             non-empty array of absolute paths
 *   cdi-refresh               true | false
 *   mode                      "auto" | "cdi" | "legacy"
 *   cdi-refresh-on-stale      true | false
 *   accept-visible-devices-envvar-when-unprivileged   true | false
 *   cdi-annotation-prefixes   array of annotation key prefixes (may be empty)
 *   cdi-kinds                 array of CDI kinds vendor/class, or "*" (may be empty)
 * Unknown keys, duplicate keys and wrong types are errors reported as
 * FILE:LINE:COLUMN: what.  An empty (or blank) file means all defaults. */
#include "config.h"

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

/* One member of the document as a ctk_config_value; the element arrays are
 * malloc'ed (freed by value_clear). */
static int value_of(const json_t *v, struct ctk_config_value *out)
{
        *out = (struct ctk_config_value){.kind = CTK_CONFIG_V_OTHER, .type = ctk_json_type_name(v)};
        if (json_is_null(v)) {
                out->kind = CTK_CONFIG_V_NULL;
        } else if (json_is_boolean(v)) {
                out->kind = CTK_CONFIG_V_BOOL;
                out->b = json_is_true(v);
        } else if (json_is_string(v)) {
                out->kind = CTK_CONFIG_V_STRING;
                out->s = json_string_value(v);
        } else if (json_is_array(v)) {
                out->kind = CTK_CONFIG_V_ARRAY;
                out->n = json_array_size(v);
                const char **elems = calloc(out->n + 1, sizeof(*elems));
                const char **types = calloc(out->n + 1, sizeof(*types));
                if (elems == NULL || types == NULL) {
                        free(elems);
                        free(types);
                        return -1;
                }
                for (size_t i = 0; i < out->n; i++) {
                        const json_t *e = json_array_get(v, i);
                        elems[i] = json_string_value(e); /* NULL when not a string */
                        types[i] = ctk_json_type_name(e);
                }
                out->elems = elems;
                out->elem_types = types;
        }
        return 0;
}

static void value_clear(struct ctk_config_value *v)
{
        free((void *)v->elems);
        free((void *)v->elem_types);
}

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
        return ctk_error_prefix(w->err, "%s:%d:%d", w->name, pos.line, pos.column);
}

int ctk_config_parse(const char *text, size_t len, const char *name, struct ctk_config *out, struct ctk_error **err)
{
        _cleanup_config_ struct ctk_config c = {0};
        if (ctk_config_defaults(&c, err) < 0)
                return -1;
        const struct where w = {text, len, name, err};
        if (!ctk_json_text_is_blank(text, len)) {
                json_error_t jerr;
                _cleanup_json_ json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
                if (doc == NULL)
                        return ctk_error_set(err, EINVAL, "%s:%d:%d: %s", name, jerr.line, jerr.column, jerr.text);
                if (!json_is_object(doc)) {
                        _cleanup_error_ struct ctk_error *inner = NULL;
                        ctk_error_set(&inner, EINVAL, "the configuration must be a JSON object, not %s",
                                      ctk_json_type_name(doc));
                        return fail_at(&w, NULL, 0, inner);
                }
                const char *key;
                json_t *v;
                json_object_foreach(doc, key, v)
                {
                        struct ctk_config_value cv;
                        if (value_of(v, &cv) < 0)
                                return ctk_error_set(err, ENOMEM, "out of memory");
                        _cleanup_error_ struct ctk_error *inner = NULL;
                        size_t at;
                        int r = ctk_config_set(&c, key, &cv, &at, &inner);
                        value_clear(&cv);
                        if (r < 0)
                                return fail_at(&w, key, at, inner);
                }
        }
        _cleanup_error_ struct ctk_error *inner = NULL;
        const char *key;
        if (ctk_config_finish(&c, &key, &inner) < 0)
                return fail_at(&w, key, SIZE_MAX, inner);
        *out = c;
        c = (struct ctk_config){0};
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

char *ctk_config_dump(const struct ctk_config *c)
{
        _cleanup_json_ json_t *o = json_object();
        if (o == NULL)
                return NULL;
        size_t n;
        const struct ctk_config_field *fields = ctk_config_fields(&n);
        for (size_t i = 0; i < n; i++) {
                const struct ctk_config_field *f = &fields[i];
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
