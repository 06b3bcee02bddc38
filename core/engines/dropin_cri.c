#include "dropin_cri.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dropin_cri_read.h"
#include "toml.h"

/* The drop-in being written: the source's section, the stream, the
 * runtime's name and executable quoted. */
struct copy {
        struct ctk_cri_section s;
        FILE *f;
        const char *name_q, *path_q;
};

static void copy_clear(struct copy *c)
{
        ctk_cri_section_clear(&c->s);
}

/* Bytes [from, to) of the source, ending with a newline. */
static void put_text(const struct copy *c, size_t from, size_t to)
{
        (void)fwrite(c->s.text + from, 1, to - from, c->f); /* the memory stream's errors: at its fclose */
        if (to == from || c->s.text[to - 1] != '\n')
                fputc('\n', c->f);
}

/* A header of ours: the path rel below the plugin's table, indented like
 * the header `like` (when not NULL). */
static int put_header(struct copy *c, const struct ctk_toml_stmt *like, const char *const *rel, size_t n)
{
        _cleanup_free_ const char **parts = malloc((c->s.cri.n + n + 1) * sizeof(*parts));
        if (parts == NULL)
                return -1;
        for (size_t i = 0; i < c->s.cri.n + n; i++)
                parts[i] = i < c->s.cri.n ? c->s.cri.parts[i] : rel[i - c->s.cri.n];
        _cleanup_free_ char *key = ctk_toml_key_text(parts, c->s.cri.n + n);
        if (key == NULL)
                return -1;
        fprintf(c->f, "\n%.*s[%s]\n", like != NULL ? (int)(like->at - like->start) : 0,
                like != NULL ? c->s.text + like->start : "", key);
        return 0;
}

/* The indentation of a key of ours in table t: that of its first key,
 * else its header's and two spaces. */
static void put_indent(const struct copy *c, const struct ctk_cri_table *t)
{
        if (t != NULL && t->first < t->end) {
                const struct ctk_toml_stmt *k = &c->s.stmts.v[t->first];
                fprintf(c->f, "%.*s", (int)(k->at - k->start), c->s.text + k->start);
        } else {
                fprintf(c->f, "%.*s  ", t != NULL ? (int)(t->header->at - t->header->start) : 0,
                        t != NULL ? c->s.text + t->header->start : "");
        }
}

/* Table t's header line and its key = values but the key skip (NULL: none). */
static void put_table(const struct copy *c, const struct ctk_cri_table *t, const char *skip, const char *skip2)
{
        fputc('\n', c->f);
        put_text(c, t->header->start, t->header->end);
        for (size_t i = t->first; i < t->end; i++) {
                const struct ctk_toml_stmt *st = &c->s.stmts.v[i];
                bool one = st->key.n == 1;
                if (!(one && skip != NULL && strcmp(st->key.v[0], skip) == 0) &&
                    !(one && skip2 != NULL && strcmp(st->key.v[0], skip2) == 0))
                        put_text(c, st->start, st->end);
        }
}

/* The plugin's own table: enable_cdi and cdi_spec_dirs set. */
static int put_root(struct copy *c, const struct ctk_cri_table *t)
{
        if (t != NULL)
                put_table(c, t, "enable_cdi", "cdi_spec_dirs");
        else if (put_header(c, NULL, NULL, 0) < 0)
                return -1;
        put_indent(c, t);
        fputs("enable_cdi = true\n", c->f);
        put_indent(c, t);
        fputs("cdi_spec_dirs = [", c->f);
        for (size_t i = 0; i < c->s.d->ncdi_dirs; i++) {
                _cleanup_free_ char *q = ctk_toml_quote(c->s.d->cdi_dirs[i]);
                if (q == NULL)
                        return -1;
                fprintf(c->f, "%s%s", i > 0 ? ", " : "", q);
        }
        fputs("]\n", c->f);
        return 0;
}

/* The containerd table: default_runtime_name ours with --set-as-default;
 * dropped when it named ours otherwise. */
static int put_containerd(struct copy *c, const struct ctk_cri_table *t)
{
        const struct ctk_dropin *d = c->s.d;
        bool drop = d->set_as_default || (c->s.default_name != NULL && strcmp(c->s.default_name, d->name) == 0);
        if (t != NULL)
                put_table(c, t, drop ? "default_runtime_name" : NULL, NULL);
        if (!d->set_as_default)
                return 0;
        static const char *const rel[] = {"containerd"};
        if (t == NULL && put_header(c, NULL, rel, 1) < 0)
                return -1;
        put_indent(c, t);
        fprintf(c->f, "default_runtime_name = %s\n", c->name_q);
        return 0;
}

/* Our runtime: a copy of the tables of runtime src (NULL: none) with
 * runtime_type runc's and BinaryName ours. */
static int put_runtime(struct copy *c, const char *src)
{
        const char *rel[] = {"containerd", "runtimes", c->s.d->name, "options"};
        bool base = false, options = false;
        for (size_t i = 0; src != NULL && i < c->s.ntables; i++) {
                const struct ctk_cri_table *t = &c->s.tables[i];
                if (!ctk_cri_in_runtime(t->rel, src))
                        continue;
                _cleanup_free_ const char **mine = malloc(t->rel.n * sizeof(*mine));
                if (mine == NULL)
                        return -1;
                memcpy(mine, t->rel.parts, t->rel.n * sizeof(*mine));
                mine[2] = c->s.d->name;
                bool is_base = t->rel.n == 3, is_options = t->rel.n == 4 && strcmp(t->rel.parts[3], "options") == 0;
                if (put_header(c, t->header, mine, t->rel.n) < 0)
                        return -1;
                const char *ours = is_base ? "runtime_type" : is_options ? "BinaryName" : NULL;
                for (size_t k = t->first; k < t->end; k++) {
                        const struct ctk_toml_stmt *st = &c->s.stmts.v[k];
                        if (!(ours != NULL && st->key.n == 1 && strcmp(st->key.v[0], ours) == 0))
                                put_text(c, st->start, st->end);
                }
                if (ours != NULL)
                        put_indent(c, t);
                if (is_base)
                        fputs("runtime_type = \"" CTK_RUNC_V2 "\"\n", c->f);
                if (is_options)
                        fprintf(c->f, "BinaryName = %s\n", c->path_q);
                base = base || is_base;
                options = options || is_options;
        }
        if (!base) {
                if (put_header(c, NULL, rel, 3) < 0)
                        return -1;
                fputs("  runtime_type = \"" CTK_RUNC_V2 "\"\n", c->f);
        }
        if (!options) {
                if (put_header(c, NULL, rel, 4) < 0)
                        return -1;
                fprintf(c->f, "  BinaryName = %s\n", c->path_q);
        }
        return 0;
}

static int put_all(struct copy *c)
{
        const struct ctk_dropin *d = c->s.d;
        static const char *const containerd[] = {"containerd"};
        const struct ctk_cri_table *root = ctk_cri_section_table(&c->s, NULL, 0),
                                   *ctd = ctk_cri_section_table(&c->s, containerd, 1);
        const char *src = ctk_cri_section_source_runtime(&c->s);
        size_t after = c->s.ntables; /* ours follows the last table of src */
        for (size_t i = 0; src != NULL && i < c->s.ntables; i++)
                if (ctk_cri_in_runtime(c->s.tables[i].rel, src))
                        after = i;
        if (root == NULL && put_root(c, NULL) < 0)
                return -1;
        for (size_t i = 0; i < c->s.ntables; i++) {
                const struct ctk_cri_table *t = &c->s.tables[i];
                if ((t == root && put_root(c, t) < 0) || (t == ctd && put_containerd(c, t) < 0))
                        return -1;
                if (t != root && t != ctd && !ctk_cri_in_runtime(t->rel, d->name))
                        put_table(c, t, NULL, NULL);
                if (i == after && put_runtime(c, src) < 0)
                        return -1;
        }
        if (ctd == NULL && put_containerd(c, NULL) < 0)
                return -1;
        if (after == c->s.ntables && put_runtime(c, src) < 0)
                return -1;
        /* containerd's own default runtime, runc, when the section has no
         * other (ours replaces its built-in list) or the default names it */
        bool own_default = c->s.default_name != NULL && strcmp(c->s.default_name, d->name) != 0;
        const char *def = d->set_as_default ? d->name : own_default ? c->s.default_name : "runc";
        static const char *const runc[] = {"containerd", "runtimes", "runc"};
        if (!ctk_cri_section_has_runtime(&c->s, "runc") &&
            (!ctk_cri_section_other_runtime(&c->s) || strcmp(def, "runc") == 0)) {
                if (put_header(c, NULL, runc, 3) < 0)
                        return -1;
                fputs("  runtime_type = \"" CTK_RUNC_V2 "\"\n", c->f);
        }
        return 0;
}

int ctk_dropin_cri_write(FILE *f, const struct ctk_dropin *d, const char *name_q, const char *path_q,
                         struct ctk_error **err)
{
        __attribute__((cleanup(copy_clear))) struct copy c = {.f = f, .name_q = name_q, .path_q = path_q};
        if (ctk_cri_section_read(&c.s, d, err) < 0)
                return -1;
        _cleanup_free_ char *cri = ctk_toml_key_text(c.s.cri.parts, c.s.cri.n);
        if (cri == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        fprintf(f,
                "# containerd before 2.1 replaces a plugin's whole section of config.toml with\n"
                "# the one of an imported file, so this file holds a copy of config.toml's\n"
                "# [%s] section, with the %s runtime\n"
                "# and CDI set in it.  After editing that section of config.toml, run\n"
                "# amd-ctk runtime configure again.\n"
                "version = %d\n",
                cri, d->name, d->containerd_version);
        if (put_all(&c) < 0)
                return ctk_error_set(err, ENOMEM, "out of memory");
        return 0;
}
