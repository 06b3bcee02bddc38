/* core/config: the toolkit configuration file (JSON), shared by amd-ctk and
 * amd-container-runtime: its keys, defaults, strict reading and checks of
 * each value (fields.c, libc only: the launcher's own reader uses them).
 * Uses core/base and core/json.  Default /etc/amd-container-toolkit/config.json;
 * --config FILE / --amd-config=FILE / AMD_CTK_CONFIG choose another one.
 * Unknown keys are rejected with file:line:column. */
#ifndef CTK_CONFIG_H
#define CTK_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/base.h"

#define CTK_DEFAULT_CONFIG_PATH "/etc/amd-container-toolkit/config.json"

struct ctk_config {
        char *root;                     /* sysfs root, NULL = "/" */
        char *profile;                  /* host profile (simulation), NULL = none */
        char *runtime_path;             /* low-level runtime, NULL = first of runc, crun on PATH */
        char *log_file;                 /* default /var/log/amd-container-runtime.log */
        char *log_level;                /* error|warning|info|debug, default info */
        char *state_dir;                /* default /var/lib/amd-container-toolkit */
        struct ctk_strv resource_kinds; /* default AMD_GPU, GPU */
        bool seccomp_numa;              /* default true */
        char *ctk_path;                 /* amd-ctk used for hooks, NULL = sibling of the runtime binary */
        struct ctk_strv cdi_spec_dirs;  /* default /etc/cdi, /var/run/cdi */
        bool cdi_refresh;               /* default true: cdi generate --refresh regenerates the spec */
        char *mode;                     /* auto|cdi|legacy, default auto: how the runtime resolves requests */
        bool cdi_refresh_on_stale;      /* default false: mode cdi regenerates a stale spec instead of failing */
        bool accept_env_unprivileged;   /* default true: AMD_VISIBLE_DEVICES / DOCKER_RESOURCE_* count in a
                                           container without CAP_SYS_ADMIN in its bounding set */
        struct ctk_strv cdi_annotation_prefixes; /* default cdi.k8s.io/; empty: annotations request nothing */
        struct ctk_strv cdi_kinds;               /* default amd.com/gpu; "*" = any: the kinds CDI names may have */
        uint32_t given;                          /* the keys the file set (ctk_config_given) */
};

/* The runtime's modes (config key mode). */
enum ctk_config_mode {
        CTK_MODE_AUTO,   /* CDI names through the spec directories, plain tokens through discovery */
        CTK_MODE_CDI,    /* everything through the spec directories, plain tokens as amd.com/gpu names */
        CTK_MODE_LEGACY, /* discovery only; a CDI name is an error */
};
/* Whether the configuration file set key (else it has its default). */
bool ctk_config_given(const struct ctk_config *c, const char *key);

/* The mode of c (auto when unset). */
enum ctk_config_mode ctk_config_mode_of(const struct ctk_config *c);

/* The keys (fields.c, free of any JSON library). */
enum ctk_config_field_kind {
        CTK_CONFIG_F_PATH,    /* absolute path */
        CTK_CONFIG_F_PROGRAM, /* absolute path or a bare command name */
        CTK_CONFIG_F_LEVEL,   /* log level */
        CTK_CONFIG_F_KINDS,   /* array of resource kinds */
        CTK_CONFIG_F_BOOL,
        CTK_CONFIG_F_DIRS,      /* non-empty array of absolute paths */
        CTK_CONFIG_F_MODE,      /* auto, cdi or legacy */
        CTK_CONFIG_F_PREFIXES,  /* array of annotation key prefixes (may be empty) */
        CTK_CONFIG_F_CDI_KINDS, /* array of CDI kinds vendor/class, or "*" (may be empty) */
};

struct ctk_config_field {
        const char *key;
        enum ctk_config_field_kind kind;
        bool nullable;
        size_t offset; /* of the member in struct ctk_config */
};

/* The n keys, in the order `amd-ctk config default` prints them. */
const struct ctk_config_field *ctk_config_fields(size_t *n);
/* Whether f's member is a struct ctk_strv (an array of strings). */
bool ctk_config_field_is_list(const struct ctk_config_field *f);

/* A member's value as a JSON parser saw it. */
struct ctk_config_value {
        enum {
                CTK_CONFIG_V_OTHER, /* a number or an object */
                CTK_CONFIG_V_NULL,
                CTK_CONFIG_V_BOOL,
                CTK_CONFIG_V_STRING,
                CTK_CONFIG_V_ARRAY,
        } kind;
        const char *type; /* for messages: "a string", "an object", "null", ... */
        bool b;
        const char *s;
        size_t n;                      /* ARRAY: number of elements */
        const char *const *elems;      /* ARRAY: the strings; NULL for an element that is not one */
        const char *const *elem_types; /* ARRAY: the elements' type names */
};

/* Sets member key of *c from v, after the checks of its kind.  On failure
 * *at is the index of the offending element, or SIZE_MAX for the member
 * itself, and the message carries no position. */
int ctk_config_set(struct ctk_config *c, const char *key, const struct ctk_config_value *v, size_t *at,
                   struct ctk_error **err);
/* Checks across keys, once all are set; *key names the member at fault. */
int ctk_config_finish(const struct ctk_config *c, const char **key, struct ctk_error **err);

/* Whether s is a resource kind resource-kinds accepts: letters, digits, '_',
 * '-' and '.', at least one. */
bool ctk_config_kind_valid(const char *s);

/* Whether kinds (config key cdi-kinds) lets the runtime resolve the CDI
 * name (vendor/class=name): its kind is one of them, or one is "*". */
bool ctk_config_cdi_kind_allowed(const struct ctk_strv *kinds, const char *name);

/* Fills *out with the defaults. */
int ctk_config_defaults(struct ctk_config *out, struct ctk_error **err);
/* Loads path over the defaults.  A missing file is not an error when
 * missing_ok (the default path); an explicitly named missing file is. */
int ctk_config_load(const char *path, bool missing_ok, struct ctk_config *out, struct ctk_error **err);
/* Parses the text of a config file (named `name` in messages) over the
 * defaults.  Blank text means all defaults. */
int ctk_config_parse(const char *text, size_t len, const char *name, struct ctk_config *out, struct ctk_error **err);
/* Serialises the config as indented JSON (what `amd-ctk config default` prints). */
char *ctk_config_dump(const struct ctk_config *c);
void ctk_config_clear(struct ctk_config *c);
static inline void ctk_config_clearp(struct ctk_config *c)
{
        ctk_config_clear(c);
}
#define _cleanup_config_ __attribute__((cleanup(ctk_config_clearp)))

#endif
