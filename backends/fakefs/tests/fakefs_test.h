/* Helpers shared by the fakefs unit tests (header-only, static). */
#ifndef CTK_FAKEFS_TEST_H
#define CTK_FAKEFS_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backends/fakefs/backend.h"
#include "backends/fakefs/host.h"
#include "backends/fakefs/profile.h"
#include "backends/fakefs/tree.h"
#include "core/base/base.h"

/* Loads a profile from a string; fails the test on error. */
static inline struct ctk_fakefs_host *test_host(const char *json)
{
        struct ctk_error *err = NULL;
        struct ctk_fakefs_profile *p = NULL;
        struct ctk_fakefs_host *h = NULL;
        if (ctk_fakefs_profile_parse(json, "test.json", &p, &err) < 0 ||
            ctk_fakefs_host_new_from_profile(p, &h, &err) < 0) {
                fail_msg("profile: %s", err->msg);
        }
        return h;
}

/* A simulated host and a backend answering from it. */
struct test_backend {
        struct ctk_fakefs_host *host;
        struct ctk_backend *b;
};

/* The host of a profile string and its backend; fails the test on error. */
static inline struct test_backend *test_backend_new(const char *json)
{
        struct test_backend *f = calloc(1, sizeof(*f));
        struct ctk_error *err = NULL;
        if (f == NULL)
                fail();
        f->host = test_host(json);
        if (ctk_fakefs_backend_from_host(f->host, &f->b, &err) < 0)
                fail_msg("backend: %s", err->msg);
        return f;
}

static inline void test_backend_free(struct test_backend *f)
{
        if (f == NULL)
                return;
        ctk_backend_free(f->b);
        ctk_fakefs_host_unref(f->host);
        free(f);
}

/* The error message of loading a profile from a string (NULL if it loads). */
static inline char *test_profile_error(const char *json)
{
        struct ctk_error *err = NULL;
        struct ctk_fakefs_profile *p = NULL;
        struct ctk_fakefs_host *h = NULL;
        if (ctk_fakefs_profile_parse(json, "test.json", &p, &err) == 0 &&
            ctk_fakefs_host_new_from_profile(p, &h, &err) == 0) {
                ctk_fakefs_host_unref(h);
                return NULL;
        }
        char *msg = strdup(err->msg);
        ctk_error_free(err);
        return msg;
}

static inline void dump_node(FILE *f, const struct ctk_fakefs_node *n, const char *path)
{
        fprintf(f, "%s %c %04o %u:%u", path[0] ? path : "/", n->type, (unsigned int)n->mode, (unsigned int)n->uid,
                (unsigned int)n->gid);
        if (n->type == CTK_NODE_CHR)
                fprintf(f, " %u:%u", n->major, n->minor);
        if (n->type == CTK_NODE_LINK)
                fprintf(f, " -> %s", n->data);
        if (n->type == CTK_NODE_FILE)
                fprintf(f, " [%s]", n->data);
        fputc('\n', f);
        for (size_t i = 0; i < n->nkids; i++) {
                char *sub = NULL;
                if (asprintf(&sub, "%s/%s", path, n->kids[i]->name) < 0)
                        abort();
                dump_node(f, n->kids[i], sub);
                free(sub);
        }
}

/* Every node of a tree, one line each (path type mode owner [contents]). */
__attribute__((noinline, unused)) static char *test_dump(const struct ctk_fakefs_tree *t)
{
        char *s = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&s, &len);
        assert_non_null(f);
        dump_node(f, t->root, "");
        fclose(f);
        return s;
}

static inline char *host_dump(struct ctk_fakefs_host *h)
{
        struct ctk_fakefs_tree *t = ctk_fakefs_host_snapshot(h);
        char *s = test_dump(t);
        ctk_fakefs_tree_unref(t);
        return s;
}

/* Contents of a file in the host's current tree, or NULL. */
static inline char *host_read(struct ctk_fakefs_host *h, const char *path)
{
        struct ctk_fakefs_tree *t = ctk_fakefs_host_snapshot(h);
        const struct ctk_fakefs_node *n;
        char *s = NULL;
        if (ctk_fakefs_tree_lookup(t, path, true, &n) == 0 && n->type == CTK_NODE_FILE)
                s = strdup(n->data);
        ctk_fakefs_tree_unref(t);
        return s;
}

static inline bool host_exists(struct ctk_fakefs_host *h, const char *path)
{
        struct ctk_fakefs_tree *t = ctk_fakefs_host_snapshot(h);
        const struct ctk_fakefs_node *n;
        bool ok = ctk_fakefs_tree_lookup(t, path, false, &n) == 0;
        ctk_fakefs_tree_unref(t);
        return ok;
}

#endif
