/* A strict reader of TOML (v1.0) for the engine configuration files we
 * edit (containerd's config.toml): it checks the syntax of the whole file,
 * reporting the first error as NAME:LINE:COLUMN, and reports the few
 * top-level values an edit needs and, on request, every statement (table
 * headers with their full key paths, key = value lines with their keys),
 * with where they are in the text, so that an edit can change or copy those
 * bytes and keep every other byte as it was.  (Debian has no C TOML
 * library; nothing here builds a document tree.) */
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

/* One statement of the file: a [table] or [[array of tables]] header, or a
 * key = value line (whose table is the header before it). */
struct ctk_toml_stmt {
        bool header;         /* a table header; else a key = value */
        bool array;          /* a header of an array of tables, [[...]] */
        bool inline_table;   /* a key = value whose value is an inline table, {...} */
        struct ctk_strv key; /* a header: the table's full key path; a key = value: its (dotted) key's parts */
        char *string;        /* a key = value whose value is one string: that string (else NULL) */
        size_t at;           /* where the statement's first character is (for messages) */
        size_t start, end;   /* its text: from the start of its first line through its last newline (or the end) */
        size_t value_start, value_end; /* a key = value: its value's bytes */
};

/* The statements of a file, in the order of the text. */
struct ctk_toml_stmts {
        struct ctk_toml_stmt *v;
        size_t n, cap;
};

/* Checks text (len bytes; name for messages).  On success fills *top (clear
 * it with ctk_toml_top_clear) and, when stmts is not NULL, *stmts (clear it
 * with ctk_toml_stmts_clear); otherwise one error "NAME:LINE:COLUMN: what". */
int ctk_toml_check(const char *text, size_t len, const char *name, struct ctk_toml_top *top,
                   struct ctk_toml_stmts *stmts, struct ctk_error **err);
/* Frees the strings of *top. */
void ctk_toml_top_clear(struct ctk_toml_top *top);
/* Frees the statements of *s. */
void ctk_toml_stmts_clear(struct ctk_toml_stmts *s);
/* Sets the error "NAME:LINE:COLUMN: message" for byte at of text; returns -1. */
int ctk_toml_error_at(const char *text, size_t len, const char *name, size_t at, struct ctk_error **err,
                      const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* s as a TOML basic string, quotes included (owned; NULL on ENOMEM). */
char *ctk_toml_quote(const char *s);
/* A key path as a table header writes it, parts joined by dots, each bare
 * when it can be and quoted otherwise (owned; NULL on ENOMEM). */
char *ctk_toml_key_text(const char *const *parts, size_t n);

#endif
