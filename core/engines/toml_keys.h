/* Internal to the TOML reader: every key and table the file defines, so
 * that a key defined twice (the root table's included: `version = 2`
 * then `version = 3`), a table defined twice, a table over a key or a key
 * over a table is one error where it happens (TOML 1.0 forbids them all;
 * containerd's reader refuses them too).  Keys are found by hashing: the
 * check is linear in the size of the file. */
#ifndef CTK_ENGINES_TOML_KEYS_H
#define CTK_ENGINES_TOML_KEYS_H

#include <stddef.h>

#include "toml_lex.h"

/* What a key names. */
enum ctk_toml_kind {
        CTK_TOML_IMPLICIT, /* a table that a header's longer key made ([a.b] makes a) */
        CTK_TOML_HEADER,   /* a table of its own header, [a] */
        CTK_TOML_DOTTED,   /* a table that a dotted key made (a.b = 1 makes a) */
        CTK_TOML_VALUE,    /* a value: none can be added to it (an inline table or array included) */
        CTK_TOML_ARRAY,    /* an array of tables, [[a]]: keys go to its last table */
        CTK_TOML_ELEMENT,  /* a table of an array of tables */
};

struct ctk_toml_node {
        const char *name;                  /* the key's last part (in the parser's parts) */
        size_t name_len, parent, at, last; /* at: where defined; last: an array's last table */
        enum ctk_toml_kind kind;
};

struct ctk_toml_keys {
        struct ctk_toml_node *v;
        size_t n, cap;
        size_t *slots; /* hash slots: node index + 1, 0 when free */
        size_t nslots;
        struct ctk_strv names; /* the names the nodes point into */
};

/* Starts *k with its root table (node 0); -1 when out of memory. */
int ctk_toml_keys_init(struct ctk_toml_keys *k);
void ctk_toml_keys_clear(struct ctk_toml_keys *k);

/* A table header [parts] ([[parts]] when array) at `at`: the table
 * statements after it go to, in *table. */
int ctk_toml_keys_header(struct ctk_toml_parser *p, struct ctk_toml_keys *k, const struct ctk_strv *parts, bool array,
                         size_t at, size_t *table);
/* A scope of its own for the keys of an inline table in an array. */
int ctk_toml_keys_scope(struct ctk_toml_parser *p, struct ctk_toml_keys *k, size_t at, size_t *node);
/* A key = value of table (its key's parts) at `at`: the node of the value
 * in *node (for an inline table's keys). */
int ctk_toml_keys_value(struct ctk_toml_parser *p, struct ctk_toml_keys *k, size_t table, const struct ctk_strv *parts,
                        size_t at, size_t *node);

#endif
