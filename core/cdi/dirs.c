/* Scanning CDI spec directories (see cdi_dirs.h). */
#include "dirs.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cdi.h"
#include "core/base/base.h"

void ctk_cdi_catalog_clear(struct ctk_cdi_catalog *c)
{
        for (size_t i = 0; i < c->n; i++) {
                // NOLINTNEXTLINE(clang-analyzer-core.NullDereference): n > 0 only once offers is allocated
                free(c->offers[i].name);
                free(c->offers[i].spec);
                ctk_strv_clear(&c->offers[i].overrides);
        }
        free(c->offers);
        for (size_t i = 0; i < c->nconflicts; i++) {
                free(c->conflicts[i].name);
                ctk_strv_clear(&c->conflicts[i].specs);
        }
        free(c->conflicts);
        ctk_strv_clear(&c->problems);
        ctk_strv_clear(&c->specs);
        *c = (struct ctk_cdi_catalog){0};
}

static bool all_digits(const char *s)
{
        if (*s == '\0')
                return false;
        for (; *s != '\0'; s++)
                if (*s < '0' || *s > '9')
                        return false;
        return true;
}

int ctk_cdi_name_cmp(const char *a, const char *b)
{
        const char *ea = strchr(a, '='), *eb = strchr(b, '=');
        if (ea == NULL || eb == NULL)
                return strcmp(a, b);
        size_t ka = (size_t)(ea - a), kb = (size_t)(eb - b);
        int c = strncmp(a, b, ka < kb ? ka : kb);
        if (c != 0 || ka != kb)
                return c != 0 ? c : (ka < kb ? -1 : 1);
        const char *na = ea + 1, *nb = eb + 1;
        bool da = all_digits(na), db = all_digits(nb);
        if (da && db) {
                size_t la = strlen(na), lb = strlen(nb);
                if (la != lb)
                        return la < lb ? -1 : 1;
                return strcmp(na, nb);
        }
        if (da != db)
                return da ? -1 : 1;
        return strcmp(na, nb);
}

static int problem(struct ctk_cdi_catalog *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int problem(struct ctk_cdi_catalog *c, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        char *line = NULL;
        int rc = vasprintf(&line, fmt, ap);
        va_end(ap);
        return rc < 0 ? -1 : ctk_strv_push_take(&c->problems, line);
}

/* Working state: every qualified name seen, with its current definition. */
struct entry {
        char *name;
        char *spec;
        size_t priority;
        struct ctk_strv overrides;
        struct ctk_strv conflict_specs; /* non-empty: conflicting */
};

struct scan {
        struct entry *v;
        size_t n, cap;
};

static void scan_clear(struct scan *s)
{
        for (size_t i = 0; i < s->n; i++) {
                free(s->v[i].name);
                free(s->v[i].spec);
                ctk_strv_clear(&s->v[i].overrides);
                ctk_strv_clear(&s->v[i].conflict_specs);
        }
        free(s->v);
}

static void push_unique(struct ctk_strv *v, const char *s)
{
        if (!ctk_strv_contains(v, s))
                ctk_strv_push(v, s);
}

static int define(struct scan *s, const char *name, const char *spec, size_t priority)
{
        for (size_t i = 0; i < s->n; i++) {
                struct entry *e = &s->v[i];
                if (strcmp(e->name, name) != 0)
                        continue;
                if (priority > e->priority) {
                        push_unique(&e->overrides, e->spec);
                        free(e->spec);
                        e->spec = strdup(spec);
                        e->priority = priority;
                        return e->spec != NULL ? 0 : -1;
                }
                /* same priority: CDI runtimes drop the device altogether */
                push_unique(&e->conflict_specs, e->spec);
                push_unique(&e->conflict_specs, spec);
                return 0;
        }
        if (s->n == s->cap) {
                size_t cap = s->cap ? s->cap * 2 : 16;
                struct entry *v = realloc(s->v, cap * sizeof(*v));
                if (v == NULL)
                        return -1;
                s->v = v;
                s->cap = cap;
        }
        s->v[s->n] = (struct entry){.name = strdup(name), .spec = strdup(spec), .priority = priority};
        s->n++;
        return s->v[s->n - 1].name != NULL && s->v[s->n - 1].spec != NULL ? 0 : -1;
}

static bool has_suffix(const char *s, const char *suffix)
{
        size_t n = strlen(s), m = strlen(suffix);
        return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int read_spec(const char *path, size_t priority, struct scan *s, struct ctk_cdi_catalog *c)
{
        _cleanup_cdi_doc_ struct ctk_cdi_doc doc = {0};
        _cleanup_cdi_report_ struct ctk_cdi_report rep = {0};
        _cleanup_error_ struct ctk_error *err = NULL;
        if (ctk_cdi_load(path, &doc, &rep, &err) < 0)
                return problem(c, "%s", err->msg);
        struct ctk_cdi_source src = {.file = path, .text = doc.text, .len = doc.len};
        if (doc.root != NULL)
                ctk_cdi_check(doc.root, &src, &rep);
        if (rep.errors.n > 0)
                return problem(c, "%s (spec skipped: invalid%s)", rep.errors.v[0],
                               rep.errors.n > 1 ? ", and more errors" : "");
        ctk_strv_push(&c->specs, path);
        const char *kind = json_string_value(json_object_get(doc.root, "kind"));
        size_t i;
        const json_t *d;
        json_array_foreach(json_object_get(doc.root, "devices"), i, d)
        {
                _cleanup_free_ char *name = NULL;
                if (asprintf(&name, "%s=%s", kind, json_string_value(json_object_get(d, "name"))) < 0 ||
                    define(s, name, path, priority) < 0)
                        return -1;
        }
        return 0;
}

static int scan_dir(const char *dir, size_t priority, struct scan *s, struct ctk_cdi_catalog *c)
{
        DIR *dp = opendir(dir);
        if (dp == NULL && errno == ENOENT)
                return 0;
        if (dp == NULL)
                return problem(c, "%s: cannot read the directory: %s", dir, strerror(errno));
        struct ctk_strv names _cleanup_strv_ = {0};
        for (struct dirent *e; (e = readdir(dp)) != NULL;)
                if (has_suffix(e->d_name, ".json") || has_suffix(e->d_name, ".yaml"))
                        ctk_strv_push(&names, e->d_name);
        closedir(dp);
        ctk_strv_sort(&names);
        for (size_t i = 0; i < names.n; i++) {
                _cleanup_free_ char *path = NULL;
                size_t len = strlen(dir);
                if (asprintf(&path, "%s%s%s", dir, len > 0 && dir[len - 1] == '/' ? "" : "/", names.v[i]) < 0)
                        return -1;
                struct stat st;
                if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
                        continue;
                if (has_suffix(path, ".yaml")) {
                        if (problem(c, "%s: YAML specs are not read by amd-ctk (CDI runtimes do read them)", path) < 0)
                                return -1;
                        continue;
                }
                if (read_spec(path, priority, s, c) < 0)
                        return -1;
        }
        return 0;
}

static int cmp_offer(const void *a, const void *b)
{
        return ctk_cdi_name_cmp(((const struct ctk_cdi_offer *)a)->name, ((const struct ctk_cdi_offer *)b)->name);
}

int ctk_cdi_catalog_scan(const char *const *dirs, size_t ndirs, struct ctk_cdi_catalog *out, struct ctk_error **err)
{
        *out = (struct ctk_cdi_catalog){0};
        struct scan s = {0};
        int rc = 0;
        for (size_t i = 0; rc == 0 && i < ndirs; i++)
                rc = scan_dir(dirs[i], i, &s, out);
        if (rc == 0) {
                out->offers = calloc(s.n + 1, sizeof(*out->offers));
                out->conflicts = calloc(s.n + 1, sizeof(*out->conflicts));
                rc = out->offers != NULL && out->conflicts != NULL ? 0 : -1;
        }
        for (size_t i = 0; rc == 0 && i < s.n; i++) {
                struct entry *e = &s.v[i];
                if (e->conflict_specs.n > 0) {
                        char *name = ctk_steal(&e->name);
                        out->conflicts[out->nconflicts++] =
                            (struct ctk_cdi_conflict){.name = name, .specs = e->conflict_specs};
                        e->conflict_specs = (struct ctk_strv){0};
                        continue;
                }
                char *name = ctk_steal(&e->name), *spec = ctk_steal(&e->spec);
                out->offers[out->n++] = (struct ctk_cdi_offer){
                    .name = name, .spec = spec, .priority = e->priority, .overrides = e->overrides};
                e->overrides = (struct ctk_strv){0};
        }
        scan_clear(&s);
        if (rc < 0) {
                ctk_cdi_catalog_clear(out);
                return ctk_error_set(err, ENOMEM, "out of memory");
        }
        if (out->n > 1) /* (qsort wants an array, even of none) */
                qsort(out->offers, out->n, sizeof(*out->offers), cmp_offer);
        return 0;
}
