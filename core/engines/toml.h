/* A strict reader of TOML (v1.0) for the engine configuration files we
 * edit (containerd's config.toml): it checks the syntax of the whole file,
 * reporting the first error as NAME:LINE:COLUMN, and reports the few
 * top-level values an edit needs, with where they are in the text, so that
 * the edit can change those bytes and keep every other byte as it was.
 * (Debian has no C TOML library; nothing here builds a document tree.) */
#ifndef CTK_ENGINES_TOML_H
#define CTK_ENGINES_TOML_H

#include <stdbool.h>
#include <stddef.h>

#include "core/base/base.h"

/* What the file holds at its top level (before any [table]). */
struct ctk_toml_top {
        bool has_version;
        long long version; /* `version = N` */
        bool has_imports;
        size_t imports_start, imports_end; /* the bytes of the line `imports = [...]`, newline included */
        struct ctk_strv imports;           /* its strings */
        size_t body_start;                 /* where the first [table] header starts (len if none) */
};

/* Checks text (len bytes; name for messages).  On success fills *top (clear
 * it with ctk_toml_top_clear); otherwise one error "NAME:LINE:COLUMN: what". */
int ctk_toml_check(const char *text, size_t len, const char *name, struct ctk_toml_top *top, struct ctk_error **err);
/* Frees the strings of *top. */
void ctk_toml_top_clear(struct ctk_toml_top *top);

/* s as a TOML basic string, quotes included (owned; NULL on ENOMEM). */
char *ctk_toml_quote(const char *s);

#endif
