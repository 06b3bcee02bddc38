/* The in-memory backend: answers the vtable of core/device/backend.h from a host's
 * current tree, exactly as the sysfs backend answers on a materialized copy
 * of the same tree.  Each call works on one snapshot. */
#include "backends/fakefs/backend.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/open.h"
#include "core/base/base.h"

struct fakefs_ctx {
        struct ctk_fakefs_host *host;
};

static int lookup(struct fakefs_ctx *c, const char *what, const char *path, bool follow, struct ctk_fakefs_tree **snap,
                  const struct ctk_fakefs_node **n, struct ctk_error **err)
{
        *snap = ctk_fakefs_host_snapshot(c->host);
        int rc = ctk_fakefs_tree_lookup(*snap, path, follow, n);
        if (rc < 0)
                return ctk_error_errno(err, -rc, "%s %s", CTK_CUT(what), CTK_CUT(path));
        return 0;
}

static int fakefs_read_file(void *ctx, const char *path, char **out, size_t *len, struct ctk_error **err)
{
        _cleanup_fakefs_tree_ struct ctk_fakefs_tree *snap = NULL;
        const struct ctk_fakefs_node *n;
        if (lookup(ctx, "reading", path, true, &snap, &n, err) < 0)
                return -1;
        if (n->type == CTK_NODE_DIR)
                return ctk_error_errno(err, EISDIR, "reading %s", CTK_CUT(path));
        if (n->type != CTK_NODE_FILE)
                return ctk_error_errno(err, EINVAL, "reading %s", CTK_CUT(path));
        char *s = malloc(n->len + 1);
        if (s == NULL)
                return ctk_error_errno(err, ENOMEM, "reading %s", CTK_CUT(path));
        memcpy(s, n->data, n->len + 1);
        *out = s;
        if (len != NULL)
                *len = n->len;
        return 0;
}

static int fakefs_list_dir(void *ctx, const char *path, struct ctk_strv *names, struct ctk_error **err)
{
        _cleanup_fakefs_tree_ struct ctk_fakefs_tree *snap = NULL;
        const struct ctk_fakefs_node *n;
        if (lookup(ctx, "listing", path, true, &snap, &n, err) < 0)
                return -1;
        if (n->type != CTK_NODE_DIR)
                return ctk_error_errno(err, ENOTDIR, "listing %s", CTK_CUT(path));
        for (size_t i = 0; i < n->nkids; i++)
                if (ctk_strv_push(names, n->kids[i]->name) < 0)
                        return ctk_error_errno(err, ENOMEM, "listing %s", CTK_CUT(path));
        return 0;
}

static int fakefs_stat_node(void *ctx, const char *path, struct ctk_node_info *out, struct ctk_error **err)
{
        _cleanup_fakefs_tree_ struct ctk_fakefs_tree *snap = NULL;
        const struct ctk_fakefs_node *n;
        if (lookup(ctx, "stat", path, true, &snap, &n, err) < 0)
                return -1;
        *out = (struct ctk_node_info){
            .type = n->type,
            .mode = n->mode & 07777,
            .major = n->type == CTK_NODE_CHR ? n->major : 0,
            .minor = n->type == CTK_NODE_CHR ? n->minor : 0,
            .uid = n->uid,
            .gid = n->gid,
        };
        return 0;
}

static int fakefs_read_link(void *ctx, const char *path, char **target, struct ctk_error **err)
{
        _cleanup_fakefs_tree_ struct ctk_fakefs_tree *snap = NULL;
        const struct ctk_fakefs_node *n;
        if (lookup(ctx, "readlink", path, false, &snap, &n, err) < 0)
                return -1;
        if (n->type != CTK_NODE_LINK)
                return ctk_error_errno(err, EINVAL, "readlink %s", CTK_CUT(path));
        if ((*target = strdup(n->data)) == NULL)
                return ctk_error_errno(err, ENOMEM, "readlink %s", CTK_CUT(path));
        return 0;
}

static void fakefs_destroy(void *ctx)
{
        struct fakefs_ctx *c = ctx;
        if (c == NULL)
                return;
        ctk_fakefs_host_unref(c->host);
        free(c);
}

static const struct ctk_backend_ops fakefs_ops = {
    .read_file = fakefs_read_file,
    .list_dir = fakefs_list_dir,
    .stat_node = fakefs_stat_node,
    .read_link = fakefs_read_link,
    .destroy = fakefs_destroy,
};

int ctk_fakefs_backend_from_host(struct ctk_fakefs_host *host, struct ctk_backend **out, struct ctk_error **err)
{
        struct ctk_backend *b = calloc(1, sizeof(*b));
        struct fakefs_ctx *c = calloc(1, sizeof(*c));
        if (b == NULL || c == NULL ||
            asprintf(&b->description, "profile %s", ctk_fakefs_host_profile(host)->path) < 0) {
                free(b);
                free(c);
                return ctk_error_set(err, ENOMEM, "out of memory");
        }
        c->host = ctk_fakefs_host_ref(host);
        b->ops = &fakefs_ops;
        b->ctx = c;
        *out = b;
        return 0;
}

int ctk_fakefs_backend_new(const char *profile_path, struct ctk_backend **out, struct ctk_error **err)
{
        _cleanup_fakefs_host_ struct ctk_fakefs_host *host = NULL;
        if (ctk_fakefs_host_new(profile_path, &host, err) < 0)
                return -1;
        return ctk_fakefs_backend_from_host(host, out, err);
}
