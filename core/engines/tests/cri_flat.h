/* Helpers of the tests of containerd's drop-in (test_dropin_cri*.c): a
 * TOML text flattened to key paths and value texts (through the strict
 * reader), the drop-in of a config.toml, and the check that it is a copy
 * of that file's CRI section with our keys set. */
#ifndef CTK_ENGINES_TESTS_CRI_FLAT_H
#define CTK_ENGINES_TESTS_CRI_FLAT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/base/base.h"
#include "core/engines/dropins.h"
#include "core/engines/toml.h"

#ifndef FIXTURES
#define FIXTURES "core/engines/tests/fixtures"
#endif

#define CRI     "plugins/io.containerd.grpc.v1.cri/"
#define AMD     CRI "containerd/runtimes/amd/"
#define RUNC    CRI "containerd/runtimes/runc/"
#define PATH_RT "\"/usr/bin/amd-container-runtime\""

static const char *const dirs[] = {"/etc/cdi", "/var/run/cdi"};

/* A TOML text flattened: each table ("a/b", value "[table]") and each key
 * ("a/b/key", value: the value's text), in the order of the text. */
struct flat {
        struct ctk_strv paths, values;
};

static inline void flat_clear(struct flat *f)
{
        ctk_strv_clear(&f->paths);
        ctk_strv_clear(&f->values);
}

static inline char *joined(const struct ctk_strv *a, const struct ctk_strv *b)
{
        struct ctk_strv all = {0};
        for (size_t i = 0; i < a->n; i++)
                assert_int_equal(ctk_strv_push(&all, a->v[i]), 0);
        for (size_t i = 0; b != NULL && i < b->n; i++)
                assert_int_equal(ctk_strv_push(&all, b->v[i]), 0);
        char *j = ctk_strv_join(&all, "/");
        ctk_strv_clear(&all);
        return j;
}

/* Flattens text, which must be valid TOML without a table or key twice. */
static inline void flatten(const char *text, struct flat *f)
{
        memset(f, 0, sizeof(*f));
        struct ctk_toml_top top;
        struct ctk_toml_stmts st;
        _cleanup_error_ struct ctk_error *err = NULL;
        if (ctk_toml_check(text, strlen(text), "flat", &top, &st, &err) < 0)
                fail_msg("%s\n%s", err->msg, text);
        struct ctk_strv none = {0};
        const struct ctk_strv *table = &none;
        for (size_t i = 0; i < st.n; i++) {
                if (st.v[i].header)
                        table = &st.v[i].key;
                char *p = joined(table, st.v[i].header ? NULL : &st.v[i].key);
                if (ctk_strv_contains(&f->paths, p))
                        fail_msg("%s twice in\n%s", p, text);
                assert_int_equal(ctk_strv_push_take(&f->paths, p), 0);
                assert_int_equal(ctk_strv_push_take(&f->values, st.v[i].header
                                                                    ? strdup("[table]")
                                                                    : strndup(text + st.v[i].value_start,
                                                                              st.v[i].value_end - st.v[i].value_start)),
                                 0);
        }
        ctk_toml_stmts_clear(&st);
        ctk_toml_top_clear(&top);
}

static const char *flat_get(const struct flat *f, const char *path)
{
        for (size_t i = 0; i < f->paths.n; i++)
                if (strcmp(f->paths.v[i], path) == 0)
                        return f->values.v[i];
        return NULL;
}

static inline void has(const struct flat *f, const char *path, const char *want)
{
        const char *got = flat_get(f, path);
        if (got == NULL || strcmp(got, want) != 0)
                fail_msg("%s: want %s, got %s", path, want, got != NULL ? got : "(none)");
}

static inline struct ctk_dropin dropin(const char *source, bool set_default)
{
        return (struct ctk_dropin){.engine = CTK_DROPIN_CONTAINERD,
                                   .name = "amd",
                                   .runtime_path = "/usr/bin/amd-container-runtime",
                                   .set_as_default = set_default,
                                   .containerd_version = 2,
                                   .cdi_dirs = dirs,
                                   .ncdi_dirs = 2,
                                   .source = source,
                                   .source_len = source != NULL ? strlen(source) : 0,
                                   .source_name = "config.toml"};
}

/* The drop-in of d (asserted made). */
static inline char *made(const struct ctk_dropin *d)
{
        char *out = NULL;
        _cleanup_error_ struct ctk_error *err = NULL;
        if (ctk_dropin_text(d, &out, &err) < 0)
                fail_msg("refused: %s", err->msg);
        assert_true(ctk_dropin_is_ours(out, strlen(out)));
        return out;
}

/* Whether path is one the drop-in sets itself (not copied). */
static inline bool ours(const char *path, const char *cri)
{
        size_t n = strlen(cri);
        if (strncmp(path, cri, n) != 0)
                return false;
        path += n;
        return strcmp(path, "enable_cdi") == 0 || strcmp(path, "cdi_spec_dirs") == 0 ||
               strcmp(path, "containerd/default_runtime_name") == 0 ||
               strncmp(path, "containerd/runtimes/amd", 23) == 0;
}

/* Whether path is the section cri ("a/b/") or below it. */
static inline bool in_section(const char *path, const char *cri)
{
        size_t n = strlen(cri) - 1;
        return strncmp(path, cri, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* Every table and key of source's CRI section is in the drop-in, the same
 * byte for byte, but those the drop-in sets; nothing else of the source. */
static inline void copied(const char *source, const char *out, const char *cri)
{
        struct flat src, dst;
        flatten(source, &src);
        flatten(out, &dst);
        for (size_t i = 0; i < src.paths.n; i++) {
                const char *p = src.paths.v[i];
                const char *got = flat_get(&dst, p);
                if (in_section(p, cri)) {
                        if (!ours(p, cri) && (got == NULL || strcmp(got, src.values.v[i]) != 0))
                                fail_msg("%s: %s in the source, %s in the drop-in", p, src.values.v[i],
                                         got != NULL ? got : "nothing");
                } else if (got != NULL && strcmp(p, "plugins") != 0 && strcmp(p, "version") != 0) {
                        fail_msg("%s is not of the CRI section but was copied", p);
                }
        }
        /* and nothing but: our keys, tables they need, the runc we add */
        for (size_t i = 0; i < dst.paths.n; i++) {
                const char *p = dst.paths.v[i];
                // NOLINTNEXTLINE(clang-analyzer-core.NonNullParamChecker): flat_parse gives every path a value
                bool table = strcmp(dst.values.v[i], "[table]") == 0;
                if (strcmp(p, "version") != 0 && !in_section(p, cri))
                        fail_msg("the drop-in has %s outside the CRI section", p);
                if (flat_get(&src, p) == NULL && !ours(p, cri) && !table &&
                    strncmp(p + strlen(cri), "containerd/runtimes/runc/", 25) != 0 && strcmp(p, "version") != 0)
                        fail_msg("the drop-in has %s, which the source has not", p);
        }
        flat_clear(&src);
        flat_clear(&dst);
}

static inline char *fixture(const char *name)
{
        _cleanup_free_ char *path = NULL;
        char *text = NULL;
        assert_true(asprintf(&path, "%s/%s", FIXTURES, name) > 0);
        assert_int_equal(ctk_file_read_all(path, &text, NULL, NULL), 0);
        return text;
}

/* The schema 2 drop-in of src, checked to be its CRI section's copy and
 * flattened into *f. */
static inline char *configure(const char *src, bool set_default, struct flat *f)
{
        struct ctk_dropin d = dropin(src, set_default);
        char *out = made(&d);
        copied(src, out, CRI);
        flatten(out, f);
        return out;
}

#endif
