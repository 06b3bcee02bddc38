/* The keys of the toolkit configuration file, their defaults and their
 * checks: the table of fields.h and what follows from it. */
#include "fields.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/json/json.h"

#define AT(member) offsetof(struct ctk_config, member)
/* clang-format off */
#define STRING(k, kind_, m, d) {.key = (k), .kind = (kind_), .offset = AT(m), .def = (d)}
#define BOOLEAN(k, m, d)       {.key = (k), .kind = CTK_CONFIG_F_BOOL, .offset = AT(m), .def_bool = (d)}
#define LIST(k, kind_, m, ...) {.key = (k), .kind = (kind_), .offset = AT(m), \
                                .def_list = (const char *const[]){__VA_ARGS__, NULL}}
/* clang-format on */

/* In the order `amd-ctk config default` prints them. */
static const struct ctk_config_field fields[] = {
    STRING("root", CTK_CONFIG_F_PATH, root, NULL),
    STRING("profile", CTK_CONFIG_F_PATH, profile, NULL),
    STRING("runtime-path", CTK_CONFIG_F_PROGRAM, runtime_path, NULL),
    STRING("log-file", CTK_CONFIG_F_PATH, log_file, CTK_DEFAULT_LOG_FILE),
    STRING("log-level", CTK_CONFIG_F_LEVEL, log_level, "info"),
    STRING("state-dir", CTK_CONFIG_F_PATH, state_dir, CTK_DEFAULT_STATE_DIR),
    LIST("resource-kinds", CTK_CONFIG_F_KINDS, resource_kinds, "AMD_GPU", "GPU"),
    BOOLEAN("seccomp-numa", seccomp_numa, true),
    STRING("ctk-path", CTK_CONFIG_F_PATH, ctk_path, NULL),
    LIST("cdi-spec-dirs", CTK_CONFIG_F_DIRS, cdi_spec_dirs, CTK_CDI_STATIC_DIR, CTK_CDI_DYNAMIC_DIR),
    BOOLEAN("cdi-refresh", cdi_refresh, true),
    STRING("mode", CTK_CONFIG_F_MODE, mode, "auto"),
    BOOLEAN("cdi-refresh-on-stale", cdi_refresh_on_stale, false),
    BOOLEAN("accept-visible-devices-envvar-when-unprivileged", accept_env_unprivileged, true),
    LIST("cdi-annotation-prefixes", CTK_CONFIG_F_PREFIXES, cdi_annotation_prefixes, CTK_CDI_ANNOTATION_PREFIX),
    LIST("cdi-kinds", CTK_CONFIG_F_CDI_KINDS, cdi_kinds, CTK_CDI_DEFAULT_KIND),
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))
_Static_assert(NFIELDS <= 32, "struct ctk_config's given has a bit per key");

const struct ctk_config_table ctk_config_keys = {fields, NFIELDS};

static const char *const log_levels[] = {"error", "warning", "info", "debug", NULL};
static const char *const modes[] = {"auto", "cdi", "legacy", NULL}; /* in enum ctk_config_mode order */

enum ctk_config_mode ctk_config_mode_of(const struct ctk_config *c)
{
        for (size_t i = 0; c->mode != NULL && modes[i] != NULL; i++)
                if (strcmp(c->mode, modes[i]) == 0)
                        return (enum ctk_config_mode)i;
        return CTK_MODE_AUTO;
}

static void *member(struct ctk_config *c, const struct ctk_config_field *f)
{
        return (char *)c + f->offset;
}

bool ctk_config_field_is_list(const struct ctk_config_field *f)
{
        return f->kind >= CTK_CONFIG_F_KINDS;
}

/* Empties f's member of c, freeing what it held when owned. */
static void reset(struct ctk_config *c, const struct ctk_config_field *f, bool owned)
{
        void *m = member(c, f);
        if (f->kind == CTK_CONFIG_F_BOOL) {
                *(bool *)m = false;
        } else if (ctk_config_field_is_list(f)) {
                if (owned)
                        ctk_strv_clear(m);
                *(struct ctk_strv *)m = (struct ctk_strv){0};
        } else {
                if (owned)
                        free(*(char **)m);
                *(char **)m = NULL;
        }
}

void ctk_config_table_clear(const struct ctk_config_table *t, struct ctk_config *c)
{
        for (size_t i = 0; i < t->n; i++)
                reset(c, &t->fields[i], true);
        c->given = 0;
}

void ctk_config_clear(struct ctk_config *c)
{
        ctk_config_table_clear(&ctk_config_keys, c);
}

int ctk_config_table_defaults(const struct ctk_config_table *t, struct ctk_config *c, struct ctk_error **err)
{
        for (size_t i = 0; i < t->n; i++)
                reset(c, &t->fields[i], false); /* (what *c held is not ours to free) */
        c->given = 0;
        for (size_t i = 0; i < t->n; i++) {
                const struct ctk_config_field *f = &t->fields[i];
                bool ok = true;
                if (f->kind == CTK_CONFIG_F_BOOL)
                        *(bool *)member(c, f) = f->def_bool;
                else if (ctk_config_field_is_list(f))
                        for (size_t k = 0; ok && f->def_list[k] != NULL; k++)
                                ok = ctk_strv_push(member(c, f), f->def_list[k]) == 0;
                else if (f->def != NULL)
                        ok = (*(char **)member(c, f) = strdup(f->def)) != NULL;
                if (!ok) {
                        ctk_config_table_clear(t, c);
                        return ctk_error_set(err, ENOMEM, "out of memory");
                }
        }
        return 0;
}

int ctk_config_defaults(struct ctk_config *out, struct ctk_error **err)
{
        return ctk_config_table_defaults(&ctk_config_keys, out, err);
}

static bool is_kind_char(char c)
{
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
               c == '.';
}

bool ctk_config_kind_valid(const char *s)
{
        if (s[0] == '\0')
                return false;
        for (const char *p = s; *p != '\0'; p++)
                if (!is_kind_char(*p))
                        return false;
        return true;
}

/* A vendor or class of a CDI kind: a letter first, a letter or digit last,
 * letters, digits, '_', '.' and '-' between. */
static bool cdi_part_valid(const char *s, size_t n)
{
        if (n == 0 || !((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z')))
                return false;
        for (size_t i = 0; i < n; i++)
                if (!is_kind_char(s[i]) || (i == n - 1 && (s[i] == '_' || s[i] == '.' || s[i] == '-')))
                        return false;
        return true;
}

static bool cdi_kind_valid(const char *s)
{
        const char *slash = strchr(s, '/');
        return strcmp(s, "*") == 0 || (slash != NULL && cdi_part_valid(s, (size_t)(slash - s)) &&
                                       cdi_part_valid(slash + 1, strlen(slash + 1)));
}

bool ctk_config_cdi_kind_allowed(const struct ctk_strv *kinds, const char *name)
{
        const char *eq = strchr(name, '=');
        size_t n = eq != NULL ? (size_t)(eq - name) : strlen(name);
        for (size_t i = 0; i < kinds->n; i++)
                if (strcmp(kinds->v[i], "*") == 0 || (strlen(kinds->v[i]) == n && memcmp(kinds->v[i], name, n) == 0))
                        return true;
        return false;
}

/* An annotation key prefix: letters, digits, '.', '_', '-' and '/'. */
static bool prefix_valid(const char *s)
{
        for (const char *p = s; *p != '\0'; p++)
                if (!is_kind_char(*p) && *p != '/')
                        return false;
        return true;
}

/* Checks one string value of field f. */
static int check_string(const struct ctk_config_field *f, const char *s, struct ctk_error **err)
{
        if (s[0] == '\0')
                return ctk_error_set(err, EINVAL, "\"%s\" must not be empty", f->key);
        switch (f->kind) {
        case CTK_CONFIG_F_PATH:
        case CTK_CONFIG_F_DIRS:
                if (s[0] != '/')
                        return ctk_error_set(err, EINVAL, "\"%s\" must be an absolute path (got \"%s\")", f->key,
                                             CTK_CUT(s));
                return 0;
        case CTK_CONFIG_F_PROGRAM:
                if (strchr(s, '/') != NULL && s[0] != '/')
                        return ctk_error_set(err, EINVAL,
                                             "\"%s\" must be an absolute path or a command name (got \"%s\")", f->key,
                                             CTK_CUT(s));
                return 0;
        case CTK_CONFIG_F_LEVEL:
                for (size_t i = 0; log_levels[i] != NULL; i++)
                        if (strcmp(s, log_levels[i]) == 0)
                                return 0;
                return ctk_error_set(err, EINVAL,
                                     "\"%s\" must be one of \"error\", \"warning\", \"info\", \"debug\" (got \"%s\")",
                                     f->key, CTK_CUT(s));
        case CTK_CONFIG_F_MODE:
                for (size_t i = 0; modes[i] != NULL; i++)
                        if (strcmp(s, modes[i]) == 0)
                                return 0;
                return ctk_error_set(err, EINVAL, "\"%s\" must be one of \"auto\", \"cdi\", \"legacy\" (got \"%s\")",
                                     f->key, CTK_CUT(s));
        case CTK_CONFIG_F_KINDS:
                if (!ctk_config_kind_valid(s))
                        return ctk_error_set(err, EINVAL,
                                             "\"%s\" entries may only contain letters, digits, '_', '-' and "
                                             "'.' (got \"%s\")",
                                             f->key, CTK_CUT(s));
                return 0;
        case CTK_CONFIG_F_PREFIXES:
                if (!prefix_valid(s))
                        return ctk_error_set(err, EINVAL,
                                             "\"%s\" entries may only contain letters, digits, '.', '_', '-' and '/' "
                                             "(got \"%s\")",
                                             f->key, CTK_CUT(s));
                return 0;
        case CTK_CONFIG_F_CDI_KINDS:
                if (!cdi_kind_valid(s))
                        return ctk_error_set(err, EINVAL,
                                             "\"%s\" entries are CDI kinds vendor/class (e.g. \"amd.com/gpu\") or "
                                             "\"*\" for any (got \"%s\")",
                                             f->key, CTK_CUT(s));
                return 0;
        case CTK_CONFIG_F_BOOL:
                break;
        }
        return 0;
}

static int set_list(const struct ctk_config_field *f, const json_t *v, struct ctk_strv *out, size_t *at,
                    struct ctk_error **err)
{
        if (!json_is_array(v))
                return ctk_error_set(err, EINVAL, "\"%s\" must be an array of strings, not %s%s", f->key,
                                     ctk_json_type_name(v),
                                     f->kind == CTK_CONFIG_F_CDI_KINDS ? " ([\"*\"] for any kind)" : "");
        if (f->kind == CTK_CONFIG_F_DIRS && json_array_size(v) == 0)
                return ctk_error_set(err, EINVAL, "\"%s\" must name at least one directory", f->key);
        _cleanup_strv_ struct ctk_strv list = {0};
        for (size_t i = 0; i < json_array_size(v); i++) {
                *at = i;
                const json_t *e = json_array_get(v, i);
                if (!json_is_string(e))
                        return ctk_error_set(err, EINVAL, "\"%s\" must be an array of strings, not contain %s", f->key,
                                             ctk_json_type_name(e));
                if (check_string(f, json_string_value(e), err) < 0)
                        return -1;
                if (ctk_strv_push(&list, json_string_value(e)) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
        }
        *at = SIZE_MAX;
        ctk_strv_clear(out);
        *out = list;
        list = (struct ctk_strv){0};
        return 0;
}

static int set_field(struct ctk_config *c, const struct ctk_config_field *f, const json_t *v, size_t *at,
                     struct ctk_error **err)
{
        if (f->kind == CTK_CONFIG_F_BOOL) {
                if (!json_is_boolean(v))
                        return ctk_error_set(err, EINVAL, "\"%s\" must be true or false, not %s", f->key,
                                             ctk_json_type_name(v));
                *(bool *)member(c, f) = json_is_true(v);
                return 0;
        }
        if (ctk_config_field_is_list(f))
                return set_list(f, v, member(c, f), at, err);
        char **slot = member(c, f);
        bool nullable = f->def == NULL;
        if (json_is_null(v) && nullable) {
                free(*slot);
                *slot = NULL;
                return 0;
        }
        if (!json_is_string(v))
                return ctk_error_set(err, EINVAL, "\"%s\" must be a string%s, not %s", f->key,
                                     nullable ? " or null" : "", ctk_json_type_name(v));
        if (check_string(f, json_string_value(v), err) < 0)
                return -1;
        char *copy = strdup(json_string_value(v));
        if (copy == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        free(*slot);
        *slot = copy;
        return 0;
}

static const struct ctk_config_field *find_field(const struct ctk_config_table *t, const char *key)
{
        for (size_t i = 0; i < t->n; i++)
                if (strcmp(t->fields[i].key, key) == 0)
                        return &t->fields[i];
        return NULL;
}

/* "unknown key \"KEY\" (known keys: a, b, ...)" (each key a value of its own:
 * the list is longer than the cut of one) */
static int unknown_key(const struct ctk_config_table *t, const char *key, struct ctk_error **err)
{
        ctk_error_set(err, EINVAL, "unknown key \"%s\" (known keys:", CTK_CUT(key));
        for (size_t i = 0; i < t->n; i++)
                ctk_error_suffix(err, "%s %s", i > 0 ? "," : "", t->fields[i].key);
        return ctk_error_suffix(err, ")");
}

int ctk_config_table_set(const struct ctk_config_table *t, struct ctk_config *c, const char *key, const json_t *v,
                         size_t *at, struct ctk_error **err)
{
        *at = SIZE_MAX;
        const struct ctk_config_field *f = find_field(t, key);
        if (f == NULL)
                return unknown_key(t, key, err);
        if (set_field(c, f, v, at, err) < 0)
                return -1;
        c->given |= 1U << (f - t->fields);
        return 0;
}

bool ctk_config_given(const struct ctk_config *c, const char *key)
{
        const struct ctk_config_field *f = find_field(&ctk_config_keys, key);
        return f != NULL && (c->given & (1U << (f - fields))) != 0;
}

int ctk_config_finish(const struct ctk_config *c, const char **key, struct ctk_error **err)
{
        *key = NULL;
        if (c->root != NULL && c->profile != NULL) {
                *key = "profile";
                return ctk_error_set(err, EINVAL, "\"root\" and \"profile\" cannot both be set");
        }
        return 0;
}
