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
 * Unknown keys, duplicate keys and wrong types are errors reported as
 * FILE:LINE:COLUMN: what.  An empty (or blank) file means all defaults. */
#include "config.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "fileio.h"
#include "json_locate.h"
#include "json_util.h"

#define DEFAULT_LOG_FILE  "/var/log/amd-container-runtime.log"
#define DEFAULT_LOG_LEVEL "info"
#define DEFAULT_STATE_DIR "/var/lib/amd-container-toolkit"

enum field_kind {
        F_PATH,    /* absolute path */
        F_PROGRAM, /* absolute path or a bare command name */
        F_LEVEL,   /* log level */
        F_KINDS,   /* array of resource kinds */
        F_BOOL,
        F_DIRS, /* non-empty array of absolute paths */
};

struct field {
        const char *key;
        enum field_kind kind;
        bool nullable;
        size_t offset;
};

#define AT(member) offsetof(struct ctk_config, member)

/* In the order `amd-ctk config default` prints them. */
static const struct field fields[] = {
    {"root", F_PATH, true, AT(root)},
    {"profile", F_PATH, true, AT(profile)},
    {"runtime-path", F_PROGRAM, true, AT(runtime_path)},
    {"log-file", F_PATH, false, AT(log_file)},
    {"log-level", F_LEVEL, false, AT(log_level)},
    {"state-dir", F_PATH, false, AT(state_dir)},
    {"resource-kinds", F_KINDS, false, AT(resource_kinds)},
    {"seccomp-numa", F_BOOL, false, AT(seccomp_numa)},
    {"ctk-path", F_PATH, true, AT(ctk_path)},
    {"cdi-spec-dirs", F_DIRS, false, AT(cdi_spec_dirs)},
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

static const char *const log_levels[] = {"error", "warning", "info", "debug", NULL};

static void *member(struct ctk_config *c, const struct field *f)
{
        return (char *)c + f->offset;
}
static const void *cmember(const struct ctk_config *c, const struct field *f)
{
        return (const char *)c + f->offset;
}

void ctk_config_clear(struct ctk_config *c)
{
        free(c->root);
        free(c->profile);
        free(c->runtime_path);
        free(c->log_file);
        free(c->log_level);
        free(c->state_dir);
        ctk_strv_clear(&c->resource_kinds);
        free(c->ctk_path);
        ctk_strv_clear(&c->cdi_spec_dirs);
        *c = (struct ctk_config){0};
}

static void config_clearp(struct ctk_config *c)
{
        ctk_config_clear(c);
}

int ctk_config_defaults(struct ctk_config *out, struct ctk_error **err)
{
        __attribute__((cleanup(config_clearp))) struct ctk_config c = {0};
        c.seccomp_numa = true;
        if ((c.log_file = strdup(DEFAULT_LOG_FILE)) == NULL || (c.log_level = strdup(DEFAULT_LOG_LEVEL)) == NULL ||
            (c.state_dir = strdup(DEFAULT_STATE_DIR)) == NULL || ctk_strv_push(&c.resource_kinds, "AMD_GPU") < 0 ||
            ctk_strv_push(&c.resource_kinds, "GPU") < 0 || ctk_strv_push(&c.cdi_spec_dirs, "/etc/cdi") < 0 ||
            ctk_strv_push(&c.cdi_spec_dirs, "/var/run/cdi") < 0)
                return ctk_error_set(err, ENOMEM, "out of memory");
        *out = c;
        c = (struct ctk_config){0};
        return 0;
}

/* Where a problem is: the text, its name and where errors go. */
struct where {
        const char *text;
        size_t len;
        const char *name;
        struct ctk_error **err;
};

/* Sets "NAME:LINE:COLUMN: <message>" for the member `key` (index SIZE_MAX),
 * its element `index`, or the whole document (key NULL). */
static int fail_at(const struct where *w, const char *key, size_t index, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail_at(const struct where *w, const char *key, size_t index, const char *fmt, ...)
{
        struct ctk_json_step path[2] = {{.key = key}, {.key = NULL, .index = index}};
        size_t depth = key == NULL ? 0 : index == SIZE_MAX ? 1 : 2;
        struct ctk_json_pos pos;
        if (ctk_json_locate(w->text, w->len, path, depth, &pos) < 0)
                pos = (struct ctk_json_pos){1, 1};
        va_list ap;
        va_start(ap, fmt);
        _cleanup_free_ char *msg = NULL;
        int r = vasprintf(&msg, fmt, ap);
        va_end(ap);
        if (r < 0)
                return ctk_error_set(w->err, ENOMEM, "out of memory");
        return ctk_error_set(w->err, EINVAL, "%s:%d:%d: %s", w->name, pos.line, pos.column, msg);
}

static bool is_kind_char(char c)
{
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
               c == '.';
}

/* Checks one string value; element is SIZE_MAX for a plain member. */
static int check_string(const struct where *w, const struct field *f, size_t element, const char *s)
{
        if (s[0] == '\0')
                return fail_at(w, f->key, element, "\"%s\" must not be empty", f->key);
        switch (f->kind) {
        case F_PATH:
        case F_DIRS:
                if (s[0] != '/')
                        return fail_at(w, f->key, element, "\"%s\" must be an absolute path (got \"%s\")", f->key, s);
                return 0;
        case F_PROGRAM:
                if (strchr(s, '/') != NULL && s[0] != '/')
                        return fail_at(w, f->key, element,
                                       "\"%s\" must be an absolute path or a command name (got \"%s\")", f->key, s);
                return 0;
        case F_LEVEL:
                for (size_t i = 0; log_levels[i] != NULL; i++)
                        if (strcmp(s, log_levels[i]) == 0)
                                return 0;
                return fail_at(w, f->key, element,
                               "\"%s\" must be one of \"error\", \"warning\", \"info\", \"debug\" (got \"%s\")", f->key,
                               s);
        case F_KINDS:
                for (const char *p = s; *p != '\0'; p++)
                        if (!is_kind_char(*p))
                                return fail_at(w, f->key, element,
                                               "\"%s\" entries may only contain letters, digits, '_', '-' and '.' "
                                               "(got \"%s\")",
                                               f->key, s);
                return 0;
        case F_BOOL:
                break;
        }
        return 0;
}

static int set_list(const struct where *w, const struct field *f, const json_t *v, struct ctk_strv *out)
{
        if (!json_is_array(v))
                return fail_at(w, f->key, SIZE_MAX, "\"%s\" must be an array of strings, not %s", f->key,
                               ctk_json_type_name(v));
        if (f->kind == F_DIRS && json_array_size(v) == 0)
                return fail_at(w, f->key, SIZE_MAX, "\"%s\" must name at least one directory", f->key);
        _cleanup_strv_ struct ctk_strv list = {0};
        size_t i;
        const json_t *e;
        json_array_foreach(v, i, e)
        {
                if (!json_is_string(e))
                        return fail_at(w, f->key, i, "\"%s\" must be an array of strings, not contain %s", f->key,
                                       ctk_json_type_name(e));
                if (check_string(w, f, i, json_string_value(e)) < 0)
                        return -1;
                if (ctk_strv_push(&list, json_string_value(e)) < 0)
                        return ctk_error_set(w->err, ENOMEM, "out of memory");
        }
        ctk_strv_clear(out);
        *out = list;
        list = (struct ctk_strv){0};
        return 0;
}

static int set_field(const struct where *w, const struct field *f, const json_t *v, struct ctk_config *c)
{
        if (f->kind == F_BOOL) {
                if (!json_is_boolean(v))
                        return fail_at(w, f->key, SIZE_MAX, "\"%s\" must be true or false, not %s", f->key,
                                       ctk_json_type_name(v));
                *(bool *)member(c, f) = json_is_true(v);
                return 0;
        }
        if (f->kind == F_KINDS || f->kind == F_DIRS)
                return set_list(w, f, v, member(c, f));
        char **slot = member(c, f);
        if (json_is_null(v) && f->nullable) {
                free(*slot);
                *slot = NULL;
                return 0;
        }
        if (!json_is_string(v))
                return fail_at(w, f->key, SIZE_MAX, "\"%s\" must be a string%s, not %s", f->key,
                               f->nullable ? " or null" : "", ctk_json_type_name(v));
        if (check_string(w, f, SIZE_MAX, json_string_value(v)) < 0)
                return -1;
        char *copy = strdup(json_string_value(v));
        if (copy == NULL)
                return ctk_error_set(w->err, ENOMEM, "out of memory");
        free(*slot);
        *slot = copy;
        return 0;
}

static const struct field *find_field(const char *key)
{
        for (size_t i = 0; i < NFIELDS; i++)
                if (strcmp(fields[i].key, key) == 0)
                        return &fields[i];
        return NULL;
}

int ctk_config_parse(const char *text, size_t len, const char *name, struct ctk_config *out, struct ctk_error **err)
{
        __attribute__((cleanup(config_clearp))) struct ctk_config c = {0};
        if (ctk_config_defaults(&c, err) < 0)
                return -1;
        const struct where w = {text, len, name, err};
        if (!ctk_json_text_is_blank(text, len)) {
                json_error_t jerr;
                _cleanup_json_ json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
                if (doc == NULL)
                        return ctk_error_set(err, EINVAL, "%s:%d:%d: %s", name, jerr.line, jerr.column, jerr.text);
                if (!json_is_object(doc))
                        return fail_at(&w, NULL, 0, "the configuration must be a JSON object, not %s",
                                       ctk_json_type_name(doc));
                const char *key;
                json_t *v;
                json_object_foreach(doc, key, v)
                {
                        const struct field *f = find_field(key);
                        if (f == NULL)
                                return fail_at(&w, key, SIZE_MAX,
                                               "unknown key \"%s\" (known keys: root, profile, runtime-path, "
                                               "log-file, log-level, state-dir, resource-kinds, seccomp-numa, "
                                               "ctk-path, cdi-spec-dirs)",
                                               key);
                        if (set_field(&w, f, v, &c) < 0)
                                return -1;
                }
        }
        if (c.root != NULL && c.profile != NULL)
                return fail_at(&w, "profile", SIZE_MAX, "\"root\" and \"profile\" cannot both be set");
        *out = c;
        c = (struct ctk_config){0};
        return 0;
}

int ctk_config_load(const char *path, bool missing_ok, struct ctk_config *out, struct ctk_error **err)
{
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        _cleanup_error_ struct ctk_error *rerr = NULL;
        if (ctk_file_read_all(path, &text, &len, &rerr) < 0) {
                if (rerr->code == ENOENT && missing_ok)
                        return ctk_config_defaults(out, err);
                return ctk_error_set(err, rerr->code, "configuration file: %s", rerr->msg);
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
        for (size_t i = 0; i < NFIELDS; i++) {
                const struct field *f = &fields[i];
                const void *m = cmember(c, f);
                int r;
                if (f->kind == F_BOOL)
                        r = json_object_set_new(o, f->key, json_boolean(*(const bool *)m));
                else if (f->kind == F_KINDS || f->kind == F_DIRS)
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
