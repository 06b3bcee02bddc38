/* The toolkit configuration file (JSON), shared by amd-ctk and
 * amd-container-runtime.  Default /etc/amd-container-toolkit/config.json;
 * --config FILE / --amd-config=FILE / AMD_CTK_CONFIG choose another one.
 * Unknown keys are rejected with file:line:column. */
#ifndef CTK_CONFIG_H
#define CTK_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "strv.h"

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
};

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

#endif
