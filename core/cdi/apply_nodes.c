/* Device nodes of container edits: filled from the host the way the CDI
 * reference library does, then checked for conflicts (see apply.h).
 *
 * A node is "minimally specified" when it has a type and a major number
 * (or is a FIFO).  The host node is stat'ed unless the node is minimally
 * specified and has its fileMode: then nothing would be taken from it.
 * A failed stat is an error only for a node that is not minimally
 * specified.  From a host node: the fileMode when unset; for a node not
 * minimally specified also the type (a different stated type is an error)
 * and, when the major is unset, the major and minor numbers. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdi.h"
#include "apply.h"
#include "core/base/base.h"

char *ctk_cdi_origin_label(const struct ctk_cdi_origin *o)
{
        if (o->file == NULL)
                return strdup(o->name);
        char *s = NULL;
        return asprintf(&s, "%s (%s)", o->name, o->file) < 0 ? NULL : s;
}

static bool minimal(const struct ctk_cdi_node *n)
{
        return n->type != '\0' && (n->major != 0 || n->type == 'p');
}

static const char *host_path(const struct ctk_cdi_node *n)
{
        return n->host_path != NULL ? n->host_path : n->path;
}

static const char *access_of(const char *permissions)
{
        if (permissions == NULL)
                return "rwm";
        return strcmp(permissions, "none") == 0 ? "" : permissions;
}

static int fail(const struct ctk_cdi_origin *o, struct ctk_error **err, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(const struct ctk_cdi_origin *o, struct ctk_error **err, int code, const char *fmt, ...)
{
        _cleanup_free_ char *label = ctk_cdi_origin_label(o);
        va_list ap;
        va_start(ap, fmt);
        _cleanup_free_ char *what = ctk_vformat(fmt, ap);
        va_end(ap);
        ctk_error_set_msg(err, code, what != NULL ? what : "?");
        return ctk_error_prefix(err, "%s", CTK_CUT(label != NULL ? label : o->name));
}

bool ctk_cdi_node_needs_host(const struct ctk_cdi_node *n)
{
        return !(minimal(n) && n->has_mode);
}

/* One node, filled from its host node (info when stat'ed: ierr 0 or its errno). */
static int fill(const struct ctk_cdi_origin *o, const struct ctk_cdi_node *n, const struct ctk_node_info *info,
                int ierr, json_int_t uid, json_int_t gid, struct ctk_oci_device *d, struct ctk_error **err)
{
        *d = (struct ctk_oci_device){
            .path = n->path,
            .type = n->type,
            .major = n->major,
            .minor = n->minor,
            .has_mode = n->has_mode,
            .mode = n->mode,
            .has_uid = n->has_uid || uid > 0,
            .uid = n->has_uid ? n->uid : (uint32_t)uid,
            .has_gid = n->has_gid || gid > 0,
            .gid = n->has_gid ? n->gid : (uint32_t)gid,
        };
        char host_type = (char)(info == NULL                 ? '\0'
                                : info->type == CTK_NODE_CHR ? 'c'
                                : info->type == CTK_NODE_BLK ? 'b'
                                                             : '\0');
        if (info != NULL && ierr == 0 && host_type == '\0')
                ierr = ENODEV;
        if (info != NULL && ierr != 0 && !minimal(n))
                return fail(o, err, ierr, "device node %s: cannot stat the host device %s: %s", CTK_CUT(n->path),
                            CTK_CUT(host_path(n)), ierr == ENODEV ? "not a device node" : strerror(ierr));
        if (info != NULL && ierr == 0) {
                if (!d->has_mode) {
                        d->has_mode = true;
                        d->mode = (uint32_t)info->mode;
                }
                if (!minimal(n)) {
                        if (d->type == '\0')
                                d->type = host_type;
                        if (d->type != host_type)
                                return fail(o, err, EINVAL,
                                            "device node %s: the spec says type \"%c\", the host device %s is \"%c\"",
                                            CTK_CUT(n->path), d->type, CTK_CUT(host_path(n)), host_type);
                        if (d->major == 0) {
                                d->major = info->major;
                                d->minor = info->minor;
                        }
                }
        }
        if (d->type == 'b' || d->type == 'c')
                d->access = access_of(n->permissions);
        return 0;
}

/* FNV-1a of a string. */
static size_t hash(const char *s)
{
        uint64_t h = 14695981039346656037ULL;
        for (; *s != '\0'; s++)
                h = (h ^ (unsigned char)*s) * 1099511628211ULL;
        return (size_t)h;
}

static bool same_device(const struct ctk_oci_device *a, const struct ctk_oci_device *b)
{
        return a->type == b->type && (a->type == 'p' || (a->major == b->major && a->minor == b->minor));
}

/* Keeps one node per path (open addressing over the kept ones). */
struct kept {
        struct ctk_oci_device *v;
        size_t *origin, *slot, n, mask;
};

static int keep(struct kept *k, const struct ctk_cdi_origin *o, size_t oi, const struct ctk_oci_device *d,
                struct ctk_error **err)
{
        size_t i = hash(d->path) & k->mask;
        for (; k->slot[i] != SIZE_MAX; i = (i + 1) & k->mask) {
                size_t at = k->slot[i];
                // NOLINTNEXTLINE(clang-analyzer-core.NonNullParamChecker): a checked spec's nodes all have a path
                if (strcmp(k->v[at].path, d->path) != 0)
                        continue;
                if (k->origin[at] != oi && !same_device(&k->v[at], d)) {
                        _cleanup_free_ char *a = ctk_cdi_origin_label(&o[k->origin[at]]);
                        _cleanup_free_ char *b = ctk_cdi_origin_label(&o[oi]);
                        return ctk_error_set(err, EEXIST, "%s: %s and %s give different devices", CTK_CUT(d->path),
                                             CTK_CUT(a != NULL ? a : "?"), CTK_CUT(b != NULL ? b : "?"));
                }
                k->v[at] = *d; /* the later edit wins */
                k->origin[at] = oi;
                return 0;
        }
        k->slot[i] = k->n;
        k->origin[k->n] = oi;
        k->v[k->n++] = *d;
        return 0;
}

int ctk_cdi_resolve_nodes(const struct ctk_cdi_origin *o, size_t n, struct ctk_backend *b, json_int_t uid,
                          json_int_t gid, struct ctk_oci_device **out, size_t *nout, struct ctk_error **err)
{
        *out = NULL;
        *nout = 0;
        size_t total = 0, nstat = 0;
        for (size_t i = 0; i < n; i++)
                for (size_t j = 0; j < o[i].edits->nnodes; j++) {
                        total++;
                        nstat += ctk_cdi_node_needs_host(&o[i].edits->nodes[j]);
                }
        size_t cap = 16;
        while (cap < 2 * total + 2)
                cap *= 2;
        struct kept k = {.v = calloc(total + 1, sizeof(*k.v)),
                         .origin = calloc(total + 1, sizeof(*k.origin)),
                         .slot = malloc(cap * sizeof(*k.slot)),
                         .mask = cap - 1};
        _cleanup_free_ const char **paths = calloc(nstat + 1, sizeof(*paths));
        _cleanup_free_ struct ctk_node_info *info = calloc(nstat + 1, sizeof(*info));
        _cleanup_free_ int *errs = calloc(nstat + 1, sizeof(*errs));
        int r = k.v != NULL && k.origin != NULL && k.slot != NULL && paths != NULL && info != NULL && errs != NULL
                    ? 0
                    : ctk_error_set(err, ENOMEM, "out of memory");
        if (r == 0) {
                memset(k.slot, 0xff, cap * sizeof(*k.slot));
                size_t s = 0;
                for (size_t i = 0; i < n; i++)
                        for (size_t j = 0; j < o[i].edits->nnodes; j++)
                                if (ctk_cdi_node_needs_host(&o[i].edits->nodes[j]))
                                        paths[s++] = host_path(&o[i].edits->nodes[j]);
                if (nstat > 0 && b == NULL)
                        r = ctk_error_set(err, EINVAL, "device nodes need the host, and there is none");
                else if (nstat > 0)
                        r = ctk_node_stat_batch(b, paths, nstat, info, errs, err);
        }
        for (size_t i = 0, s = 0; r == 0 && i < n; i++) {
                for (size_t j = 0; r == 0 && j < o[i].edits->nnodes; j++) {
                        const struct ctk_cdi_node *nd = &o[i].edits->nodes[j];
                        struct ctk_oci_device d;
                        bool stat = ctk_cdi_node_needs_host(nd);
                        r = fill(&o[i], nd, stat ? &info[s] : NULL, stat ? errs[s] : 0, uid, gid, &d, err);
                        s += stat;
                        if (r == 0)
                                r = keep(&k, o, i, &d, err);
                }
        }
        free(k.slot);
        free(k.origin);
        if (r < 0) {
                free(k.v);
                return -1;
        }
        *out = k.v;
        *nout = k.n;
        return 0;
}
