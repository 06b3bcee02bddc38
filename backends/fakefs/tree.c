#include "backends/fakefs/tree.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/base.h"

#define MAX_LINKS 40

static void node_free(struct ctk_fakefs_node *n)
{
        if (n == NULL)
                return;
        for (size_t i = 0; i < n->nkids; i++)
                node_free(n->kids[i]);
        free(n->kids);
        free(n->name);
        free(n->data);
        free(n->write_arg);
        free(n);
}

static struct ctk_fakefs_node *node_new(const char *name, size_t namelen, enum ctk_node_type type, mode_t mode)
{
        struct ctk_fakefs_node *n = calloc(1, sizeof(*n));
        if (n == NULL)
                return NULL;
        n->name = strndup(name, namelen);
        if (n->name == NULL) {
                free(n);
                return NULL;
        }
        n->type = type;
        n->mode = mode;
        return n;
}

int ctk_fakefs_tree_new(struct ctk_fakefs_tree **out, struct ctk_error **err)
{
        struct ctk_fakefs_tree *t = calloc(1, sizeof(*t));
        if (t == NULL || (t->root = node_new("", 0, CTK_NODE_DIR, 0755)) == NULL) {
                free(t);
                return ctk_error_set(err, ENOMEM, "out of memory");
        }
        t->refs = 1;
        *out = t;
        return 0;
}

struct ctk_fakefs_tree *ctk_fakefs_tree_ref(struct ctk_fakefs_tree *t)
{
        __atomic_add_fetch(&t->refs, 1, __ATOMIC_RELAXED);
        return t;
}

void ctk_fakefs_tree_unref(struct ctk_fakefs_tree *t)
{
        if (t == NULL || __atomic_sub_fetch(&t->refs, 1, __ATOMIC_ACQ_REL) != 0)
                return;
        node_free(t->root);
        free(t);
}

/* Index of the first child whose name is >= name[0..len). */
static size_t child_slot(const struct ctk_fakefs_node *dir, const char *name, size_t len, bool *found)
{
        size_t lo = 0, hi = dir->nkids;
        *found = false;
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                const char *k = dir->kids[mid]->name;
                int c = strncmp(k, name, len);
                if (c == 0 && k[len] != '\0')
                        c = 1; /* k is longer: it sorts after name */
                if (c < 0) {
                        lo = mid + 1;
                } else {
                        if (c == 0)
                                *found = true;
                        hi = mid;
                }
        }
        return lo;
}

static const struct ctk_fakefs_node *child_n(const struct ctk_fakefs_node *dir, const char *name, size_t len)
{
        bool found;
        size_t i = child_slot(dir, name, len, &found);
        return found ? dir->kids[i] : NULL;
}

const struct ctk_fakefs_node *ctk_fakefs_node_child(const struct ctk_fakefs_node *dir, const char *name)
{
        if (dir->type != CTK_NODE_DIR)
                return NULL;
        return child_n(dir, name, strlen(name));
}

static int insert_child(struct ctk_fakefs_node *dir, struct ctk_fakefs_node *kid, size_t slot)
{
        if (dir->nkids == dir->capkids) {
                size_t cap = dir->capkids ? dir->capkids * 2 : 4;
                // NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers
                struct ctk_fakefs_node **v = realloc(dir->kids, cap * sizeof(*v));
                if (v == NULL)
                        return -1;
                dir->kids = v;
                dir->capkids = cap;
        }
        // NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers
        memmove(dir->kids + slot + 1, dir->kids + slot, (dir->nkids - slot) * sizeof(*dir->kids));
        dir->kids[slot] = kid;
        dir->nkids++;
        kid->parent = dir;
        return 0;
}

/* Walks (creating directories) to the parent of path's last component;
 * *last points at that component inside path. */
static int make_parents(struct ctk_fakefs_tree *t, const char *path, struct ctk_fakefs_node **parent, const char **last,
                        struct ctk_error **err)
{
        if (path[0] != '/')
                return ctk_error_set(err, EINVAL, "tree path '%s' is not absolute", CTK_CUT(path));
        struct ctk_fakefs_node *dir = t->root;
        const char *p = path;
        for (;;) {
                while (*p == '/')
                        p++;
                const char *end = strchrnul(p, '/');
                const char *next = end;
                while (*next == '/')
                        next++;
                if (*next == '\0') {
                        if (end == p)
                                return ctk_error_set(err, EINVAL, "tree path '%s' has no name", CTK_CUT(path));
                        *parent = dir;
                        *last = p;
                        return 0;
                }
                size_t len = (size_t)(end - p);
                bool found;
                size_t slot = child_slot(dir, p, len, &found);
                if (found) {
                        // NOLINTNEXTLINE(clang-analyzer-core.NullDereference): found means dir has kids (child_slot)
                        dir = dir->kids[slot];
                        if (dir->type != CTK_NODE_DIR)
                                return ctk_error_set(err, ENOTDIR, "tree path '%s': '%s' is not a directory",
                                                     CTK_CUT(path), CTK_CUTN(p, len));
                } else {
                        struct ctk_fakefs_node *d = node_new(p, len, CTK_NODE_DIR, 0755);
                        if (d == NULL || insert_child(dir, d, slot) < 0) {
                                node_free(d);
                                return ctk_error_set(err, ENOMEM, "out of memory");
                        }
                        dir = d;
                }
                p = next;
        }
}

/* Creates the node for path's last component; *out is NULL (and 0 is
 * returned) when it exists as a directory and type is a directory. */
static int add_node(struct ctk_fakefs_tree *t, const char *path, enum ctk_node_type type, mode_t mode,
                    struct ctk_fakefs_node **out, struct ctk_error **err)
{
        struct ctk_fakefs_node *dir = NULL;
        const char *last = NULL;
        if (make_parents(t, path, &dir, &last, err) < 0)
                return -1;
        size_t len = strcspn(last, "/");
        if ((len == 1 && last[0] == '.') || (len == 2 && last[0] == '.' && last[1] == '.'))
                return ctk_error_set(err, EINVAL, "tree path '%s' ends in '.' or '..'", CTK_CUT(path));
        bool found;
        size_t slot = child_slot(dir, last, len, &found);
        if (found) {
                if (type == CTK_NODE_DIR && dir->kids[slot]->type == CTK_NODE_DIR) {
                        *out = NULL;
                        return 0;
                }
                return ctk_error_set(err, EEXIST, "tree path '%s' exists already", CTK_CUT(path));
        }
        struct ctk_fakefs_node *n = node_new(last, len, type, mode);
        if (n == NULL || insert_child(dir, n, slot) < 0) {
                node_free(n);
                return ctk_error_set(err, ENOMEM, "out of memory");
        }
        *out = n;
        return 0;
}

int ctk_fakefs_tree_mkdir(struct ctk_fakefs_tree *t, const char *path, struct ctk_error **err)
{
        struct ctk_fakefs_node *n;
        return add_node(t, path, CTK_NODE_DIR, 0755, &n, err);
}

static int set_data(struct ctk_fakefs_node *n, const char *data, size_t len, struct ctk_error **err)
{
        n->data = malloc(len + 1);
        if (n->data == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        memcpy(n->data, data, len);
        n->data[len] = '\0';
        n->len = len;
        return 0;
}

int ctk_fakefs_tree_add_file(struct ctk_fakefs_tree *t, const char *path, const char *data, size_t len, mode_t mode,
                             struct ctk_fakefs_node **out, struct ctk_error **err)
{
        struct ctk_fakefs_node *n;
        if (add_node(t, path, CTK_NODE_FILE, mode, &n, err) < 0 || set_data(n, data, len, err) < 0)
                return -1;
        if (out != NULL)
                *out = n;
        return 0;
}

int ctk_fakefs_tree_add_filef(struct ctk_fakefs_tree *t, const char *path, struct ctk_error **err, const char *fmt, ...)
{
        _cleanup_free_ char *s = NULL;
        va_list ap;
        va_start(ap, fmt);
        int n = vasprintf(&s, fmt, ap);
        va_end(ap);
        if (n < 0) {
                s = NULL;
                return ctk_error_set(err, ENOMEM, "out of memory");
        }
        return ctk_fakefs_tree_add_file(t, path, s, (size_t)n, 0444, NULL, err);
}

int ctk_fakefs_tree_add_link(struct ctk_fakefs_tree *t, const char *path, const char *target, struct ctk_error **err)
{
        struct ctk_fakefs_node *n;
        if (target[0] == '\0')
                return ctk_error_set(err, EINVAL, "tree link '%s' has an empty target", CTK_CUT(path));
        if (add_node(t, path, CTK_NODE_LINK, 0777, &n, err) < 0)
                return -1;
        return set_data(n, target, strlen(target), err);
}

int ctk_fakefs_tree_add_chr(struct ctk_fakefs_tree *t, const char *path, unsigned int major, unsigned int minor,
                            mode_t mode, uid_t uid, gid_t gid, struct ctk_error **err)
{
        struct ctk_fakefs_node *n;
        if (add_node(t, path, CTK_NODE_CHR, mode, &n, err) < 0)
                return -1;
        n->major = major;
        n->minor = minor;
        n->uid = uid;
        n->gid = gid;
        return 0;
}

/* A stack of directories from the root to the current one. */
struct walk {
        const struct ctk_fakefs_node **v;
        size_t n, cap;
};

static int walk_push(struct walk *w, const struct ctk_fakefs_node *n)
{
        if (w->n == w->cap) {
                size_t cap = w->cap ? w->cap * 2 : 16;
                // NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers
                const struct ctk_fakefs_node **v = realloc(w->v, cap * sizeof(*v));
                if (v == NULL)
                        return -ENOMEM;
                w->v = v;
                w->cap = cap;
        }
        w->v[w->n++] = n;
        return 0;
}

int ctk_fakefs_tree_lookup(const struct ctk_fakefs_tree *t, const char *path, bool follow_final,
                           const struct ctk_fakefs_node **out)
{
        if (path[0] != '/')
                return -EINVAL;
        struct walk w = {0};
        _cleanup_free_ char *rest = strdup(path);
        int rc = 0, links = 0;
        if (rest == NULL || walk_push(&w, t->root) < 0) {
                free(w.v);
                return -ENOMEM;
        }
        const char *p = rest;
        for (;;) {
                while (*p == '/')
                        p++;
                if (*p == '\0')
                        break;
                const char *end = strchrnul(p, '/');
                size_t len = (size_t)(end - p);
                const struct ctk_fakefs_node *cur = w.v[w.n - 1];
                if (cur->type != CTK_NODE_DIR) {
                        rc = -ENOTDIR;
                        break;
                }
                if (len == 1 && p[0] == '.') {
                        p = end;
                        continue;
                }
                if (len == 2 && p[0] == '.' && p[1] == '.') {
                        if (w.n > 1)
                                w.n--;
                        p = end;
                        continue;
                }
                const struct ctk_fakefs_node *kid = child_n(cur, p, len);
                if (kid == NULL) {
                        rc = -ENOENT;
                        break;
                }
                if (kid->type == CTK_NODE_LINK && (*end != '\0' || follow_final)) {
                        if (++links > MAX_LINKS) {
                                rc = -ELOOP;
                                break;
                        }
                        char *next = NULL;
                        if (asprintf(&next, "%s%s", kid->data, end) < 0) {
                                rc = -ENOMEM;
                                break;
                        }
                        if (kid->data[0] == '/')
                                w.n = 1;
                        free(rest);
                        rest = next;
                        p = rest;
                        continue;
                }
                if ((rc = walk_push(&w, kid)) < 0)
                        break;
                p = end;
        }
        if (rc == 0) {
                const struct ctk_fakefs_node *n = w.v[w.n - 1];
                size_t plen = strlen(path);
                if (path[plen - 1] == '/' && n->type != CTK_NODE_DIR)
                        rc = -ENOTDIR;
                else
                        *out = n;
        }
        free(w.v);
        return rc;
}

char *ctk_fakefs_node_path(const struct ctk_fakefs_node *n)
{
        if (n->parent == NULL)
                return strdup("/");
        size_t len = 0;
        for (const struct ctk_fakefs_node *p = n; p->parent != NULL; p = p->parent)
                len += strlen(p->name) + 1;
        char *s = malloc(len + 1);
        if (s == NULL)
                return NULL;
        s[len] = '\0';
        for (const struct ctk_fakefs_node *p = n; p->parent != NULL; p = p->parent) {
                size_t l = strlen(p->name);
                len -= l;
                memcpy(s + len, p->name, l);
                s[--len] = '/';
        }
        return s;
}
