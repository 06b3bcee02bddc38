/* Does the spec of our GPUs still describe this host?  The cheap rule of
 * mode cdi (see stale.h): no discovery, no walk of /sys. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cdi.h"
#include "core/base/base.h"

#define DRI_DIR "/dev/dri"

/* A node as the host has it: a spec-shaped node from stat. */
struct host_node {
        char *path;
        struct ctk_cdi_node node;
};

struct check {
        struct ctk_cdi_report rep;
        struct ctk_cdi_node *spec; /* DRM nodes the spec's devices name */
        size_t nspec;
        struct host_node *host; /* DRM nodes of the host */
        size_t nhost;
};

static void check_clear(struct check *c)
{
        ctk_cdi_report_clear(&c->rep);
        free(c->spec);
        for (size_t i = 0; i < c->nhost; i++)
                free(c->host[i].path);
        free(c->host);
}

static const char *host_path(const struct ctk_cdi_node *n)
{
        return n->host_path != NULL ? n->host_path : n->path;
}

/* "PATH WHAT" */
static void differ(struct check *c, const char *path, const char *what)
{
        char *line = NULL;
        if (asprintf(&line, "%s %s", path, what) >= 0)
                ctk_cdi_report_push(&c->rep.errors, line);
}

static struct ctk_cdi_node from_info(const char *path, const struct ctk_node_info *i)
{
        return (struct ctk_cdi_node){
            .path = path,
            .type = (char)(i->type == CTK_NODE_CHR   ? 'c'
                           : i->type == CTK_NODE_BLK ? 'b'
                                                     : '?'),
            .major = i->major,
            .minor = i->minor,
            .has_mode = true,
            .has_uid = true,
            .has_gid = true,
            .mode = (uint32_t)i->mode,
            .uid = (uint32_t)i->uid,
            .gid = (uint32_t)i->gid,
        };
}

static bool drm_name(const char *s)
{
        const char *digits = strncmp(s, "card", 4) == 0 ? s + 4 : strncmp(s, "renderD", 7) == 0 ? s + 7 : NULL;
        return digits != NULL && digits[0] != '\0' && strspn(digits, "0123456789") == strlen(digits);
}

/* The card and render nodes under /dev/dri, as stat sees them. */
static int host_nodes(struct ctk_backend *b, struct check *c, struct ctk_error **err)
{
        struct ctk_strv names _cleanup_strv_ = {0};
        _cleanup_error_ struct ctk_error *e = NULL;
        if (ctk_list_dir(b, DRI_DIR, &names, &e) < 0) {
                if (e->code == ENOENT || e->code == ENOTDIR)
                        return 0;
                *err = ctk_steal(&e);
                return ctk_error_prefix(err, "listing " DRI_DIR);
        }
        struct ctk_strv paths _cleanup_strv_ = {0};
        for (size_t i = 0; i < names.n; i++) {
                char *p = drm_name(names.v[i]) ? ctk_str_concat(DRI_DIR "/", names.v[i], NULL) : NULL;
                if (drm_name(names.v[i]) && ctk_strv_push_take(&paths, p) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
        }
        _cleanup_free_ struct ctk_node_info *info = calloc(paths.n + 1, sizeof(*info));
        _cleanup_free_ int *errs = calloc(paths.n + 1, sizeof(*errs));
        c->host = calloc(paths.n + 1, sizeof(*c->host));
        if (info == NULL || errs == NULL || c->host == NULL ||
            ctk_node_stat_batch(b, (const char *const *)paths.v, paths.n, info, errs, err) < 0)
                return ctk_error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < paths.n; i++) {
                if (errs[i] != 0 || info[i].type != CTK_NODE_CHR)
                        continue;
                struct host_node *h = &c->host[c->nhost++];
                h->path = ctk_steal(&paths.v[i]);
                h->node = from_info(h->path, &info[i]);
        }
        return 0;
}

struct ranked {
        struct ctk_cdi_node node;
        size_t seq;
};

static int by_path(const void *a, const void *b)
{
        const struct ranked *x = a, *y = b;
        int c = strcmp(host_path(&x->node), host_path(&y->node));
        return c != 0 ? c : x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The DRM nodes the devices of kind name, sorted by path (the first
 * statement of a path counts). */
static int spec_nodes(const struct ctk_cdi_cache *cache, const char *kind, struct check *c, struct ctk_error **err)
{
        size_t first, n, cap = 0, count = 0;
        ctk_cdi_cache_kind_range(cache, kind, &first, &n);
        _cleanup_free_ struct ranked *v = NULL;
        for (size_t i = first; i < first + n; i++) {
                _cleanup_cdi_edits_ struct ctk_cdi_edits e = {0};
                if (ctk_cdi_edits_from_json(json_object_get(cache->devices[i].device, "containerEdits"), &e, err) < 0)
                        return -1;
                for (size_t j = 0; j < e.nnodes; j++) {
                        if (strncmp(host_path(&e.nodes[j]), DRI_DIR "/", strlen(DRI_DIR) + 1) != 0)
                                continue;
                        if (count == cap) {
                                cap = cap ? 2 * cap : 64;
                                struct ranked *grown = realloc(v, cap * sizeof(*v));
                                if (grown == NULL)
                                        return ctk_error_set(err, ENOMEM, "out of memory");
                                v = grown;
                        }
                        v[count] = (struct ranked){e.nodes[j], count};
                        count++;
                }
        }
        if (count > 1)
                qsort(v, count, sizeof(*v), by_path);
        c->spec = calloc(count + 1, sizeof(*c->spec));
        if (c->spec == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < count; i++)
                if (i == 0 || strcmp(host_path(&v[i].node), host_path(&v[i - 1].node)) != 0)
                        c->spec[c->nspec++] = v[i].node;
        return 0;
}

static int cmp_host(const void *key, const void *elem)
{
        return strcmp(key, ((const struct host_node *)elem)->path);
}

static int cmp_spec(const void *key, const void *elem)
{
        return strcmp(key, host_path(elem));
}

/* (both lists are sorted by path: list_dir sorts names) */
static const struct host_node *host_at(const struct check *c, const char *path)
{
        return c->nhost > 0 ? bsearch(path, c->host, c->nhost, sizeof(*c->host), cmp_host) : NULL;
}

static bool spec_has(const struct check *c, const char *path)
{
        return c->nspec > 0 && bsearch(path, c->spec, c->nspec, sizeof(*c->spec), cmp_spec) != NULL;
}

/* An AMD GPU's node: a partition's (its device is amdgpu_xcp_N), or one of
 * a PCI function of vendor 0x1002.  Two reads of /sys for a node the spec
 * does not name; none when the spec names them all. */
static bool is_amd(struct ctk_backend *b, const char *path)
{
        const char *slash = strrchr(path, '/'), *name = slash != NULL ? slash + 1 : path;
        _cleanup_free_ char *link = ctk_str_concat("/sys/class/drm/", name, NULL);
        _cleanup_free_ char *vendor_path = ctk_str_concat(link, "/device/vendor", NULL);
        _cleanup_free_ char *target = NULL, *vendor = NULL;
        _cleanup_error_ struct ctk_error *e1 = NULL, *e2 = NULL;
        size_t len;
        if (link == NULL || vendor_path == NULL)
                return true;
        if (ctk_read_link(b, link, &target, &e1) == 0 && strstr(target, "/amdgpu_xcp") != NULL)
                return true;
        return ctk_read_file(b, vendor_path, &vendor, &len, &e2) == 0 && strncasecmp(vendor, "0x1002", 6) == 0;
}

/* *why: the first difference and how many more; check_clear(c). */
static int verdict(struct check *c, int r, char **why, struct ctk_error **err)
{
        size_t more = c->rep.errors.n > 0 ? c->rep.errors.n - 1 : 0;
        if (r == 0 && c->rep.errors.n > 0 && more == 0 && (*why = strdup(c->rep.errors.v[0])) == NULL)
                r = ctk_error_set(err, ENOMEM, "out of memory");
        if (r == 0 && more > 0 &&
            asprintf(why, "%s (and %zu more difference%s)", c->rep.errors.v[0], more, more > 1 ? "s" : "") < 0)
                r = ctk_error_set(err, ENOMEM, "out of memory");
        check_clear(c);
        return r;
}

int ctk_cdi_stale_dri(const struct ctk_cdi_cache *cache, const char *kind, struct ctk_backend *b, char **why,
                      struct ctk_error **err)
{
        *why = NULL;
        struct check c = {0};
        int r = spec_nodes(cache, kind, &c, err);
        if (r == 0)
                r = host_nodes(b, &c, err);
        for (size_t i = 0; r == 0 && i < c.nspec; i++) {
                const char *p = host_path(&c.spec[i]);
                const struct host_node *h = host_at(&c, p);
                if (h == NULL)
                        differ(&c, p, "is in the spec but not on this host");
                else
                        ctk_cdi_node_compare(strrchr(p, '/') + 1, &c.spec[i], &h->node, &c.rep);
        }
        for (size_t i = 0; r == 0 && i < c.nhost; i++) {
                if (!spec_has(&c, c.host[i].path) && is_amd(b, c.host[i].path))
                        differ(&c, c.host[i].path, "is on this host but not in the spec");
        }
        return verdict(&c, r, why, err);
}

/* The nodes of the requested devices of kind, outside /dev/dri (rule 1
 * compares those): stat'ed and compared with what the spec states. */
static int requested(struct ctk_backend *b, const struct ctk_cdi_resolved *req, const char *kind, struct check *c,
                     struct ctk_error **err)
{
        size_t klen = strlen(kind), total = 0;
        for (size_t i = 0; i < req->n; i++)
                total += req->edits[i].nnodes;
        _cleanup_free_ const char **paths = calloc(total + 1, sizeof(*paths));
        // NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers
        _cleanup_free_ const struct ctk_cdi_node **nodes = calloc(total + 1, sizeof(*nodes));
        _cleanup_free_ const char **devs = calloc(total + 1, sizeof(*devs));
        if (paths == NULL || nodes == NULL || devs == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        size_t k = 0;
        for (size_t i = 0; i < req->n; i++) {
                const struct ctk_cdi_entry *e = req->entries[i];
                if (e == NULL || strncmp(e->name, kind, klen) != 0 || e->name[klen] != '=')
                        continue;
                for (size_t j = 0; j < req->edits[i].nnodes; j++) {
                        const char *p = host_path(&req->edits[i].nodes[j]);
                        bool seen = strncmp(p, DRI_DIR "/", strlen(DRI_DIR) + 1) == 0;
                        for (size_t x = 0; !seen && x < k; x++)
                                seen = strcmp(paths[x], p) == 0;
                        if (seen)
                                continue;
                        devs[k] = e->name + klen + 1;
                        nodes[k] = &req->edits[i].nodes[j];
                        paths[k++] = p;
                }
        }
        _cleanup_free_ struct ctk_node_info *info = calloc(k + 1, sizeof(*info));
        _cleanup_free_ int *errs = calloc(k + 1, sizeof(*errs));
        if (info == NULL || errs == NULL || ctk_node_stat_batch(b, paths, k, info, errs, err) < 0)
                return ctk_error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < k; i++) {
                if (errs[i] != 0) {
                        differ(c, paths[i], "does not exist on this host");
                        continue;
                }
                struct ctk_cdi_node h = from_info(paths[i], &info[i]);
                ctk_cdi_node_compare(devs[i], nodes[i], &h, &c->rep);
        }
        return 0;
}

int ctk_cdi_stale_requested(const struct ctk_cdi_resolved *req, const char *kind, struct ctk_backend *b, char **why,
                            struct ctk_error **err)
{
        *why = NULL;
        struct check c = {0};
        return verdict(&c, requested(b, req, kind, &c, err), why, err);
}
