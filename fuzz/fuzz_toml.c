/* Engine TOML files (containerd's config.toml): the strict reader, the
 * imports edit and the drop-in's copy of the CRI section.  Whatever the
 * text: one error, or an edit whose result is valid TOML again, lists the
 * drop-in once, and is undone by removing it; and one error, or a drop-in
 * that is valid TOML.  And a key or a table said twice is refused. */
#include "fuzz.h"

#include "core/base/base.h"
#include "core/engines/engines.h"

#define DROPIN "/etc/containerd/conf.d/99-amd.toml"

/* text with before and after around it (owned). */
static char *around(const char *before, const char *text, size_t size, const char *after, size_t *len)
{
        size_t a = strlen(before), b = strlen(after);
        char *s = malloc(a + size + b + 1);
        if (s == NULL)
                abort();
        memcpy(s, before, a); // NOLINT(bugprone-not-null-terminated-result): the last copy ends with after's NUL
        memcpy(s + a, text, size);
        memcpy(s + a + size, after, b + 1);
        *len = a + size + b;
        return s;
}

/* TOML forbids a key or a table twice: of a text the reader takes, a key
 * of the root table said again first, or a table header said again last,
 * is refused; an array of tables' header said again is taken. */
static void check_twice(const char *text, size_t size)
{
        struct ctk_toml_top top;
        struct ctk_toml_stmts st;
        if (ctk_toml_check(text, size, "t.toml", &top, &st, NULL) < 0)
                return;
        ctk_toml_top_clear(&top);
        /* (a key with a NUL is cut short as a C string: not said again right) */
        bool nul = memmem(text, size, "u0000", 5) != NULL || memmem(text, size, "U00000000", 9) != NULL;
        bool header_seen = false;
        for (size_t i = 0; i < st.n && !nul; i++) {
                const struct ctk_toml_stmt *s = &st.v[i];
                bool root_key = !s->header && !header_seen;
                header_seen = header_seen || s->header;
                if (!s->header && !root_key)
                        continue;
                _cleanup_free_ char *key = ctk_toml_key_text((const char *const *)s->key.v, s->key.n);
                FUZZ_ASSERT(key != NULL);
                _cleanup_free_ char *line = NULL, *again = NULL;
                size_t len;
                bool ok;
                if (root_key) {
                        bool version = s->key.n == 1 && strcmp(s->key.v[0], "version") == 0;
                        FUZZ_ASSERT(asprintf(&line, "%s = %s\n", key, version ? "2" : "[]") > 0);
                        again = around(line, text, size, "", &len);
                        ok = false;
                } else {
                        FUZZ_ASSERT(asprintf(&line, "\n%s%s%s\n", s->array ? "[[" : "[", key, s->array ? "]]" : "]") >
                                    0);
                        again = around("", text, size, line, &len);
                        ok = s->array;
                }
                struct ctk_error *err = NULL;
                int r = ctk_toml_check(again, len, "again.toml", &top, NULL, &err);
                FUZZ_ASSERT((r == 0) == ok);
                if (r == 0)
                        ctk_toml_top_clear(&top);
                else
                        FUZZ_ASSERT(err != NULL && strstr(err->msg, "which TOML forbids") != NULL);
                ctk_error_free(err);
        }
        ctk_toml_stmts_clear(&st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        _cleanup_free_ char *text = fuzz_text(data, size);
        check_twice(text, size);
        char *added = NULL;
        int version;
        struct ctk_error *err = NULL;
        if (ctk_dropin_containerd_imports(text, size, "config.toml", DROPIN, true, 2, &added, &version, &err) < 0) {
                FUZZ_ASSERT(err != NULL && strchr(err->msg, '\n') == NULL);
                ctk_error_free(err);
                return 0;
        }
        const char *now = added != NULL ? added : text;
        struct ctk_toml_top top;
        FUZZ_ASSERT(ctk_toml_check(now, strlen(now), "added", &top, NULL, NULL) == 0);
        size_t listed = 0;
        for (size_t i = 0; i < top.imports.n; i++)
                listed += strcmp(top.imports.v[i], DROPIN) == 0;
        FUZZ_ASSERT(listed >= 1);
        ctk_toml_top_clear(&top);
        char *removed = NULL;
        FUZZ_ASSERT(
            ctk_dropin_containerd_imports(now, strlen(now), "added", DROPIN, false, 2, &removed, &version, NULL) == 0);
        if (removed != NULL) {
                FUZZ_ASSERT(ctk_toml_check(removed, strlen(removed), "removed", &top, NULL, NULL) == 0);
                for (size_t i = 0; i < top.imports.n; i++)
                        FUZZ_ASSERT(strcmp(top.imports.v[i], DROPIN) != 0);
                ctk_toml_top_clear(&top);
        }
        free(removed);
        free(added);
        static const char *const dirs[] = {"/etc/cdi"};
        struct ctk_dropin d = {.engine = CTK_DROPIN_CONTAINERD,
                               .name = "amd",
                               .runtime_path = "/usr/bin/amd-container-runtime",
                               .set_as_default = size % 2 == 0,
                               .containerd_version = 2,
                               .cdi_dirs = dirs,
                               .ncdi_dirs = 1,
                               .source = text,
                               .source_len = size,
                               .source_name = "config.toml"};
        char *dropin = NULL;
        if (ctk_dropin_text(&d, &dropin, &err) < 0) {
                FUZZ_ASSERT(err != NULL && strchr(err->msg, '\n') == NULL);
                ctk_error_free(err);
                return 0;
        }
        FUZZ_ASSERT(ctk_toml_check(dropin, strlen(dropin), "dropin", &top, NULL, NULL) == 0);
        ctk_toml_top_clear(&top);
        free(dropin);
        return 0;
}
