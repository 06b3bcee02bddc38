/* Container edits between JSON and C, and the device model (see edits.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdi.h"
#include "core/base/base.h"
#include "core/json/json.h"
#include "core/oci/oci.h"

void ctk_cdi_edits_clear(struct ctk_cdi_edits *e)
{
        free(e->env);
        free(e->nodes);
        free(e->mounts);
        free(e->hooks);
        free(e->gids);
        free(e->netdevs);
        *e = (struct ctk_cdi_edits){0};
}

/* The objects (or strings) of array a into a malloc'ed vector. */
static int borrow(const json_t *a, const void ***out, size_t *n)
{
        *out = NULL;
        *n = json_array_size(a);
        if (*n == 0)
                return 0;
        const void **v = calloc(*n, sizeof(*v));
        if (v == NULL)
                return -1;
        for (size_t i = 0; i < *n; i++) {
                const json_t *x = json_array_get(a, i);
                v[i] = json_is_string(x) ? (const void *)json_string_value(x) : (const void *)x;
        }
        *out = v;
        return 0;
}

static void node_from_json(const json_t *j, struct ctk_cdi_node *n)
{
        const char *type = json_string_value(json_object_get(j, "type"));
        const char *host = json_string_value(json_object_get(j, "hostPath"));
        const json_t *mode = json_object_get(j, "fileMode"), *uid = json_object_get(j, "uid"),
                     *gid = json_object_get(j, "gid");
        *n = (struct ctk_cdi_node){
            .path = json_string_value(json_object_get(j, "path")),
            .host_path = host != NULL && host[0] != '\0' ? host : NULL,
            .type = (char)(type != NULL ? type[0] : '\0'),
            .major = json_integer_value(json_object_get(j, "major")),
            .minor = json_integer_value(json_object_get(j, "minor")),
            .permissions = json_string_value(json_object_get(j, "permissions")),
            .has_mode = json_is_integer(mode),
            .has_uid = json_is_integer(uid),
            .has_gid = json_is_integer(gid),
            .mode = (uint32_t)json_integer_value(mode),
            .uid = (uint32_t)json_integer_value(uid),
            .gid = (uint32_t)json_integer_value(gid),
        };
        if (n->permissions != NULL && n->permissions[0] == '\0')
                n->permissions = NULL;
}

int ctk_cdi_edits_from_json(const json_t *ce, struct ctk_cdi_edits *out, struct ctk_error **err)
{
        *out = (struct ctk_cdi_edits){0};
        if (ce == NULL)
                return 0;
        const json_t *nodes = json_object_get(ce, "deviceNodes"), *gids = json_object_get(ce, "additionalGids");
        if (borrow(json_object_get(ce, "env"), (const void ***)&out->env, &out->nenv) < 0 ||
            borrow(json_object_get(ce, "mounts"), (const void ***)&out->mounts, &out->nmounts) < 0 ||
            borrow(json_object_get(ce, "hooks"), (const void ***)&out->hooks, &out->nhooks) < 0 ||
            borrow(json_object_get(ce, "netDevices"), (const void ***)&out->netdevs, &out->nnetdevs) < 0)
                goto oom;
        if (json_array_size(nodes) > 0) {
                out->nodes = calloc(json_array_size(nodes), sizeof(*out->nodes));
                if (out->nodes == NULL)
                        goto oom;
                for (size_t i = 0; i < json_array_size(nodes); i++)
                        node_from_json(json_array_get(nodes, i), &out->nodes[out->nnodes++]);
        }
        if (json_array_size(gids) > 0) {
                out->gids = calloc(json_array_size(gids), sizeof(*out->gids));
                if (out->gids == NULL)
                        goto oom;
                for (size_t i = 0; i < json_array_size(gids); i++)
                        out->gids[out->ngids++] = (uint32_t)json_integer_value(json_array_get(gids, i));
        }
        out->intel_rdt = json_object_get(ce, "intelRdt");
        return 0;
oom:
        ctk_cdi_edits_clear(out);
        return ctk_error_set(err, ENOMEM, "out of memory");
}

static bool put(json_t *o, const char *key, json_t *v)
{
        return v != NULL && json_object_set_new(o, key, v) == 0;
}

static json_t *node_to_json(const struct ctk_cdi_node *n)
{
        char type[2] = {n->type, '\0'};
        json_t *o = json_object();
        if (o == NULL || !put(o, "path", json_string(n->path)) ||
            (n->host_path != NULL && !put(o, "hostPath", json_string(n->host_path))) ||
            (n->type != '\0' && !put(o, "type", json_string(type))) ||
            ((n->major != 0 || n->minor != 0) &&
             (!put(o, "major", json_integer(n->major)) || !put(o, "minor", json_integer(n->minor)))) ||
            (n->has_mode && !put(o, "fileMode", json_integer(n->mode))) ||
            (n->permissions != NULL && !put(o, "permissions", json_string(n->permissions))) ||
            (n->has_uid && !put(o, "uid", json_integer(n->uid))) ||
            (n->has_gid && !put(o, "gid", json_integer(n->gid)))) {
                json_decref(o);
                return NULL;
        }
        return o;
}

/* An array of copies of the objects (or strings) of v. */
static json_t *array_of(const void *const *v, size_t n, bool strings)
{
        json_t *a = json_array();
        for (size_t i = 0; a != NULL && i < n; i++) {
                json_t *x = strings ? json_string(v[i]) : json_deep_copy(v[i]);
                if (json_array_append_new(a, x) < 0) {
                        json_decref(a);
                        return NULL;
                }
        }
        return a;
}

json_t *ctk_cdi_edits_to_json(const struct ctk_cdi_edits *e)
{
        _cleanup_json_ json_t *o = json_object();
        if (o == NULL || (e->nenv > 0 && !put(o, "env", array_of((const void *const *)e->env, e->nenv, true))))
                return NULL;
        if (e->nnodes > 0) {
                json_t *nodes = json_array();
                if (!put(o, "deviceNodes", nodes))
                        return NULL;
                for (size_t i = 0; i < e->nnodes; i++)
                        if (json_array_append_new(nodes, node_to_json(&e->nodes[i])) < 0)
                                return NULL;
        }
        if ((e->nmounts > 0 && !put(o, "mounts", array_of((const void *const *)e->mounts, e->nmounts, false))) ||
            (e->nhooks > 0 && !put(o, "hooks", array_of((const void *const *)e->hooks, e->nhooks, false))) ||
            (e->intel_rdt != NULL && !put(o, "intelRdt", json_deep_copy(e->intel_rdt))))
                return NULL;
        if (e->ngids > 0) {
                json_t *gids = json_array();
                if (!put(o, "additionalGids", gids))
                        return NULL;
                for (size_t i = 0; i < e->ngids; i++)
                        if (json_array_append_new(gids, json_integer(e->gids[i])) < 0)
                                return NULL;
        }
        if (e->nnetdevs > 0 && !put(o, "netDevices", array_of((const void *const *)e->netdevs, e->nnetdevs, false)))
                return NULL;
        return ctk_steal(&o);
}

/* Inserts g into the ascending v[0..*n) unless it is there (a device's
 * nodes share a handful of groups: no sort of them all). */
static void insert_gid(uint32_t *v, size_t *n, uint32_t g)
{
        size_t i = 0;
        while (i < *n && v[i] < g)
                i++;
        if (i < *n && v[i] == g)
                return;
        memmove(&v[i + 1], &v[i], (*n - i) * sizeof(*v));
        v[i] = g;
        (*n)++;
}

int ctk_cdi_device_edits(const struct ctk_cdi_device *d, bool gids, struct ctk_cdi_edits *out, struct ctk_error **err)
{
        *out = (struct ctk_cdi_edits){0};
        out->nodes = calloc(d->n + 1, sizeof(*out->nodes));
        out->gids = gids ? calloc(d->n + 1, sizeof(*out->gids)) : NULL;
        if (out->nodes == NULL || (gids && out->gids == NULL)) {
                ctk_cdi_edits_clear(out);
                return ctk_error_set(err, ENOMEM, "out of memory");
        }
        for (size_t i = 0; i < d->n; i++) {
                const struct ctk_devnode *h = d->nodes[i];
                out->nodes[out->nnodes++] = (struct ctk_cdi_node){
                    .path = h->path,
                    .type = h->type,
                    .major = h->major,
                    .minor = h->minor,
                    .permissions = "rwm",
                    .has_mode = true,
                    .has_uid = true,
                    .has_gid = true,
                    .mode = (uint32_t)(h->mode & 07777),
                    .uid = (uint32_t)h->uid,
                    .gid = (uint32_t)h->gid,
                };
                if (gids && ctk_oci_devnode_needs_group(h))
                        insert_gid(out->gids, &out->ngids, (uint32_t)h->gid);
        }
        return 0;
}
