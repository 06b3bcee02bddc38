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

/* Working state: every definition of a device, in reading order; settled
 * by sorting them by name (n log n: a spec of 40,000 devices took 13.7 s
 * when each was compared with all before it). */
struct def {
        char *name;
        size_t spec, seq; /* seq: its place in reading order */
        const json_t *device;
};

struct scan {
        struct def *v;
        size_t n, cap;
        struct ctk_cdi_cache *c;
};

static void scan_clear(struct scan *s)
{
        for (size_t i = 0; i < s->n; i++)
                free(s->v[i].name);
        free(s->v);
}

static int push_unique(struct ctk_strv *v, const char *s)
{
        return ctk_strv_contains(v, s) ? 0 : ctk_strv_push(v, s);
}

static int define(struct scan *s, char *name, size_t spec, const json_t *device)
{
        if (s->n == s->cap) {
                size_t cap = s->cap ? s->cap * 2 : 64;
                struct def *v = realloc(s->v, cap * sizeof(*v));
                if (v == NULL) {
                        free(name);
                        return -1;
                }
                s->v = v;
                s->cap = cap;
        }
        s->v[s->n] = (struct def){.name = name, .spec = spec, .seq = s->n, .device = device};
        s->n++;
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
 * device names: devices, when not NULL) is kept to explain a request it
 * would have served. */
static int skip(struct ctk_cdi_cache *c, const char *path, char *msg, const char *kind, const json_t *devices)
{
        _cleanup_free_ char *owned = msg;
        if (msg == NULL || grow((void **)&c->problems, c->nproblems, sizeof(*c->problems)) < 0)
                return -1;
        struct ctk_cdi_problem *p = &c->problems[c->nproblems];
        *p = (struct ctk_cdi_problem){.path = strdup(path), .msg = ctk_steal(&owned)};
        c->nproblems++;
        if (kind != NULL && (p->kind = strdup(kind)) == NULL)
                return -1;
        size_t i;
        const json_t *d;
        json_array_foreach(devices, i, d)
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
        /* only a file no one but root (or us) can have written */
        if (ctk_cdi_load_trusted(path, doc, &rep, &err) < 0)
                return err->code == ENOMEM ? -1 : skip(c, path, format("%s (spec skipped)", err->msg), NULL, NULL);
        const char *kind = json_string_value(json_object_get(doc->root, "kind"));
        const json_t *devices = json_object_get(doc->root, "devices");
        size_t ndevices = json_array_size(devices);
        if (ndevices > CTK_CDI_MAX_DEVICES) { /* (not checked, not listed) */
                int r = skip(c, path,
                             format("%s has %zu devices, more than the %d a spec may have (spec skipped)", path,
                                    ndevices, CTK_CDI_MAX_DEVICES),
                             kind, NULL);
                ctk_cdi_doc_clear(doc);
                return r;
        }
        const struct ctk_cdi_source src = ctk_cdi_doc_source(doc);
        if (doc->root != NULL)
                ctk_cdi_check(doc->root, &src, &rep);
        if (rep.errors.n > 0) {
                int r = skip(c, path,
                             format("%s (spec skipped: invalid%s)", rep.errors.v[0],
                                    rep.errors.n + rep.more_errors > 1 ? ", and more errors" : ""),
                             kind, devices);
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
        /* a directory another user could change: none of its specs */
        _cleanup_error_ struct ctk_error *err = NULL;
        if (ctk_trust_dir(dir, &err) < 0) {
                if (err->code == ENOENT || err->code == ENOTDIR)
                        return 0;
                return err->code == ENOMEM ? -1
                                           : skip(s->c, dir, format("%s (directory skipped)", err->msg), NULL, NULL);
        }
        DIR *dp = opendir(dir);
        if (dp == NULL && (errno == ENOENT || errno == ENOTDIR))
                return 0;
        if (dp == NULL)
                return skip(s->c, dir, format("%s: cannot read the directory: %s", dir, strerror(errno)), NULL, NULL);
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

/* Definitions by name, then in reading order (lower priority first). */
static int cmp_def(const void *a, const void *b)
{
        const struct def *x = a, *y = b;
        int c = ctk_cdi_name_cmp(x->name, y->name);
        if (c != 0)
                return c;
        return (x->seq > y->seq) - (x->seq < y->seq);
}

/* The definitions of one name (v[0..n), in reading order) as CDI runtimes
 * take them: a higher priority replaces a lower one; a second definition
 * at the same priority makes a conflict, which a later, higher one does
 * not lift. */
static int settle_name(const struct ctk_cdi_cache *c, struct def *v, size_t n, struct ctk_cdi_entry *e,
                       struct ctk_strv *conflict)
{
        *e = (struct ctk_cdi_entry){.spec = v[0].spec, .device = v[0].device};
        e->name = ctk_steal(&v[0].name);
        for (size_t i = 1; i < n; i++) {
                const char *old = c->specs[e->spec].path;
                if (c->specs[v[i].spec].priority > c->specs[e->spec].priority) {
                        if (push_unique(&e->overrides, old) < 0)
                                return -1;
                        e->spec = v[i].spec;
                        e->device = v[i].device;
                } else if (push_unique(conflict, old) < 0 || push_unique(conflict, c->specs[v[i].spec].path) < 0) {
                        return -1;
                }
        }
        return 0;
}

/* Moves the scan's definitions into the cache: usable devices (in name
 * order) and conflicts. */
static int settle(struct scan *s, struct ctk_cdi_cache *c)
{
        c->devices = calloc(s->n + 1, sizeof(*c->devices));
        c->conflicts = calloc(s->n + 1, sizeof(*c->conflicts));
        if (c->devices == NULL || c->conflicts == NULL)
                return -1;
        if (s->n > 1)
                qsort(s->v, s->n, sizeof(*s->v), cmp_def);
        for (size_t i = 0, j; i < s->n; i = j) {
                for (j = i + 1; j < s->n && strcmp(s->v[j].name, s->v[i].name) == 0;)
                        j++;
                struct ctk_cdi_entry e;
                struct ctk_strv conflict = {0};
                if (settle_name(c, &s->v[i], j - i, &e, &conflict) < 0) {
                        free(e.name);
                        ctk_strv_clear(&e.overrides);
                        ctk_strv_clear(&conflict);
                        return -1;
                }
                if (conflict.n > 0) {
                        c->conflicts[c->nconflicts++] = (struct ctk_cdi_conflict){.name = e.name, .specs = conflict};
                        ctk_strv_clear(&e.overrides);
                } else {
                        c->devices[c->n++] = e;
                }
        }
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
