#include "dropins.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dropin_cri.h"
#include "toml.h"

int ctk_dropin_text(const struct ctk_dropin *d, char **out, struct ctk_error **err)
{
        *out = NULL;
        _cleanup_free_ char *name = ctk_toml_quote(d->name);
        _cleanup_free_ char *path = ctk_toml_quote(d->runtime_path);
        char *text = NULL;
        size_t size = 0;
        FILE *f = name != NULL && path != NULL ? open_memstream(&text, &size) : NULL;
        if (f == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        fprintf(f, "%s\n", CTK_DROPIN_MARK);
        int r = 0;
        switch (d->engine) {
        case CTK_DROPIN_CONTAINERD:
                r = ctk_dropin_cri_write(f, d, name, path, err);
                break;
        case CTK_DROPIN_PODMAN: /* containers.conf(5) */
                if (d->set_as_default)
                        fprintf(f, "\n[engine]\nruntime = %s\n", name);
                fprintf(f, "\n[engine.runtimes]\n%s = [%s]\n", name, path);
                break;
        case CTK_DROPIN_CRIO: /* crio.conf(5) */
                fputs("\n[crio.runtime]\n", f);
                if (d->set_as_default)
                        fprintf(f, "default_runtime = %s\n", name);
                fprintf(f, "\n[crio.runtime.runtimes.%s]\nruntime_path = %s\nruntime_type = \"oci\"\n", name, path);
                break;
        }
        if (fclose(f) != 0 && r == 0)
                r = ctk_error_set(err, ENOMEM, "out of memory");
        if (r < 0) {
                free(text);
                return -1;
        }
        *out = text;
        return 0;
}

bool ctk_dropin_is_ours(const char *text, size_t len)
{
        size_t n = strlen(CTK_DROPIN_MARK);
        return len >= n && memcmp(text, CTK_DROPIN_MARK, n) == 0;
}

/* `imports = [...]` naming the strings of list (plus, when extra is not
 * NULL, extra), with a newline; NULL on ENOMEM. */
static char *imports_line(const struct ctk_strv *list, const char *skip, const char *extra)
{
        char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);
        if (f == NULL)
                return NULL;
        fputs("imports = [", f);
        size_t n = 0;
        for (size_t i = 0; i < list->n; i++) {
                if (skip != NULL && strcmp(list->v[i], skip) == 0)
                        continue;
                _cleanup_free_ char *q = ctk_toml_quote(list->v[i]);
                fprintf(f, "%s%s", n++ > 0 ? ", " : "", q != NULL ? q : "\"\"");
        }
        if (extra != NULL) {
                _cleanup_free_ char *q = ctk_toml_quote(extra);
                fprintf(f, "%s%s", n > 0 ? ", " : "", q != NULL ? q : "\"\"");
        }
        fputs("]\n", f);
        if (fclose(f) != 0) {
                free(text);
                return NULL;
        }
        return text;
}

/* text with [from, to) replaced by repl. */
static char *splice(const char *text, size_t len, size_t from, size_t to, const char *repl)
{
        size_t r = strlen(repl);
        char *out = malloc(len - (to - from) + r + 1);
        if (out == NULL)
                return NULL;
        memcpy(out, text, from);
        memcpy(out + from, repl, r);
        memcpy(out + from + r, text + to, len - to);
        out[len - (to - from) + r] = '\0';
        return out;
}

int ctk_dropin_containerd_imports(const char *text, size_t len, const char *name, const char *dropin, bool add,
                                  int new_version, char **out, int *version, struct ctk_error **err)
{
        *out = NULL;
        *version = 0;
        if (text == NULL) {
                if (!add)
                        return 0;
                _cleanup_free_ char *q = ctk_toml_quote(dropin);
                if (q == NULL || asprintf(out, "version = %d\nimports = [%s]\n", new_version, q) < 0) {
                        *out = NULL;
                        return ctk_error_set(err, ENOMEM, "out of memory");
                }
                return 0;
        }
        struct ctk_toml_top top;
        if (ctk_toml_check(text, len, name, &top, NULL, err) < 0)
                return -1;
        *version = top.has_version ? (int)top.version : 0;
        bool listed = false;
        for (size_t i = 0; i < top.imports.n; i++)
                listed = listed || strcmp(top.imports.v[i], dropin) == 0;
        int r = 0;
        if (add != listed) {
                _cleanup_free_ char *line = imports_line(&top.imports, add ? NULL : dropin, add ? dropin : NULL);
                if (line == NULL)
                        r = ctk_error_set(err, ENOMEM, "out of memory");
                else if (top.has_imports)
                        *out = splice(text, len, top.imports_start, top.imports_end, line);
                else if (top.body_start == len && len > 0 && text[len - 1] != '\n') { /* no table, no final newline */
                        if (asprintf(out, "%.*s\n%s", (int)len, text, line) < 0)
                                *out = NULL;
                } else /* a new top-level key: before the first table */
                        *out = splice(text, len, top.body_start, top.body_start, line);
                if (r == 0 && *out == NULL)
                        r = ctk_error_set(err, ENOMEM, "out of memory");
        }
        ctk_toml_top_clear(&top);
        if (r == 0 && *out != NULL) { /* what was made must parse (a table named imports forbids the key) */
                struct ctk_toml_top made;
                _cleanup_error_ struct ctk_error *why = NULL;
                if (ctk_toml_check(*out, strlen(*out), name, &made, NULL, &why) < 0) {
                        free(*out);
                        *out = NULL;
                        return ctk_error_set(err, EINVAL,
                                             "%s: a top-level imports list cannot be written there (%s); fix the "
                                             "file's imports by hand",
                                             CTK_CUT(name), why->msg);
                }
                ctk_toml_top_clear(&made);
        }
        return r;
}
