/* Applying container edits to an OCI spec (see apply.h): first everything
 * that can fail for a reason (the spec's members, the host's nodes,
 * conflicts), then the edits. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdi.h"
#include "apply.h"
#include "core/base/base.h"
#include "core/json/json.h"

static const char *str(const json_t *o, const char *key)
{
        const char *s = json_string_value(json_object_get(o, key));
        return s != NULL ? s : "";
}

/* "SUBJECT: A and B VERB" */
static int conflict(struct ctk_error **err, const struct ctk_cdi_origin *a, const struct ctk_cdi_origin *b,
                    const char *subject, const char *verb)
{
        _cleanup_free_ char *la = ctk_cdi_origin_label(a), *lb = ctk_cdi_origin_label(b);
        return ctk_error_set(err, EEXIST, "%s: %s and %s %s", CTK_CUT(subject), CTK_CUT(la != NULL ? la : "?"),
                             CTK_CUT(lb != NULL ? lb : "?"), verb);
}

/* An item of one kind of edit, with the origin it came from. */
struct item {
        const json_t *j;
        size_t origin;
};

/* The mounts (or net devices) of every origin, in order. */
static struct item *items(const struct ctk_cdi_origin *o, size_t n, bool mounts, size_t *count)
{
        size_t total = 0;
        for (size_t i = 0; i < n; i++)
                total += mounts ? o[i].edits->nmounts : o[i].edits->nnetdevs;
        struct item *v = calloc(total + 1, sizeof(*v));
        if (v == NULL)
                return NULL;
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
                const json_t *const *list = mounts ? o[i].edits->mounts : o[i].edits->netdevs;
                size_t len = mounts ? o[i].edits->nmounts : o[i].edits->nnetdevs;
                for (size_t j = 0; j < len; j++)
                        v[k++] = (struct item){list[j], i};
        }
        *count = k;
        return v;
}

/* Two origins mounting different things at one container path: an error
 * (CDI replaces a mount of the spec by destination; between two requested
 * devices that would drop one of them silently). */
static int check_mounts(const struct ctk_cdi_origin *o, const struct item *m, size_t n, struct ctk_error **err)
{
        for (size_t i = 0; i < n; i++) {
                const char *dst = str(m[i].j, "containerPath");
                for (size_t j = 0; j < i; j++)
                        if (m[i].origin != m[j].origin && strcmp(dst, str(m[j].j, "containerPath")) == 0 &&
                            !json_equal((json_t *)m[i].j, (json_t *)m[j].j))
                                return conflict(err, &o[m[j].origin], &o[m[i].origin], dst,
                                                "mount different things there");
        }
        return 0;
}

/* One host interface with two names, or one name for two host interfaces. */
static int check_netdevs(const struct ctk_cdi_origin *o, const struct item *d, size_t n, struct ctk_error **err)
{
        for (size_t i = 0; i < n; i++) {
                const char *host = str(d[i].j, "hostInterfaceName"), *name = str(d[i].j, "name");
                for (size_t j = 0; j < i; j++) {
                        if (d[i].origin == d[j].origin)
                                continue;
                        bool same_host = strcmp(host, str(d[j].j, "hostInterfaceName")) == 0;
                        bool same_name = strcmp(name, str(d[j].j, "name")) == 0;
                        _cleanup_free_ char *subject = NULL;
                        if (same_host != same_name &&
                            asprintf(&subject, "network device %s", same_host ? host : name) < 0)
                                return ctk_error_set(err, ENOMEM, "out of memory");
                        if (same_host && !same_name)
                                return conflict(err, &o[d[j].origin], &o[d[i].origin], subject,
                                                "give it different names");
                        if (same_name && !same_host)
                                return conflict(err, &o[d[j].origin], &o[d[i].origin], subject,
                                                "name different host interfaces so");
                }
        }
        return 0;
}

static bool put(json_t *o, const char *key, json_t *v)
{
        return v != NULL && json_object_set_new(o, key, v) == 0;
}

static bool put_copy(json_t *o, const char *key, const json_t *v)
{
        return v == NULL || put(o, key, json_deep_copy(v));
}

/* CDI mount -> OCI mount {destination, type, source, options}. */
static json_t *oci_mount(const json_t *m)
{
        json_t *o = json_object();
        if (o == NULL || !put(o, "destination", json_string(str(m, "containerPath"))) ||
            !put_copy(o, "type", json_object_get(m, "type")) || !put(o, "source", json_string(str(m, "hostPath"))) ||
            !put_copy(o, "options", json_object_get(m, "options"))) {
                json_decref(o);
                return NULL;
        }
        return o;
}

/* CDI hook -> OCI hook {path, args, env, timeout}. */
static json_t *oci_hook(const json_t *h)
{
        json_t *o = json_object();
        if (o == NULL || !put(o, "path", json_string(str(h, "path"))) ||
            !put_copy(o, "args", json_object_get(h, "args")) || !put_copy(o, "env", json_object_get(h, "env")) ||
            !put_copy(o, "timeout", json_object_get(h, "timeout"))) {
                json_decref(o);
                return NULL;
        }
        return o;
}

static int apply_mounts(json_t *oci, const struct item *m, size_t n, struct ctk_cdi_apply_stats *st,
                        struct ctk_error **err)
{
        // NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers
        _cleanup_free_ json_t **v = calloc(n + 1, sizeof(*v));
        if (v == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < n; i++) {
                if ((v[i] = oci_mount(m[i].j)) == NULL) {
                        for (size_t k = 0; k < i; k++)
                                json_decref(v[k]);
                        return ctk_error_set(err, ENOMEM, "out of memory");
                }
        }
        st->mounts = n;
        return ctk_oci_put_mounts(oci, v, n, err);
}

/* The groups of every origin, each non-zero one once, in order. */
static int apply_gids(json_t *oci, const struct ctk_cdi_origin *o, size_t n, struct ctk_cdi_apply_stats *st,
                      struct ctk_error **err)
{
        for (size_t i = 0; i < n; i++)
                for (size_t j = 0; j < o[i].edits->ngids; j++) {
                        uint32_t g = o[i].edits->gids[j];
                        bool seen = g == 0;
                        for (size_t a = 0; !seen && a <= i; a++)
                                for (size_t b = 0; !seen && b < (a < i ? o[a].edits->ngids : j); b++)
                                        seen = o[a].edits->gids[b] == g;
                        bool added = false;
                        if (!seen && ctk_oci_add_additional_gid(oci, (gid_t)g, &added, err) < 0)
                                return -1;
                        st->gids += added;
                }
        return 0;
}

static int apply_rest(json_t *oci, const struct ctk_cdi_origin *o, size_t n, struct ctk_cdi_apply_stats *st,
                      struct ctk_error **err)
{
        const json_t *rdt = NULL;
        for (size_t i = 0; i < n; i++) {
                const struct ctk_cdi_edits *e = o[i].edits;
                for (size_t j = 0; j < e->nenv; j++) {
                        bool changed;
                        if (ctk_oci_env_put(oci, e->env[j], &changed, err) < 0)
                                return -1;
                        st->env += changed;
                }
                for (size_t j = 0; j < e->nnetdevs; j++)
                        if (ctk_oci_set_net_device(oci, str(e->netdevs[j], "hostInterfaceName"),
                                                   str(e->netdevs[j], "name"), err) < 0)
                                return -1;
                st->netdevs += e->nnetdevs;
                for (size_t j = 0; j < e->nhooks; j++) {
                        json_t *h = oci_hook(e->hooks[j]);
                        if (h == NULL)
                                return ctk_error_set(err, ENOMEM, "out of memory");
                        bool added = false;
                        if (ctk_oci_add_hook(oci, str(e->hooks[j], "hookName"), h, &added, err) < 0)
                                return -1;
                        st->hooks += added;
                }
                if (e->intel_rdt != NULL)
                        rdt = e->intel_rdt;
        }
        if (rdt != NULL) {
                json_t *copy = json_deep_copy(rdt);
                if (copy == NULL || ctk_oci_set_intel_rdt(oci, copy, err) < 0)
                        return copy == NULL ? ctk_error_set(err, ENOMEM, "out of memory") : -1;
                st->intel_rdt = true;
        }
        return apply_gids(oci, o, n, st, err);
}

int ctk_cdi_apply(json_t *oci, const struct ctk_cdi_origin *o, size_t n, struct ctk_backend *b,
                  struct ctk_cdi_apply_stats *stats, struct ctk_error **err)
{
        struct ctk_cdi_apply_stats st = {0};
        if (ctk_oci_check_editable(oci, err) < 0)
                return -1;
        json_int_t uid, gid;
        ctk_oci_user_ids(oci, &uid, &gid);
        _cleanup_free_ struct ctk_oci_device *devs = NULL;
        size_t ndevs = 0, nmounts = 0, nnet = 0;
        if (ctk_cdi_resolve_nodes(o, n, b, uid, gid, &devs, &ndevs, err) < 0)
                return -1;
        _cleanup_free_ struct item *mounts = items(o, n, true, &nmounts);
        _cleanup_free_ struct item *net = items(o, n, false, &nnet);
        if (mounts == NULL || net == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        if (check_mounts(o, mounts, nmounts, err) < 0 || check_netdevs(o, net, nnet, err) < 0)
                return -1;
        /* From here on only a failed allocation stops it (the members were checked). */
        struct ctk_oci_edit_stats dst = {0};
        if (ndevs > 0 && ctk_oci_put_devices(oci, devs, ndevs, &dst, err) < 0)
                return -1;
        st.devices = dst.devices;
        st.rules = dst.rules;
        if (nmounts > 0 && apply_mounts(oci, mounts, nmounts, &st, err) < 0)
                return -1;
        if (apply_rest(oci, o, n, &st, err) < 0)
                return -1;
        if (stats != NULL)
                *stats = st;
        return 0;
}
