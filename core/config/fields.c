/* The keys of the toolkit configuration file, their defaults and their
 * checks (see config.h), apart from any JSON library: config.c feeds it
 * what jansson parsed, the runtime launcher what its own scanner read. */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_LOG_FILE  "/var/log/amd-container-runtime.log"
#define DEFAULT_LOG_LEVEL "info"
#define DEFAULT_STATE_DIR "/var/lib/amd-container-toolkit"

#define AT(member) offsetof(struct ctk_config, member)

/* In the order `amd-ctk config default` prints them. */
static const struct ctk_config_field fields[] = {
    {"root", CTK_CONFIG_F_PATH, true, AT(root)},
    {"profile", CTK_CONFIG_F_PATH, true, AT(profile)},
    {"runtime-path", CTK_CONFIG_F_PROGRAM, true, AT(runtime_path)},
    {"log-file", CTK_CONFIG_F_PATH, false, AT(log_file)},
    {"log-level", CTK_CONFIG_F_LEVEL, false, AT(log_level)},
    {"state-dir", CTK_CONFIG_F_PATH, false, AT(state_dir)},
    {"resource-kinds", CTK_CONFIG_F_KINDS, false, AT(resource_kinds)},
    {"seccomp-numa", CTK_CONFIG_F_BOOL, false, AT(seccomp_numa)},
    {"ctk-path", CTK_CONFIG_F_PATH, true, AT(ctk_path)},
    {"cdi-spec-dirs", CTK_CONFIG_F_DIRS, false, AT(cdi_spec_dirs)},
    {"cdi-refresh", CTK_CONFIG_F_BOOL, false, AT(cdi_refresh)},
    {"mode", CTK_CONFIG_F_MODE, false, AT(mode)},
    {"cdi-refresh-on-stale", CTK_CONFIG_F_BOOL, false, AT(cdi_refresh_on_stale)},
    {"accept-visible-devices-envvar-when-unprivileged", CTK_CONFIG_F_BOOL, false, AT(accept_env_unprivileged)},
    {"cdi-annotation-prefixes", CTK_CONFIG_F_PREFIXES, false, AT(cdi_annotation_prefixes)},
    {"cdi-kinds", CTK_CONFIG_F_CDI_KINDS, false, AT(cdi_kinds)},
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))
_Static_assert(NFIELDS <= 32, "struct ctk_config's given has a bit per key");

static const char *const log_levels[] = {"error", "warning", "info", "debug", NULL};
static const char *const modes[] = {"auto", "cdi", "legacy", NULL}; /* in enum ctk_config_mode order */

enum ctk_config_mode ctk_config_mode_of(const struct ctk_config *c)
{
        for (size_t i = 0; c->mode != NULL && modes[i] != NULL; i++)
                if (strcmp(c->mode, modes[i]) == 0)
                        return (enum ctk_config_mode)i;
        return CTK_MODE_AUTO;
}

const struct ctk_config_field *ctk_config_fields(size_t *n)
{
        *n = NFIELDS;
        return fields;
}

static void *member(struct ctk_config *c, const struct ctk_config_field *f)
{
        return (char *)c + f->offset;
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
        free(c->mode);
        ctk_strv_clear(&c->cdi_annotation_prefixes);
        ctk_strv_clear(&c->cdi_kinds);
        *c = (struct ctk_config){0};
}

int ctk_config_defaults(struct ctk_config *out, struct ctk_error **err)
{
        _cleanup_config_ struct ctk_config c = {0};
        c.seccomp_numa = true;
        c.cdi_refresh = true;
        c.accept_env_unprivileged = true;
        if ((c.log_file = strdup(DEFAULT_LOG_FILE)) == NULL || (c.log_level = strdup(DEFAULT_LOG_LEVEL)) == NULL ||
            (c.state_dir = strdup(DEFAULT_STATE_DIR)) == NULL || (c.mode = strdup("auto")) == NULL ||
            ctk_strv_push(&c.resource_kinds, "AMD_GPU") < 0 || ctk_strv_push(&c.resource_kinds, "GPU") < 0 ||
            ctk_strv_push(&c.cdi_spec_dirs, "/etc/cdi") < 0 || ctk_strv_push(&c.cdi_spec_dirs, "/var/run/cdi") < 0 ||
            ctk_strv_push(&c.cdi_annotation_prefixes, "cdi.k8s.io/") < 0 ||
            ctk_strv_push(&c.cdi_kinds, "amd.com/gpu") < 0)
                return ctk_error_set(err, ENOMEM, "out of memory");
        *out = c;
        // NOLINTNEXTLINE(clang-analyzer-deadcode.DeadStores): c is read by its cleanup attribute
        c = (struct ctk_config){0};
        return 0;
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
                        return ctk_error_set(err, EINVAL, "\"%s\" must be an absolute path (got \"%s\")", f->key, s);
                return 0;
        case CTK_CONFIG_F_PROGRAM:
                if (strchr(s, '/') != NULL && s[0] != '/')
                        return ctk_error_set(
                            err, EINVAL, "\"%s\" must be an absolute path or a command name (got \"%s\")", f->key, s);
                return 0;
        case CTK_CONFIG_F_LEVEL:
                for (size_t i = 0; log_levels[i] != NULL; i++)
                        if (strcmp(s, log_levels[i]) == 0)
                                return 0;
                return ctk_error_set(err, EINVAL,
                                     "\"%s\" must be one of \"error\", \"warning\", \"info\", \"debug\" (got \"%s\")",
                                     f->key, s);
        case CTK_CONFIG_F_MODE:
                for (size_t i = 0; modes[i] != NULL; i++)
                        if (strcmp(s, modes[i]) == 0)
                                return 0;
                return ctk_error_set(err, EINVAL, "\"%s\" must be one of \"auto\", \"cdi\", \"legacy\" (got \"%s\")",
                                     f->key, s);
        case CTK_CONFIG_F_KINDS:
                if (!ctk_config_kind_valid(s))
                        return ctk_error_set(err, EINVAL,
                                             "\"%s\" entries may only contain letters, digits, '_', '-' and "
                                             "'.' (got \"%s\")",
                                             f->key, s);
                return 0;
        case CTK_CONFIG_F_PREFIXES:
                if (!prefix_valid(s))
                        return ctk_error_set(err, EINVAL,
                                             "\"%s\" entries may only contain letters, digits, '.', '_', '-' and '/' "
                                             "(got \"%s\")",
                                             f->key, s);
                return 0;
        case CTK_CONFIG_F_CDI_KINDS:
                if (!cdi_kind_valid(s))
                        return ctk_error_set(err, EINVAL,
                                             "\"%s\" entries are CDI kinds vendor/class (e.g. \"amd.com/gpu\") or "
                                             "\"*\" for any (got \"%s\")",
                                             f->key, s);
                return 0;
        case CTK_CONFIG_F_BOOL:
                break;
        }
        return 0;
}

bool ctk_config_field_is_list(const struct ctk_config_field *f)
{
        return f->kind == CTK_CONFIG_F_KINDS || f->kind == CTK_CONFIG_F_DIRS || f->kind == CTK_CONFIG_F_PREFIXES ||
               f->kind == CTK_CONFIG_F_CDI_KINDS;
}

static int set_list(const struct ctk_config_field *f, const struct ctk_config_value *v, struct ctk_strv *out,
                    size_t *at, struct ctk_error **err)
{
        if (v->kind != CTK_CONFIG_V_ARRAY)
                return ctk_error_set(err, EINVAL, "\"%s\" must be an array of strings, not %s%s", f->key, v->type,
                                     f->kind == CTK_CONFIG_F_CDI_KINDS ? " ([\"*\"] for any kind)" : "");
        if (f->kind == CTK_CONFIG_F_DIRS && v->n == 0)
                return ctk_error_set(err, EINVAL, "\"%s\" must name at least one directory", f->key);
        _cleanup_strv_ struct ctk_strv list = {0};
        for (size_t i = 0; i < v->n; i++) {
                *at = i;
                if (v->elems[i] == NULL)
                        return ctk_error_set(err, EINVAL, "\"%s\" must be an array of strings, not contain %s", f->key,
                                             v->elem_types[i]);
                if (check_string(f, v->elems[i], err) < 0)
                        return -1;
                if (ctk_strv_push(&list, v->elems[i]) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
        }
        *at = SIZE_MAX;
        ctk_strv_clear(out);
        *out = list;
        list = (struct ctk_strv){0};
        return 0;
}

static const struct ctk_config_field *find_field(const char *key)
{
        for (size_t i = 0; i < NFIELDS; i++)
                if (strcmp(fields[i].key, key) == 0)
                        return &fields[i];
        return NULL;
}

static int set_field(struct ctk_config *c, const struct ctk_config_field *f, const struct ctk_config_value *v,
                     size_t *at, struct ctk_error **err)
{
        if (f->kind == CTK_CONFIG_F_BOOL) {
                if (v->kind != CTK_CONFIG_V_BOOL)
                        return ctk_error_set(err, EINVAL, "\"%s\" must be true or false, not %s", f->key, v->type);
                *(bool *)member(c, f) = v->b;
                return 0;
        }
        if (ctk_config_field_is_list(f))
                return set_list(f, v, member(c, f), at, err);
        char **slot = member(c, f);
        if (v->kind == CTK_CONFIG_V_NULL && f->nullable) {
                free(*slot);
                *slot = NULL;
                return 0;
        }
        if (v->kind != CTK_CONFIG_V_STRING)
                return ctk_error_set(err, EINVAL, "\"%s\" must be a string%s, not %s", f->key,
                                     f->nullable ? " or null" : "", v->type);
        if (check_string(f, v->s, err) < 0)
                return -1;
        char *copy = strdup(v->s);
        if (copy == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        free(*slot);
        *slot = copy;
        return 0;
}

int ctk_config_set(struct ctk_config *c, const char *key, const struct ctk_config_value *v, size_t *at,
                   struct ctk_error **err)
{
        *at = SIZE_MAX;
        const struct ctk_config_field *f = find_field(key);
        if (f == NULL)
                return ctk_error_set(
                    err, EINVAL,
                    "unknown key \"%s\" (known keys: root, profile, runtime-path, log-file, "
                    "log-level, state-dir, resource-kinds, seccomp-numa, ctk-path, cdi-spec-dirs, cdi-refresh, mode, "
                    "cdi-refresh-on-stale, accept-visible-devices-envvar-when-unprivileged, cdi-annotation-prefixes, "
                    "cdi-kinds)",
                    key);
        if (set_field(c, f, v, at, err) < 0)
                return -1;
        c->given |= 1U << (f - fields);
        return 0;
}

bool ctk_config_given(const struct ctk_config *c, const char *key)
{
        const struct ctk_config_field *f = find_field(key);
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
