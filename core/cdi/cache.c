/* Loading the CDI spec directories (see cache.h). */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cdi.h"
#include "core/base/base.h"

static void problem_clear(struct ctk_cdi_problem *p)
{
        free(p->path);
        free(p->msg);
        free(p->kind);
        ctk_strv_clear(&p->names);
}

void ctk_cdi_cache_clear(struct ctk_cdi_cache *c)
{
        for (size_t i = 0; i < c->nspecs; i++) {
                free(c->specs[i].path);
                if (c->specs[i].doc != NULL)
                        ctk_cdi_doc_clear(c->specs[i].doc);
                free(c->specs[i].doc);
        }
        free(c->specs);
        for (size_t i = 0; i < c->n; i++) {
                free(c->devices[i].name);
                ctk_strv_clear(&c->devices[i].overrides);
        }
        free(c->devices);
        for (size_t i = 0; i < c->nconflicts; i++) {
                free(c->conflicts[i].name);
                ctk_strv_clear(&c->conflicts[i].specs);
        }
        free(c->conflicts);
        for (size_t i = 0; i < c->nproblems; i++)
                problem_clear(&c->problems[i]);
        free(c->problems);
        ctk_strv_clear(&c->dirs);
        *c = (struct ctk_cdi_cache){0};
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

/* Working state: every qualified name seen, with its current definition. */
struct entry {
        char *name;
        size_t spec, priority;
        const json_t *device;
        struct ctk_strv overrides;
        struct ctk_strv conflict_specs; /* non-empty: conflicting */
};

struct scan {
        struct entry *v;
        size_t n, cap;
        struct ctk_cdi_cache *c;
};

static void scan_clear(struct scan *s)
{
        for (size_t i = 0; i < s->n; i++) {
                free(s->v[i].name);
                ctk_strv_clear(&s->v[i].overrides);
                ctk_strv_clear(&s->v[i].conflict_specs);
        }
        free(s->v);
}

static int push_unique(struct ctk_strv *v, const char *s)
{
        return ctk_strv_contains(v, s) ? 0 : ctk_strv_push(v, s);
}

static int define(struct scan *s, char *name, size_t spec, const json_t *device)
{
        _cleanup_free_ char *owned = name;
        const struct ctk_cdi_spec *sp = &s->c->specs[spec];
        for (size_t i = 0; i < s->n; i++) {
                struct entry *e = &s->v[i];
                if (strcmp(e->name, name) != 0)
                        continue;
                const char *old = s->c->specs[e->spec].path;
                if (sp->priority > e->priority) {
                        if (push_unique(&e->overrides, old) < 0)
                                return -1;
                        e->spec = spec;
                        e->priority = sp->priority;
                        e->device = device;
                        return 0;
                }
                /* same priority: CDI runtimes drop the device altogether */
                return push_unique(&e->conflict_specs, old) < 0 || push_unique(&e->conflict_specs, sp->path) < 0 ? -1
                                                                                                                 : 0;
        }
        if (s->n == s->cap) {
                size_t cap = s->cap ? s->cap * 2 : 16;
                struct entry *v = realloc(s->v, cap * sizeof(*v));
                if (v == NULL)
                        return -1;
                s->v = v;
                s->cap = cap;
        }
        s->v[s->n++] =
            (struct entry){.name = ctk_steal(&owned), .spec = spec, .priority = sp->priority, .device = device};
        return 0;
}

static bool has_suffix(const char *s, const char *suffix)
{
        size_t n = strlen(s), m = strlen(suffix);
        return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int grow(void **v, size_t n, size_t size)
{
        void *p = realloc(*v, (n + 1) * size);
        if (p == NULL)
                return -1;
        *v = p;
        return 0;
}

/* Records a skipped file; what a readable document says of itself (kind,
 * device names) is kept to explain a request it would have served. */
static int skip(struct ctk_cdi_cache *c, const char *path, char *msg, const json_t *root)
{
        _cleanup_free_ char *owned = msg;
        if (msg == NULL || grow((void **)&c->problems, c->nproblems, sizeof(*c->problems)) < 0)
                return -1;
        struct ctk_cdi_problem *p = &c->problems[c->nproblems];
        *p = (struct ctk_cdi_problem){.path = strdup(path), .msg = ctk_steal(&owned)};
        c->nproblems++;
        const char *kind = json_string_value(json_object_get(root, "kind"));
        if (kind != NULL && (p->kind = strdup(kind)) == NULL)
                return -1;
        size_t i;
        const json_t *d;
        json_array_foreach(json_object_get(root, "devices"), i, d)
        {
                const char *name = json_string_value(json_object_get(d, "name"));
                if (name != NULL && ctk_strv_push(&p->names, name) < 0)
                        return -1;
        }
        return p->path != NULL ? 0 : -1;
}

static char *format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *format(const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        char *s = NULL;
        if (vasprintf(&s, fmt, ap) < 0)
                s = NULL;
        va_end(ap);
        return s;
}

static int read_spec(const char *path, size_t priority, struct scan *s)
{
        struct ctk_cdi_cache *c = s->c;
        _cleanup_free_ struct ctk_cdi_doc *doc = calloc(1, sizeof(*doc));
        _cleanup_cdi_report_ struct ctk_cdi_report rep = {0};
        _cleanup_error_ struct ctk_error *err = NULL;
        if (doc == NULL)
                return -1;
        if (ctk_cdi_load(path, doc, &rep, &err) < 0)
                return err->code == ENOMEM ? -1 : skip(c, path, format("%s", err->msg), NULL);
        const struct ctk_cdi_source src = ctk_cdi_doc_source(doc);
        if (doc->root != NULL)
                ctk_cdi_check(doc->root, &src, &rep);
        if (rep.errors.n > 0) {
                int r = skip(c, path,
                             format("%s (spec skipped: invalid%s)", rep.errors.v[0],
                                    rep.errors.n > 1 ? ", and more errors" : ""),
                             doc->root);
                ctk_cdi_doc_clear(doc);
                return r;
        }
        if (grow((void **)&c->specs, c->nspecs, sizeof(*c->specs)) < 0) {
                ctk_cdi_doc_clear(doc);
                return -1;
        }
        struct ctk_cdi_spec *sp = &c->specs[c->nspecs++];
        *sp = (struct ctk_cdi_spec){.path = strdup(path), .priority = priority, .doc = ctk_steal(&doc)};
        sp->kind = json_string_value(json_object_get(sp->doc->root, "kind"));
        if (sp->path == NULL)
                return -1;
        size_t i;
        const json_t *d;
        json_array_foreach(json_object_get(sp->doc->root, "devices"), i, d)
        {
                char *name = format("%s=%s", sp->kind, json_string_value(json_object_get(d, "name")));
                if (name == NULL || define(s, name, c->nspecs - 1, d) < 0)
                        return -1;
        }
        return 0;
}

static int scan_dir(const char *dir, size_t priority, struct scan *s)
{
        DIR *dp = opendir(dir);
        if (dp == NULL && (errno == ENOENT || errno == ENOTDIR))
                return 0;
        if (dp == NULL)
                return skip(s->c, dir, format("%s: cannot read the directory: %s", dir, strerror(errno)), NULL);
        struct ctk_strv names _cleanup_strv_ = {0};
        int rc = 0;
        for (struct dirent *e; rc == 0 && (e = readdir(dp)) != NULL;)
                if (has_suffix(e->d_name, ".json") || has_suffix(e->d_name, ".yaml"))
                        rc = ctk_strv_push(&names, e->d_name);
        closedir(dp);
        if (rc < 0)
                return -1;
        ctk_strv_sort(&names);
        size_t len = strlen(dir);
        for (size_t i = 0; i < names.n; i++) {
                _cleanup_free_ char *path = ctk_str_concat(dir, len > 0 && dir[len - 1] == '/' ? "" : "/", names.v[i]);
                if (path == NULL)
                        return -1;
                struct stat st;
                if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
                        continue;
                if (read_spec(path, priority, s) < 0)
                        return -1;
        }
        return 0;
}

static int cmp_entry(const void *a, const void *b)
{
        return ctk_cdi_name_cmp(((const struct ctk_cdi_entry *)a)->name, ((const struct ctk_cdi_entry *)b)->name);
}

/* Moves the scan's entries into the cache: usable devices and conflicts. */
static int settle(struct scan *s, struct ctk_cdi_cache *c)
{
        c->devices = calloc(s->n + 1, sizeof(*c->devices));
        c->conflicts = calloc(s->n + 1, sizeof(*c->conflicts));
        if (c->devices == NULL || c->conflicts == NULL)
                return -1;
        for (size_t i = 0; i < s->n; i++) {
                struct entry *e = &s->v[i];
                char *name = ctk_steal(&e->name);
                if (e->conflict_specs.n > 0) {
                        c->conflicts[c->nconflicts++] =
                            (struct ctk_cdi_conflict){.name = name, .specs = e->conflict_specs};
                        e->conflict_specs = (struct ctk_strv){0};
                        continue;
                }
                c->devices[c->n++] = (struct ctk_cdi_entry){
                    .name = name, .spec = e->spec, .device = e->device, .overrides = e->overrides};
                e->overrides = (struct ctk_strv){0};
        }
        if (c->n > 1) /* (qsort wants an array, even of none) */
                qsort(c->devices, c->n, sizeof(*c->devices), cmp_entry);
        return 0;
}

int ctk_cdi_cache_load(const char *const *dirs, size_t ndirs, struct ctk_cdi_cache *out, struct ctk_error **err)
{
        *out = (struct ctk_cdi_cache){0};
        struct scan s = {.c = out};
        int rc = 0;
        for (size_t i = 0; rc == 0 && i < ndirs; i++)
                rc = ctk_strv_push(&out->dirs, dirs[i]);
        for (size_t i = 0; rc == 0 && i < ndirs; i++)
                rc = scan_dir(dirs[i], i, &s);
        if (rc == 0)
                rc = settle(&s, out);
        scan_clear(&s);
        if (rc < 0) {
                ctk_cdi_cache_clear(out);
                return ctk_error_set(err, ENOMEM, "out of memory");
        }
        return 0;
}

static int cmp_key(const void *key, const void *elem)
{
        return ctk_cdi_name_cmp(key, ((const struct ctk_cdi_entry *)elem)->name);
}

const struct ctk_cdi_entry *ctk_cdi_cache_find(const struct ctk_cdi_cache *c, const char *name)
{
        if (c->n == 0)
                return NULL;
        return bsearch(name, c->devices, c->n, sizeof(*c->devices), cmp_key);
}

/* Whether qualified name q has kind (q = kind "=" name). */
static bool of_kind(const char *q, const char *kind, size_t klen)
{
        return strncmp(q, kind, klen) == 0 && q[klen] == '=';
}

void ctk_cdi_cache_kind_range(const struct ctk_cdi_cache *c, const char *kind, size_t *first, size_t *n)
{
        size_t klen = strlen(kind), i = 0;
        while (i < c->n && !of_kind(c->devices[i].name, kind, klen))
                i++;
        *first = i;
        while (i < c->n && of_kind(c->devices[i].name, kind, klen))
                i++;
        *n = i - *first;
}
