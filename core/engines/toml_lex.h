/* The lexical layer of the TOML reader (toml_lex.c), shared with its
 * grammar (toml.c): a cursor over the text, whitespace and comments,
 * strings and keys.  Every function reports its error through p->err as
 * NAME:LINE:COLUMN and returns -1. */
#ifndef CTK_ENGINES_TOML_LEX_H
#define CTK_ENGINES_TOML_LEX_H

#include <stdbool.h>
#include <stddef.h>

#include "core/base/base.h"

struct ctk_toml_keys;

struct ctk_toml_parser {
        const char *s;
        size_t len, pos;
        const char *name;
        struct ctk_error **err;
        struct ctk_toml_keys *keys; /* the keys defined so far (toml_keys.h) */
};

/* Sets the error "NAME:LINE:COLUMN: message" for byte `at`; returns -1. */
int ctk_toml_fail(struct ctk_toml_parser *p, size_t at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The next byte, -1 at the end. */
int ctk_toml_peek(const struct ctk_toml_parser *p);
/* Whether the text continues with word. */
bool ctk_toml_at(const struct ctk_toml_parser *p, const char *word);
/* Skips spaces and tabs. */
void ctk_toml_skip_ws(struct ctk_toml_parser *p);
/* Skips a comment up to (not including) the end of its line. */
int ctk_toml_skip_comment(struct ctk_toml_parser *p);
/* Skips whitespace, comments and newlines. */
int ctk_toml_skip_blank(struct ctk_toml_parser *p);
/* The end of a statement: blanks, a comment, a newline or the end of the text. */
int ctk_toml_end_of_line(struct ctk_toml_parser *p);
/* A string of any of the four kinds; its value in *out (owned) when out is not NULL. */
int ctk_toml_string(struct ctk_toml_parser *p, char **out);
/* Whether c may appear in a bare key. */
bool ctk_toml_bare_key_char(int c);
/* A dotted key; its parts are pushed to parts when that is not NULL. */
int ctk_toml_key(struct ctk_toml_parser *p, struct ctk_strv *parts);

#endif
