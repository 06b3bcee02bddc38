#include "devnode.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/base.h"

static int from_info(const char *path, const struct ctk_node_info *info, struct ctk_devnode *out,
                     struct ctk_error **err);

int ctk_devnode_stat(struct ctk_backend *b, const char *path, struct ctk_devnode *out, struct ctk_error **err)
{
        struct ctk_node_info info;
        struct ctk_error *serr = NULL;
        if (ctk_stat_node(b, path, &info, &serr) < 0) {
                int code = serr != NULL ? serr->code : EIO;
                if (code == ENOENT) {
                        ctk_error_free(serr);
                        return ctk_error_set(err, ENOENT, "device node %s does not exist", CTK_CUT(path));
                }
                ctk_error_set_msg(err, code, serr != NULL ? serr->msg : "stat failed");
                ctk_error_prefix(err, "device node %s", CTK_CUT(path));
                ctk_error_free(serr);
                return -1;
        }
        return from_info(path, &info, out, err);
}

static int from_info(const char *path, const struct ctk_node_info *info, struct ctk_devnode *out,
                     struct ctk_error **err)
{
        if (info->type != CTK_NODE_CHR && info->type != CTK_NODE_BLK)
                return ctk_error_set(err, ENODEV, "device node %s: not a character or block device", CTK_CUT(path));
        char *p = strdup(path);
        if (p == NULL)
                return ctk_error_set(err, ENOMEM, "device node %s: out of memory", CTK_CUT(path));
        *out = (struct ctk_devnode){
            .path = p,
            .type = info->type == CTK_NODE_CHR ? 'c' : 'b',
            .major = info->major,
            .minor = info->minor,
            .mode = info->mode,
            .uid = info->uid,
            .gid = info->gid,
        };
        return 0;
}

void ctk_devnode_clear(struct ctk_devnode *d)
{
        if (d == NULL)
                return;
        free(d->path);
        d->path = NULL;
}

/* The length of the directory part of path ("/dev/dri" of "/dev/dri/card0"), 0 for none. */
static size_t dir_len(const char *path)
{
        const char *slash = strrchr(path, '/');
        return slash != NULL && slash != path ? (size_t)(slash - path) : 0;
}

/* Stats what the backend can of paths[from..to), all in one directory of
 * length dlen, in one go (info[i - from], done[i - from]); nothing when
 * it offers no such call. */
static int stat_entries(struct ctk_backend *b, const char *const *paths, size_t from, size_t to, size_t dlen,
                        struct ctk_node_info *info, bool *done)
{
        size_t n = to - from;
        for (size_t i = 0; i < n; i++)
                done[i] = false;
        if (n < 2 || b->ops->stat_entries == NULL)
                return 0;
        _cleanup_free_ const char **names = calloc(n, sizeof(*names));
        _cleanup_free_ char *dir = strndup(paths[from], dlen);
        if (names == NULL || dir == NULL)
                return -1;
        for (size_t i = 0; i < n; i++)
                names[i] = paths[from + i] + dlen + 1;
        b->ops->stat_entries(b->ctx, dir, names, n, info, done);
        return 0;
}

/* The end of the run of paths from i that share a directory (its length in *dlen). */
static size_t run_end(const char *const *paths, size_t i, size_t n, size_t *dlen)
{
        *dlen = dir_len(paths[i]);
        size_t j = i + 1;
        while (j<n && * dlen> 0 && dir_len(paths[j]) == *dlen && memcmp(paths[j], paths[i], *dlen) == 0)
                j++;
        return j;
}

/* Stats paths[from..to), all in one directory of length dlen. */
static int stat_run(struct ctk_backend *b, const char *const *paths, size_t from, size_t to, size_t dlen,
                    struct ctk_devnode *out, size_t *failed, struct ctk_error **err)
{
        size_t n = to - from;
        _cleanup_free_ struct ctk_node_info *info = calloc(n, sizeof(*info));
        _cleanup_free_ bool *done = calloc(n, sizeof(*done));
        if (info == NULL || done == NULL || stat_entries(b, paths, from, to, dlen, info, done) < 0)
                return ctk_error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < n; i++) {
                const char *path = paths[from + i];
                int r = done[i] ? from_info(path, &info[i], &out[from + i], err)
                                : ctk_devnode_stat(b, path, &out[from + i], err);
                if (r < 0) {
                        *failed = from + i;
                        return -1;
                }
        }
        return 0;
}

int ctk_node_stat_batch(struct ctk_backend *b, const char *const *paths, size_t n, struct ctk_node_info *out, int *errs,
                        struct ctk_error **err)
{
        for (size_t i = 0; i < n;) {
                size_t dlen, j = run_end(paths, i, n, &dlen);
                _cleanup_free_ bool *done = calloc(j - i, sizeof(*done));
                if (done == NULL || stat_entries(b, paths, i, j, dlen, out + i, done) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
                for (size_t k = i; k < j; k++) {
                        errs[k] = 0;
                        if (done[k - i])
                                continue;
                        _cleanup_error_ struct ctk_error *e = NULL;
                        if (ctk_stat_node(b, paths[k], &out[k], &e) < 0)
                                errs[k] = e != NULL && e->code != 0 ? e->code : EIO;
                }
                i = j;
        }
        return 0;
}

int ctk_devnode_stat_many(struct ctk_backend *b, const char *const *paths, size_t n, struct ctk_devnode *out,
                          size_t *failed, struct ctk_error **err)
{
        for (size_t i = 0; i < n; i++)
                out[i] = (struct ctk_devnode){0};
        for (size_t i = 0; i < n;) {
                size_t dlen, j = run_end(paths, i, n, &dlen);
                if (stat_run(b, paths, i, j, dlen, out, failed, err) < 0) {
                        for (size_t k = 0; k < n; k++)
                                ctk_devnode_clear(&out[k]);
                        return -1;
                }
                i = j;
        }
        return 0;
}
