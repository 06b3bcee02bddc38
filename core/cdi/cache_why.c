/* Why a qualified CDI name gives no device (see cache.h): the line an
 * unresolvable request fails with. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdi.h"
#include "core/base/base.h"

#define MAX_LISTED  16 /* device names listed; the rest are counted */
#define MAX_SKIPPED 3  /* skipped files named */

static bool digits(const char *s)
{
        return s[0] != '\0' && strspn(s, "0123456789") == strlen(s) && strlen(s) <= 18;
}

/* The device names of kind (in name order), index runs compressed: "0-3, 7, 0xAB, all". */
static void list_names(FILE *f, const struct ctk_cdi_cache *c, const char *kind)
{
        size_t first, n, shown = 0;
        ctk_cdi_cache_kind_range(c, kind, &first, &n);
        size_t klen = strlen(kind) + 1;
        for (size_t i = first; i < first + n; i++) {
                const char *name = c->devices[i].name + klen;
                size_t j = i;
                if (digits(name)) { /* the longest run of consecutive indices from here */
                        unsigned long long v = strtoull(name, NULL, 10);
                        while (j + 1 < first + n && digits(c->devices[j + 1].name + klen) &&
                               strtoull(c->devices[j + 1].name + klen, NULL, 10) == v + (j + 1 - i))
                                j++;
                }
                if (shown == MAX_LISTED) {
                        fprintf(f, ", and %zu more", first + n - i);
                        return;
                }
                fprintf(f, "%s%s", shown > 0 ? ", " : "", name);
                if (j > i)
                        fprintf(f, "-%s", c->devices[j].name + klen);
                shown++;
                i = j;
        }
}

/* "; skipped: MSG; MSG": files that could have had the name (unreadable
 * ones, and those of kind). */
static void list_skipped(FILE *f, const struct ctk_cdi_cache *c, const char *kind)
{
        size_t shown = 0, more = 0;
        for (size_t i = 0; i < c->nproblems; i++) {
                const struct ctk_cdi_problem *p = &c->problems[i];
                if (p->kind != NULL && strcmp(p->kind, kind) != 0)
                        continue;
                if (shown == MAX_SKIPPED) {
                        more++;
                        continue;
                }
                fprintf(f, "%s%s", shown == 0 ? "; skipped: " : "; ", p->msg);
                shown++;
        }
        if (more > 0)
                fprintf(f, "; and %zu more skipped", more);
}

static bool explain_conflict(FILE *f, const struct ctk_cdi_cache *c, const char *name)
{
        for (size_t i = 0; i < c->nconflicts; i++) {
                if (strcmp(c->conflicts[i].name, name) != 0)
                        continue;
                _cleanup_free_ char *specs = ctk_strv_join(&c->conflicts[i].specs, ", ");
                fprintf(f, "defined twice in one directory (%s): CDI runtimes use neither; remove one of them",
                        specs != NULL ? specs : "?");
                return true;
        }
        return false;
}

static bool explain_skipped(FILE *f, const struct ctk_cdi_cache *c, const char *kind, const char *dev)
{
        for (size_t i = 0; i < c->nproblems; i++) {
                const struct ctk_cdi_problem *p = &c->problems[i];
                if (p->kind != NULL && strcmp(p->kind, kind) == 0 && ctk_strv_contains(&p->names, dev)) {
                        fprintf(f, "%s would give it, but was skipped: %s", p->path, p->msg);
                        return true;
                }
        }
        return false;
}

char *ctk_cdi_cache_why_missing(const struct ctk_cdi_cache *c, const char *name)
{
        const char *eq = strchr(name, '=');
        _cleanup_free_ char *kind = eq != NULL ? strndup(name, (size_t)(eq - name)) : strdup(name);
        const char *dev = eq != NULL ? eq + 1 : "";
        char *s = NULL;
        size_t len = 0;
        FILE *f = kind != NULL ? open_memstream(&s, &len) : NULL;
        if (f == NULL)
                return NULL;
        if (explain_conflict(f, c, name) || explain_skipped(f, c, kind, dev)) {
                if (fclose(f) != 0) {
                        free(s);
                        return NULL;
                }
                return s;
        }
        struct ctk_strv files _cleanup_strv_ = {0};
        for (size_t i = 0; i < c->nspecs; i++)
                if (strcmp(c->specs[i].kind, kind) == 0 && !ctk_strv_contains(&files, c->specs[i].path))
                        ctk_strv_push(&files, c->specs[i].path);
        if (files.n == 0) {
                _cleanup_free_ char *dirs = ctk_strv_join(&c->dirs, ", ");
                fprintf(f, "no CDI spec in %s has kind %s", dirs != NULL && dirs[0] != '\0' ? dirs : "(no directory)",
                        kind);
                if (strcmp(kind, CTK_CDI_DEFAULT_VENDOR "/" CTK_CDI_DEFAULT_CLASS) == 0)
                        fputs(" (run 'amd-ctk cdi generate')", f);
        } else {
                _cleanup_free_ char *list = ctk_strv_join(&files, ", ");
                fprintf(f, "no such device in %s (", list != NULL ? list : "?");
                list_names(f, c, kind);
                fputc(')', f);
        }
        list_skipped(f, c, kind);
        if (fclose(f) != 0) {
                free(s);
                return NULL;
        }
        return s;
}
