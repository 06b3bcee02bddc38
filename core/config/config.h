/* core/config: the toolkit configuration file (JSON), shared by amd-ctk and
 * amd-container-runtime: its keys, each described once in a table with its
 * default and checks (fields.h), and its strict reading with jansson.
 * Uses core/base and core/json.  Default /etc/amd-container-toolkit/config.json;
 * --config FILE / --amd-config=FILE / AMD_CTK_CONFIG choose another one.
 * Unknown keys are rejected with file:line:column. */
#ifndef CTK_CONFIG_H
#define CTK_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/base.h"

/* One member per key: its key, kind and default are in the table of
 * fields.c.  A string member is NULL for null, which only the keys whose
 * default is null accept. */
struct ctk_config {
        char *root;
        char *profile;
        char *runtime_path;
        char *log_file;
        char *log_level;
        char *state_dir;
        struct ctk_strv resource_kinds;
        bool seccomp_numa;
        char *ctk_path;
        struct ctk_strv cdi_spec_dirs;
        bool cdi_refresh;
        char *mode; /* ctk_config_mode_of */
        bool cdi_refresh_on_stale;
        bool accept_env_unprivileged;
        struct ctk_strv cdi_annotation_prefixes;
        struct ctk_strv cdi_kinds;
        uint32_t given; /* the keys the file set (ctk_config_given) */
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
