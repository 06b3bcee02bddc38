/* A captured KFD node's io_links/, p2p_links/, mem_banks/ and caches/:
 * entries 0..n-1, each a properties file (and a bank's used_memory). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/fakefs/kfd_capture.h"
#include "backends/fakefs/kfd_props.h"
#include "core/base/base.h"

/* How many numbered entries dir has (0..n-1, none missing); -1 if it does not exist. */
static int count_entries(const char *dir, size_t *n, struct ctk_error **err)
{
        DIR *d = opendir(dir);
        if (d == NULL) {
                if (errno == ENOENT)
                        return -1;
                return ctk_error_errno(err, errno, "cannot open %s", dir) - 1;
        }
        size_t count = 0;
        unsigned long max = 0;
        struct dirent *e;
        bool bad = false;
        while ((e = readdir(d)) != NULL) {
                if (e->d_name[0] == '.')
                        continue;
                uint64_t v;
                if (ctk_parse_u64_dec(e->d_name, strlen(e->d_name), 65535, &v) < 0) {
                        bad = true;
                        break;
                }
                count++;
                if (v > max)
                        max = (unsigned long)v;
        }
        closedir(d);
        if (bad || (count > 0 && max + 1 != count))
                return ctk_error_set(err, EINVAL, "%s: entries are not numbered 0 to N-1", dir) - 1;
        *n = count;
        return 0;
}

/* node/what's path (*dir) and entry count; 1 when it exists, 0 when not, -1 on error. */
static int open_entries(const char *node, const char *what, char **dir, size_t *n, bool *present,
                        struct ctk_error **err)
{
        if (asprintf(dir, "%s/%s", node, what) < 0) {
                *dir = NULL;
                return ctk_error_set(err, ENOMEM, "out of memory");
        }
        int rc = count_entries(*dir, n, err);
        if (rc == -1 && *err == NULL)
                return 0;
        if (rc < 0)
                return -1;
        *present = true;
        return 1;
}

static int read_props(const char *path, bool any, struct ctk_fakefs_props *out, struct ctk_error **err)
{
        _cleanup_free_ char *text = NULL;
        if (ctk_kfd_capture_slurp(path, false, &text, err) < 0)
                return -1;
        return ctk_kfd_capture_parse_props(path, text, any, out, err);
}

static int read_links(const char *node, int id, const char *what, struct ctk_kfd_capture_links *out,
                      struct ctk_error **err)
{
        _cleanup_free_ char *dir = NULL;
        size_t n = 0;
        int rc = open_entries(node, what, &dir, &n, &out->present, err);
        if (rc <= 0)
                return rc;
        if ((out->v = calloc(n + 1, sizeof(*out->v))) == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *path = NULL;
                struct ctk_fakefs_props all = {0};
                if (asprintf(&path, "%s/%zu/properties", dir, i) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
                if (read_props(path, false, &all, err) < 0) {
                        ctk_fakefs_props_clear(&all);
                        return -1;
                }
                struct ctk_kfd_capture_link *l = &out->v[out->n++];
                const char *from = ctk_fakefs_props_get(&all, "node_from"), *to = ctk_fakefs_props_get(&all, "node_to");
                uint64_t f, t;
                if (from == NULL || to == NULL ||
                    ctk_parse_u64_dec(from, strlen(from), CTK_FAKEFS_MAX_KFD_NODE, &f) < 0 ||
                    ctk_parse_u64_dec(to, strlen(to), CTK_FAKEFS_MAX_KFD_NODE, &t) < 0 || (int)f != id ||
                    (i > 0 && (int)t <= out->v[i - 1].to)) {
                        ctk_fakefs_props_clear(&all);
                        return ctk_error_set(err, EINVAL,
                                             "%s: node_from must be %d and node_to ascend from one link to the next",
                                             path, id);
                }
                l->to = (int)t;
                /* keep the others in order */
                l->props.v = calloc(all.n, sizeof(*l->props.v));
                if (l->props.v == NULL) {
                        ctk_fakefs_props_clear(&all);
                        return ctk_error_set(err, ENOMEM, "out of memory");
                }
                for (size_t k = 0; k < all.n; k++) {
                        if (strcmp(all.v[k].key, "node_from") == 0 || strcmp(all.v[k].key, "node_to") == 0) {
                                free(all.v[k].key);
                                free(all.v[k].value);
                                continue;
                        }
                        l->props.v[l->props.n++] = all.v[k];
                }
                free(all.v);
        }
        return 0;
}

static int read_sets(const char *node, const char *what, bool banks, struct ctk_kfd_capture_sets *out,
                     struct ctk_error **err)
{
        _cleanup_free_ char *dir = NULL;
        size_t n = 0;
        int rc = open_entries(node, what, &dir, &n, &out->present, err);
        if (rc <= 0)
                return rc;
        if ((out->v = calloc(n + 1, sizeof(*out->v))) == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *path = NULL, *used = NULL, *upath = NULL;
                struct ctk_fakefs_props *p = &out->v[out->n++];
                if (asprintf(&path, "%s/%zu/properties", dir, i) < 0 ||
                    asprintf(&upath, "%s/%zu/used_memory", dir, i) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
                if (read_props(path, !banks, p, err) < 0 ||
                    (banks && ctk_kfd_capture_slurp(upath, true, &used, err) < 0))
                        return -1;
                if (used == NULL)
                        continue;
                used[strcspn(used, "\r\n")] = '\0';
                uint64_t v;
                if (ctk_parse_u64_dec(used, strlen(used), UINT64_MAX, &v) < 0)
                        return ctk_error_set(err, EINVAL, "%s: not a decimal number", upath);
                struct ctk_fakefs_prop *nv = realloc(p->v, (p->n + 1) * sizeof(*nv));
                if (nv == NULL)
                        return ctk_error_set(err, ENOMEM, "out of memory");
                p->v = nv;
                p->v[p->n].key = strdup("used_memory");
                p->v[p->n].value = ctk_steal(&used);
                if (p->v[p->n++].key == NULL)
                        return ctk_error_set(err, ENOMEM, "out of memory");
        }
        return 0;
}

int ctk_kfd_capture_read_topo(const char *dir, struct ctk_kfd_capture_node *n, struct ctk_error **err)
{
        _cleanup_free_ char *node = NULL;
        if (asprintf(&node, "%s/nodes/%d", dir, n->id) < 0)
                return ctk_error_set(err, ENOMEM, "out of memory");
        if (read_links(node, n->id, "io_links", &n->io, err) < 0 ||
            read_links(node, n->id, "p2p_links", &n->p2p, err) < 0 ||
            read_sets(node, "mem_banks", true, &n->banks, err) < 0 ||
            read_sets(node, "caches", false, &n->caches, err) < 0)
                return -1;
        return 0;
}

static void links_clear(struct ctk_kfd_capture_links *l)
{
        for (size_t i = 0; i < l->n; i++)
                ctk_fakefs_props_clear(&l->v[i].props);
        free(l->v);
}

static void sets_clear(struct ctk_kfd_capture_sets *s)
{
        for (size_t i = 0; i < s->n; i++)
                ctk_fakefs_props_clear(&s->v[i]);
        free(s->v);
}

void ctk_kfd_capture_topo_clear(struct ctk_kfd_capture_node *n)
{
        links_clear(&n->io);
        links_clear(&n->p2p);
        sets_clear(&n->banks);
        sets_clear(&n->caches);
}
