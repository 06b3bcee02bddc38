#include "backends/fakefs/kfd_capture.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/fakefs/kfd_props.h"
#include "core/base/base.h"

/* Reads a whole file; *out is NULL (and 0 returned) when it does not exist
 * and missing_ok. */
int ctk_kfd_capture_slurp(const char *path, bool missing_ok, char **out, struct ctk_error **err)
{
        *out = NULL;
        _cleanup_error_ struct ctk_error *e = NULL;
        _cleanup_free_ char *buf = NULL;
        size_t n = 0;
        if (ctk_file_read_all(path, &buf, &n, &e) < 0) {
                if (e->code == ENOENT && missing_ok)
                        return 0;
                if (e->code == ENOMEM)
                        return ctk_error_set(err, ENOMEM, "out of memory");
                return ctk_error_errno(err, e->code, "reading %s", CTK_CUT(path));
        }
        if (strlen(buf) != n)
                return ctk_error_set(err, EINVAL, "%s: contains a NUL byte", CTK_CUT(path));
        *out = ctk_steal(&buf);
        return 0;
}

static int parse_number(const char *s, uint64_t *out)
{
        return ctk_parse_u64_dec(s, strlen(s), UINT64_MAX, out);
}

int ctk_kfd_capture_parse_props(const char *path, char *text, bool any_value, struct ctk_fakefs_props *out,
                                struct ctk_error **err)
{
        size_t lines = 1;
        for (const char *s = text; *s; s++)
                lines += *s == '\n';
        out->v = calloc(lines, sizeof(*out->v));
        if (out->v == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        char *save = NULL;
        size_t lineno = 0;
        for (char *p = text; p != NULL; p = save) {
                char *nl = strchr(p, '\n');
                save = nl != NULL ? nl + 1 : NULL;
                if (nl != NULL)
                        *nl = '\0';
                lineno++;
                size_t len = strlen(p);
                if (len > 0 && p[len - 1] == '\r')
                        p[--len] = '\0';
                if (len == 0)
                        continue;
                char *sp = strchr(p, ' ');
                uint64_t v;
                if (sp == NULL || sp == p ||
                    (any_value ? strspn(sp + 1, "0123456789,") != strlen(sp + 1) || sp[1] == '\0'
                               : parse_number(sp + 1, &v) < 0))
                        return ctk_error_set(err, EINVAL, "%s:%zu: expected \"key value\" with a decimal value",
                                             CTK_CUT(path), lineno);
                *sp = '\0';
                for (size_t i = 0; i < out->n; i++)
                        if (strcmp(out->v[i].key, p) == 0)
                                return ctk_error_set(err, EINVAL, "%s:%zu: key %s appears twice", CTK_CUT(path), lineno,
                                                     CTK_CUT(p));
                struct ctk_fakefs_prop *pr = &out->v[out->n];
                pr->key = strdup(p);
                pr->value = strdup(sp + 1);
                out->n++;
                if (pr->key == NULL || pr->value == NULL)
                        return ctk_error_set(err, ENOMEM, "out of memory");
        }
        return 0;
}

static int read_number_file(const char *path, bool *has, uint64_t *out, struct ctk_error **err)
{
        _cleanup_free_ char *s = NULL;
        if (ctk_kfd_capture_slurp(path, true, &s, err) < 0)
                return -1;
        *has = s != NULL;
        if (s == NULL)
                return 0;
        s[strcspn(s, "\r\n")] = '\0';
        if (parse_number(s, out) < 0)
                return ctk_error_set(err, EINVAL, "%s: not a decimal number", CTK_CUT(path));
        return 0;
}

static int read_node(const char *dir, int id, struct ctk_kfd_capture_node *n, struct ctk_error **err)
{
        _cleanup_free_ char *pp = NULL, *gp = NULL, *np = NULL, *text = NULL;
        if (asprintf(&pp, "%s/nodes/%d/properties", dir, id) < 0 || asprintf(&gp, "%s/nodes/%d/gpu_id", dir, id) < 0 ||
            asprintf(&np, "%s/nodes/%d/name", dir, id) < 0)
                return ctk_error_set(err, ENOMEM, "out of memory");
        n->id = id;
        if (ctk_kfd_capture_slurp(pp, false, &text, err) < 0 ||
            ctk_kfd_capture_parse_props(pp, text, false, &n->props, err) < 0 ||
            read_number_file(gp, &n->has_gpu_id, &n->gpu_id, err) < 0 ||
            ctk_kfd_capture_slurp(np, true, &n->name, err) < 0)
                return -1;
        if (n->name != NULL)
                n->name[strcspn(n->name, "\r\n")] = '\0';
        return ctk_kfd_capture_read_topo(dir, n, err);
}

static int by_int(const void *a, const void *b)
{
        int x = *(const int *)a, y = *(const int *)b;
        return x < y ? -1 : x > y;
}

int ctk_kfd_capture_read(const char *dir, struct ctk_kfd_capture *out, struct ctk_error **err)
{
        _cleanup_free_ char *nodes = NULL, *gen = NULL;
        if (asprintf(&nodes, "%s/nodes", dir) < 0 || asprintf(&gen, "%s/generation_id", dir) < 0)
                return ctk_error_set(err, ENOMEM, "out of memory");
        DIR *d = opendir(nodes);
        if (d == NULL)
                return ctk_error_errno(err, errno, "%s is not a KFD topology capture: cannot open %s", CTK_CUT(dir),
                                       CTK_CUT(nodes));
        _cleanup_free_ int *ids = NULL;
        size_t n = 0, cap = 0;
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
                uint64_t v;
                if (e->d_name[0] == '.')
                        continue;
                if (parse_number(e->d_name, &v) < 0 || v > CTK_FAKEFS_MAX_KFD_NODE) {
                        ctk_error_set(err, EINVAL, "%s/%s: not a KFD node number", CTK_CUT(nodes), CTK_CUT(e->d_name));
                        closedir(d);
                        return -1;
                }
                if (n == cap) {
                        cap = cap ? cap * 2 : 16;
                        int *nv = realloc(ids, cap * sizeof(*nv));
                        if (nv == NULL) {
                                closedir(d);
                                return ctk_error_set(err, ENOMEM, "out of memory");
                        }
                        ids = nv;
                }
                ids[n++] = (int)v;
        }
        closedir(d);
        if (n == 0)
                return ctk_error_set(err, EINVAL, "%s: no KFD nodes", CTK_CUT(nodes));
        qsort(ids, n, sizeof(*ids), by_int);
        out->nodes = calloc(n, sizeof(*out->nodes));
        if (out->nodes == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < n; i++) {
                out->n++;
                if (read_node(dir, ids[i], &out->nodes[i], err) < 0) {
                        ctk_kfd_capture_clear(out);
                        return -1;
                }
        }
        if (read_number_file(gen, &out->has_generation_id, &out->generation_id, err) < 0) {
                ctk_kfd_capture_clear(out);
                return -1;
        }
        return 0;
}

void ctk_kfd_capture_clear(struct ctk_kfd_capture *c)
{
        for (size_t i = 0; i < c->n; i++) {
                ctk_fakefs_props_clear(&c->nodes[i].props);
                free(c->nodes[i].name);
                ctk_kfd_capture_topo_clear(&c->nodes[i]);
        }
        free(c->nodes);
        c->nodes = NULL;
        c->n = 0;
}

int ctk_kfd_capture_u64(const struct ctk_kfd_capture_node *n, const char *key, uint64_t *out)
{
        const char *v = ctk_fakefs_props_get(&n->props, key);
        if (v == NULL || parse_number(v, out) < 0)
                return -1;
        return 0;
}
