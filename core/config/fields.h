/* The keys of the configuration file, in one table (fields.c): each key's
 * name, kind, member of struct ctk_config and default.  Reading, clearing,
 * the defaults, the "known keys" message and `amd-ctk config default` all
 * follow the table; these functions take it as an argument so that a test
 * can give them a table of its own. */
#ifndef CTK_CONFIG_FIELDS_H
#define CTK_CONFIG_FIELDS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "config.h"

enum ctk_config_field_kind {
        CTK_CONFIG_F_PATH,    /* absolute path */
        CTK_CONFIG_F_PROGRAM, /* absolute path or a bare command name */
        CTK_CONFIG_F_LEVEL,   /* log level */
        CTK_CONFIG_F_MODE,    /* auto, cdi or legacy */
        CTK_CONFIG_F_BOOL,
        /* arrays of strings (struct ctk_strv): */
        CTK_CONFIG_F_KINDS,     /* resource kinds */
        CTK_CONFIG_F_DIRS,      /* non-empty, of absolute paths */
        CTK_CONFIG_F_PREFIXES,  /* annotation key prefixes (may be empty) */
        CTK_CONFIG_F_CDI_KINDS, /* CDI kinds vendor/class, or "*" (may be empty) */
};

struct ctk_config_field {
        const char *key;
        size_t offset; /* of the member (char *, bool or struct ctk_strv) */
        enum ctk_config_field_kind kind;
        /* The default: a string key's (NULL: null, which the key then
         * accepts), a boolean key's, a list key's (NULL-terminated). */
        bool def_bool;
        const char *def;
        const char *const *def_list;
};

/* At most 32 keys (a bit each in struct ctk_config's given).  The offsets
 * may name members past struct ctk_config when the structure passed is a
 * larger one that begins with it (a test's). */
struct ctk_config_table {
        const struct ctk_config_field *fields;
        size_t n;
};

/* Whether f's member is a struct ctk_strv (an array of strings). */
bool ctk_config_field_is_list(const struct ctk_config_field *f);

/* The configuration file's keys, in the order `config default` prints them. */
extern const struct ctk_config_table ctk_config_keys;

/* Sets every member of the table in *c to its default (what *c held is
 * overwritten, not freed); on failure *c is cleared. */
int ctk_config_table_defaults(const struct ctk_config_table *t, struct ctk_config *c, struct ctk_error **err);
/* Frees and zeroes the table's members of *c, and its given bits. */
void ctk_config_table_clear(const struct ctk_config_table *t, struct ctk_config *c);
/* Sets member key of *c from v, after the checks of its kind; an unknown key
 * is an error that lists the table's keys.  On failure *at is the index of
 * the offending element, or SIZE_MAX for the member itself, and the message
 * carries no position. */
int ctk_config_table_set(const struct ctk_config_table *t, struct ctk_config *c, const char *key, const json_t *v,
                         size_t *at, struct ctk_error **err);
/* Checks across keys, once all are set; *key names the member at fault. */
int ctk_config_finish(const struct ctk_config *c, const char **key, struct ctk_error **err);

/* ctk_config_parse and ctk_config_dump (config.c) for table t: the parse
 * fills *c over the defaults (cleared on failure). */
int ctk_config_table_parse(const struct ctk_config_table *t, const char *text, size_t len, const char *name,
                           struct ctk_config *c, struct ctk_error **err);
char *ctk_config_table_dump(const struct ctk_config_table *t, const struct ctk_config *c);

#endif
