#include "dropin_cri_read.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const cri_v2[] = {"plugins", "io.containerd.grpc.v1.cri"};
static const char *const cri_v3[] = {"plugins", "io.containerd.cri.v1.runtime"};

static struct ctk_cri_path path_of(const struct ctk_strv *s)
{
        return (struct ctk_cri_path){.parts = (const char *const *)s->v, .n = s->n};
}

/* Whether p begins with the n parts of want. */
static bool starts(struct ctk_cri_path p, const char *const *want, size_t n)
{
        if (p.n < n)
                return false;
        for (size_t i = 0; i < n; i++)
                if (strcmp(p.parts[i], want[i]) != 0)
                        return false;
        return true;
}

bool ctk_cri_in_runtime(struct ctk_cri_path p, const char *name)
{
        const char *const want[] = {"containerd", "runtimes", name};
        return starts(p, want, 3);
}

/* Part i of the path a (na parts) followed by b. */
static const char *part(const char *const *a, size_t na, const char *const *b, size_t i)
{
        return i < na ? a[i] : b[i - na];
}

/* Tables of the section whose keys the drop-in sets or copies (the path a
 * followed by the nb parts of b): the plugin's own, containerd, and
 * containerd.runtimes with all below it. */
static bool touched(const char *const *a, size_t na, const char *const *b, size_t nb)
{
        size_t n = na + nb;
        return n == 0 ||
               (strcmp(part(a, na, b, 0), "containerd") == 0 && (n == 1 || strcmp(part(a, na, b, 1), "runtimes") == 0));
}

static int refuse(const struct ctk_cri_section *c, const struct ctk_toml_stmt *st, const char *what,
                  struct ctk_error **err)
{
        _cleanup_free_ char *cri = ctk_toml_key_text(c->cri.parts, c->cri.n);
        return ctk_toml_error_at(c->text, c->len, c->name, st->at, err,
                                 "%s, which amd-ctk cannot copy into its drop-in (containerd before 2.1 replaces the "
                                 "whole section with the drop-in's): write that part with [%s] table headers (or "
                                 "headers of the tables below it) and plain keys, then run this again",
                                 CTK_CUT(what), CTK_CUT(cri != NULL ? cri : "?"));
}

/* A key = value in a table outside the CRI section: it must not reach
 * into the section, nor be an inline table that may hold it. */
static int check_outside(const struct ctk_cri_section *c, const struct ctk_toml_stmt *st,
                         const struct ctk_toml_stmt *hdr, struct ctk_error **err)
{
        struct ctk_cri_path t = hdr != NULL ? path_of(&hdr->key) : (struct ctk_cri_path){0};
        size_t n = t.n + st->key.n;
        _cleanup_free_ const char **full = malloc((n + 1) * sizeof(*full));
        if (full == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < n; i++)
                full[i] = i < t.n ? t.parts[i] : st->key.v[i - t.n];
        struct ctk_cri_path fp = {.parts = full, .n = n};
        if (starts(fp, c->cri.parts, c->cri.n))
                return refuse(c, st, "a dotted key sets the CRI plugin's settings from outside its tables", err);
        if (st->inline_table && starts((struct ctk_cri_path){c->cri.parts, c->cri.n}, full, n))
                return refuse(c, st, "an inline table may hold the CRI plugin's section", err);
        return 0;
}

/* The tables of the CRI section, in the order of the text. */
static int collect(struct ctk_cri_section *c, struct ctk_error **err)
{
        c->tables = calloc(c->stmts.n + 1, sizeof(*c->tables));
        if (c->tables == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        const struct ctk_toml_stmt *hdr = NULL;
        struct ctk_cri_table *cur = NULL;
        for (size_t i = 0; i < c->stmts.n; i++) {
                const struct ctk_toml_stmt *st = &c->stmts.v[i];
                if (st->header) {
                        hdr = st;
                        cur = NULL;
                        struct ctk_cri_path k = path_of(&st->key);
                        if (st->array && starts((struct ctk_cri_path){c->cri.parts, c->cri.n}, k.parts, k.n))
                                return refuse(c, st, "an array of tables holds the CRI plugin's section", err);
                        if (!starts(k, c->cri.parts, c->cri.n))
                                continue;
                        struct ctk_cri_path rel = {.parts = k.parts + c->cri.n, .n = k.n - c->cri.n};
                        if (st->array && touched(rel.parts, rel.n, rel.parts, 0))
                                return refuse(c, st, "an array of tables stands where containerd reads a table", err);
                        cur = &c->tables[c->ntables++];
                        *cur = (struct ctk_cri_table){.header = st, .rel = rel, .first = i + 1, .end = i + 1};
                        continue;
                }
                if (cur == NULL) {
                        if (check_outside(c, st, hdr, err) < 0)
                                return -1;
                        continue;
                }
                cur->end = i + 1;
                /* a dotted key or an inline table defines tables of its own */
                for (size_t k = 1; k <= st->key.n; k++)
                        if ((k < st->key.n || st->inline_table) &&
                            touched(cur->rel.parts, cur->rel.n, (const char *const *)st->key.v, k))
                                return refuse(c, st,
                                              "a dotted key or an inline table defines a table of the CRI "
                                              "plugin's containerd settings (containerd, its runtimes)",
                                              err);
        }
        return 0;
}

const struct ctk_cri_table *ctk_cri_section_table(const struct ctk_cri_section *c, const char *const *rel, size_t n)
{
        for (size_t i = 0; i < c->ntables; i++)
                if (c->tables[i].rel.n == n && starts(c->tables[i].rel, rel, n))
                        return &c->tables[i];
        return NULL;
}

const struct ctk_toml_stmt *ctk_cri_section_key(const struct ctk_cri_section *c, const struct ctk_cri_table *t,
                                                const char *key)
{
        for (size_t i = t != NULL ? t->first : 0; t != NULL && i < t->end; i++)
                if (c->stmts.v[i].key.n == 1 && strcmp(c->stmts.v[i].key.v[0], key) == 0)
                        return &c->stmts.v[i];
        return NULL;
}

bool ctk_cri_section_has_runtime(const struct ctk_cri_section *c, const char *name)
{
        for (size_t i = 0; i < c->ntables; i++)
                if (ctk_cri_in_runtime(c->tables[i].rel, name))
                        return true;
        return false;
}

bool ctk_cri_section_other_runtime(const struct ctk_cri_section *c)
{
        for (size_t i = 0; i < c->ntables; i++) {
                struct ctk_cri_path r = c->tables[i].rel;
                if (r.n >= 3 && ctk_cri_in_runtime(r, r.parts[2]) && strcmp(r.parts[2], c->d->name) != 0)
                        return true;
        }
        return false;
}

const char *ctk_cri_section_source_runtime(const struct ctk_cri_section *c)
{
        const char *cand[] = {c->default_name, "runc", "crun"};
        for (size_t i = 0; i < 3; i++) {
                if (cand[i] == NULL || strcmp(cand[i], c->d->name) == 0 || !ctk_cri_section_has_runtime(c, cand[i]))
                        continue;
                const char *const rel[] = {"containerd", "runtimes", cand[i]};
                const struct ctk_toml_stmt *type =
                    ctk_cri_section_key(c, ctk_cri_section_table(c, rel, 3), "runtime_type");
                if (type == NULL || (type->string != NULL && strcmp(type->string, CTK_RUNC_V2) == 0))
                        return cand[i];
        }
        return NULL;
}

/* The source's schema must be the drop-in's: containerd reads the files
 * it merges by the last version given. */
static int check_version(const struct ctk_cri_section *c, struct ctk_error **err)
{
        const struct ctk_toml_stmt *where = NULL;
        bool top = true;
        for (size_t i = 0; i < c->stmts.n && where == NULL; i++) {
                const struct ctk_toml_stmt *st = &c->stmts.v[i];
                top = top && !st->header;
                bool plugins = (st->header || top) && strcmp(st->key.v[0], "plugins") == 0;
                bool version = top && st->key.n == 1 && strcmp(st->key.v[0], "version") == 0;
                if (c->top.has_version ? version : plugins)
                        where = st;
        }
        int want = c->d->containerd_version;
        if (where == NULL || (c->top.has_version && c->top.version == want))
                return 0;
        if (c->top.has_version && c->top.version >= 2)
                return ctk_toml_error_at(c->text, c->len, c->name, where->at, err,
                                         "this file is containerd's config version %lld, the drop-in would be "
                                         "version %d, and containerd would read this file's plugin sections as "
                                         "the drop-in's version: give --containerd-version %lld (or leave it out)",
                                         c->top.version, want, c->top.version);
        return ctk_toml_error_at(c->text, c->len, c->name, where->at, err,
                                 "containerd reads this file in its version 1 form (it has no `version = 2`), "
                                 "whose plugin sections it would ignore beside a version %d drop-in: convert it to "
                                 "version 2 (add `version = 2` and name each plugin in full, e.g. "
                                 "plugins.\"io.containerd.grpc.v1.cri\" for plugins.cri), then run this again",
                                 want);
}

int ctk_cri_section_read(struct ctk_cri_section *s, const struct ctk_dropin *d, struct ctk_error **err)
{
        *s = (struct ctk_cri_section){
            .d = d,
            .text = d->source,
            .len = d->source_len,
            .name = d->source_name,
            .cri = {.parts = d->containerd_version >= 3 ? cri_v3 : cri_v2, .n = 2},
        };
        if (d->source == NULL)
                return 0;
        if (ctk_toml_check(d->source, d->source_len, d->source_name, &s->top, &s->stmts, err) < 0 ||
            check_version(s, err) < 0 || collect(s, err) < 0)
                return -1;
        static const char *const containerd[] = {"containerd"};
        const struct ctk_toml_stmt *def =
            ctk_cri_section_key(s, ctk_cri_section_table(s, containerd, 1), "default_runtime_name");
        s->default_name = def != NULL ? def->string : NULL;
        return 0;
}

void ctk_cri_section_clear(struct ctk_cri_section *s)
{
        ctk_toml_top_clear(&s->top);
        ctk_toml_stmts_clear(&s->stmts);
        free(s->tables);
        memset(s, 0, sizeof(*s));
}
