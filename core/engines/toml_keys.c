#include "toml_keys.h"

#include "toml.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE SIZE_MAX

static size_t hash(size_t parent, const char *name, size_t len)
{
        uint64_t h = 1469598103934665603ull ^ (uint64_t)parent * 0x9e3779b97f4a7c15ull;
        for (size_t i = 0; i < len; i++)
                h = (h ^ (unsigned char)name[i]) * 1099511628211ull;
        return (size_t)(h ^ (h >> 29));
}

static size_t find(const struct ctk_toml_keys *k, size_t parent, const char *name)
{
        size_t len = strlen(name);
        for (size_t i = hash(parent, name, len) & (k->nslots - 1);; i = (i + 1) & (k->nslots - 1)) {
                size_t s = k->slots[i];
                if (s == 0)
                        return NONE;
                const struct ctk_toml_node *n = &k->v[s - 1];
                if (n->parent == parent && n->name_len == len && memcmp(n->name, name, len) == 0)
                        return s - 1;
        }
}

static void slot_put(struct ctk_toml_keys *k, size_t node)
{
        const struct ctk_toml_node *n = &k->v[node];
        size_t i = hash(n->parent, n->name, n->name_len) & (k->nslots - 1);
        while (k->slots[i] != 0)
                i = (i + 1) & (k->nslots - 1);
        k->slots[i] = node + 1;
}

/* A new node (hashed under its parent when name is not NULL); NONE when
 * out of memory. */
static size_t add(struct ctk_toml_keys *k, size_t parent, const char *name, enum ctk_toml_kind kind, size_t at)
{
        if (k->n == k->cap) {
                size_t cap = k->cap ? k->cap * 2 : 64;
                struct ctk_toml_node *v = realloc(k->v, cap * sizeof(*v));
                if (v == NULL)
                        return NONE;
                k->v = v;
                k->cap = cap;
        }
        if (2 * (k->n + 1) > k->nslots) { /* at most half full: rehash into twice the slots */
                size_t nslots = k->nslots ? k->nslots * 2 : 128;
                size_t *slots = calloc(nslots, sizeof(*slots));
                if (slots == NULL)
                        return NONE;
                free(k->slots);
                k->slots = slots;
                k->nslots = nslots;
                for (size_t i = 0; i < k->n; i++)
                        if (k->v[i].name != NULL)
                                slot_put(k, i);
        }
        const char *kept = NULL;
        if (name != NULL) {
                if (ctk_strv_push(&k->names, name) < 0)
                        return NONE;
                kept = k->names.v[k->names.n - 1];
        }
        k->v[k->n] = (struct ctk_toml_node){.name = kept,
                                            .name_len = kept != NULL ? strlen(kept) : 0,
                                            .parent = parent,
                                            .at = at,
                                            .last = NONE,
                                            .kind = kind};
        if (kept != NULL)
                slot_put(k, k->n);
        return k->n++;
}

int ctk_toml_keys_init(struct ctk_toml_keys *k)
{
        *k = (struct ctk_toml_keys){0};
        return add(k, NONE, NULL, CTK_TOML_HEADER, 0) == NONE ? -1 : 0;
}

void ctk_toml_keys_clear(struct ctk_toml_keys *k)
{
        free(k->v);
        free(k->slots);
        ctk_strv_clear(&k->names);
        *k = (struct ctk_toml_keys){0};
}

static int oom(struct ctk_toml_parser *p)
{
        return ctk_error_set(p->err, ENOMEM, "out of memory");
}

/* The line of byte at. */
static size_t line_of(const struct ctk_toml_parser *p, size_t at)
{
        size_t line = 1;
        for (size_t i = 0; i < at && i < p->len; i++)
                line += p->s[i] == '\n';
        return line;
}

/* The dotted key of node (its tables' names before it), as TOML writes it. */
static char *key_text(const struct ctk_toml_keys *k, size_t node)
{
        size_t depth = 0;
        for (size_t i = node; i != NONE && i != 0; i = k->v[i].parent)
                depth += k->v[i].name != NULL;
        const char **parts = calloc(depth + 1, sizeof(*parts));
        if (parts == NULL)
                return NULL;
        size_t d = depth;
        for (size_t i = node; i != NONE && i != 0; i = k->v[i].parent)
                if (k->v[i].name != NULL)
                        parts[--d] = k->v[i].name;
        char *s = ctk_toml_key_text(parts, depth);
        free(parts);
        return s;
}

/* What node is, for messages. */
static const char *kind_text(enum ctk_toml_kind kind)
{
        switch (kind) {
        case CTK_TOML_VALUE:
                return "a value";
        case CTK_TOML_ARRAY:
                return "an array of tables";
        case CTK_TOML_DOTTED:
                return "a table of dotted keys";
        default:
                return "a table";
        }
}

/* "key a.b", "table [a.b]", "array of tables [[a.b]]". */
static char *definition_text(enum ctk_toml_kind kind, const char *key)
{
        char *s = NULL;
        int r = kind == CTK_TOML_HEADER  ? asprintf(&s, "table [%s]", key)
                : kind == CTK_TOML_ARRAY ? asprintf(&s, "array of tables [[%s]]", key)
                                         : asprintf(&s, "key %s", key);
        return r < 0 ? NULL : s;
}

/* The error at `at`: the new definition (kind, of the key parts in table)
 * clashes with node, defined before: the same key, or one its path goes
 * through (through). */
static int clash(struct ctk_toml_parser *p, const struct ctk_toml_keys *k, size_t table, size_t node, size_t at,
                 enum ctk_toml_kind kind, const struct ctk_strv *parts, bool through)
{
        _cleanup_free_ char *rel = ctk_toml_key_text((const char *const *)parts->v, parts->n);
        _cleanup_free_ char *in = key_text(k, table), *old = key_text(k, node), *key = NULL, *what = NULL;
        if (rel == NULL || in == NULL || old == NULL ||
            (key = ctk_str_concat(in, in[0] != '\0' ? "." : "", rel)) == NULL ||
            (what = definition_text(kind, key)) == NULL)
                return oom(p);
        const struct ctk_toml_node *o = &k->v[node];
        size_t line = line_of(p, o->at);
        if (through)
                return ctk_toml_fail(p, at, "%s adds to %s, %s defined at line %zu, which TOML forbids", CTK_CUT(what),
                                     CTK_CUT(old), kind_text(o->kind), line);
        bool same = kind == o->kind && kind != CTK_TOML_ARRAY; /* a key, or a table of its header, twice */
        if (same)
                return ctk_toml_fail(p, at,
                                     "%s is defined twice, which TOML forbids (first at line %zu): remove one of the "
                                     "two",
                                     CTK_CUT(what), line);
        return ctk_toml_fail(p, at, "%s is defined again, which TOML forbids: it is %s at line %zu", CTK_CUT(what),
                             kind_text(o->kind), line);
}

/* The table a path's part leads through: node's, or its array's last. */
static size_t through(const struct ctk_toml_keys *k, size_t node)
{
        return k->v[node].kind == CTK_TOML_ARRAY ? k->v[node].last : node;
}

int ctk_toml_keys_header(struct ctk_toml_parser *p, struct ctk_toml_keys *k, const struct ctk_strv *parts, bool array,
                         size_t at, size_t *table)
{
        size_t cur = 0;
        for (size_t i = 0; i + 1 < parts->n; i++) {
                size_t n = find(k, cur, parts->v[i]);
                if (n == NONE && (n = add(k, cur, parts->v[i], CTK_TOML_IMPLICIT, at)) == NONE)
                        return oom(p);
                if (k->v[n].kind == CTK_TOML_VALUE)
                        return clash(p, k, 0, n, at, array ? CTK_TOML_ARRAY : CTK_TOML_HEADER, parts, true);
                cur = through(k, n);
        }
        const char *last = parts->v[parts->n - 1];
        size_t n = find(k, cur, last);
        if (array) {
                if (n == NONE && (n = add(k, cur, last, CTK_TOML_ARRAY, at)) == NONE)
                        return oom(p);
                if (k->v[n].kind != CTK_TOML_ARRAY)
                        return clash(p, k, 0, n, at, CTK_TOML_ARRAY, parts, false);
                size_t e = add(k, n, NULL, CTK_TOML_ELEMENT, at);
                if (e == NONE)
                        return oom(p);
                k->v[n].last = e;
                *table = e;
                return 0;
        }
        if (n == NONE) {
                if ((n = add(k, cur, last, CTK_TOML_HEADER, at)) == NONE)
                        return oom(p);
        } else if (k->v[n].kind == CTK_TOML_IMPLICIT) {
                k->v[n].kind = CTK_TOML_HEADER; /* defined now, once */
                k->v[n].at = at;
        } else {
                return clash(p, k, 0, n, at, CTK_TOML_HEADER, parts, false);
        }
        *table = n;
        return 0;
}

int ctk_toml_keys_scope(struct ctk_toml_parser *p, struct ctk_toml_keys *k, size_t at, size_t *node)
{
        size_t n = add(k, NONE, NULL, CTK_TOML_VALUE, at);
        if (n == NONE)
                return oom(p);
        *node = n;
        return 0;
}

int ctk_toml_keys_value(struct ctk_toml_parser *p, struct ctk_toml_keys *k, size_t table, const struct ctk_strv *parts,
                        size_t at, size_t *node)
{
        size_t cur = table;
        for (size_t i = 0; i + 1 < parts->n; i++) {
                size_t n = find(k, cur, parts->v[i]);
                if (n == NONE && (n = add(k, cur, parts->v[i], CTK_TOML_DOTTED, at)) == NONE)
                        return oom(p);
                /* a dotted key makes tables, or adds to those it made; not to others */
                if (k->v[n].kind != CTK_TOML_DOTTED && k->v[n].kind != CTK_TOML_IMPLICIT)
                        return clash(p, k, table, n, at, CTK_TOML_VALUE, parts, true);
                cur = n;
        }
        const char *last = parts->v[parts->n - 1];
        size_t n = find(k, cur, last);
        if (n != NONE)
                return clash(p, k, table, n, at, CTK_TOML_VALUE, parts, false);
        if ((n = add(k, cur, last, CTK_TOML_VALUE, at)) == NONE)
                return oom(p);
        *node = n;
        return 0;
}
