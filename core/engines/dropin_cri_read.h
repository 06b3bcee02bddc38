/* containerd's CRI plugin section of config.toml, read for the drop-in's
 * copy of it (dropin_cri.h): its tables in the order of the text, each
 * with its key = value statements.  A section written where it cannot be
 * copied faithfully (reached into by a dotted key or an inline table from
 * outside its tables, or containerd's runtime tables defined by them), or
 * a config schema other than the drop-in's, is one error NAME:LINE:COLUMN
 * saying what to change. */
#ifndef CTK_ENGINES_DROPIN_CRI_READ_H
#define CTK_ENGINES_DROPIN_CRI_READ_H

#include <stdbool.h>
#include <stddef.h>

#include "core/base/base.h"
#include "dropins.h"
#include "toml.h"

#define CTK_RUNC_V2 "io.containerd.runc.v2"

/* A path of keys: parts[0..n). */
struct ctk_cri_path {
        const char *const *parts;
        size_t n;
};

/* One table of the section: its header, its path below the plugin's
 * table, and its key = value statements stmts.v[first..end). */
struct ctk_cri_table {
        const struct ctk_toml_stmt *header;
        struct ctk_cri_path rel;
        size_t first, end;
};

struct ctk_cri_section {
        const struct ctk_dropin *d;
        const char *text, *name; /* config.toml (NULL: none) and its name */
        size_t len;
        struct ctk_toml_top top;
        struct ctk_toml_stmts stmts;
        struct ctk_cri_path cri; /* the CRI plugin's table for the drop-in's schema */
        struct ctk_cri_table *tables;
        size_t ntables;
        const char *default_name; /* containerd.default_runtime_name (NULL: not set) */
};

/* Reads the CRI section of d->source (none when it is NULL) into *s;
 * clear it with ctk_cri_section_clear. */
int ctk_cri_section_read(struct ctk_cri_section *s, const struct ctk_dropin *d, struct ctk_error **err);
/* Frees what *s holds. */
void ctk_cri_section_clear(struct ctk_cri_section *s);
/* The table at the path rel (n parts) below the plugin's (NULL: none). */
const struct ctk_cri_table *ctk_cri_section_table(const struct ctk_cri_section *s, const char *const *rel, size_t n);
/* The key = value `key` of table t (NULL: none, or t is NULL). */
const struct ctk_toml_stmt *ctk_cri_section_key(const struct ctk_cri_section *s, const struct ctk_cri_table *t,
                                                const char *key);
/* Whether the path p is (or is below) containerd.runtimes.<name>. */
bool ctk_cri_in_runtime(struct ctk_cri_path p, const char *name);
/* Whether the section has a table of runtime name. */
bool ctk_cri_section_has_runtime(const struct ctk_cri_section *s, const char *name);
/* Whether the section has a runtime other than d->name. */
bool ctk_cri_section_other_runtime(const struct ctk_cri_section *s);
/* The runtime whose settings ours starts from: the default (unless it is
 * ours), else runc, else crun; only one of runc's kind (NULL: none). */
const char *ctk_cri_section_source_runtime(const struct ctk_cri_section *s);

#endif
