/* The CDI devices of a host: one per GPU index, one per UUID, and "all". */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdi.h"
#include "core/base/base.h"

void ctk_cdi_device_list_clear(struct ctk_cdi_device_list *l)
{
        for (size_t i = 0; i < l->n; i++) {
                free(l->v[i].name);
                free(l->v[i].nodes);
        }
        free(l->v);
        *l = (struct ctk_cdi_device_list){0};
}

/* Appends a device made of the nodes of every GPU for which pick() is true,
 * then /dev/kfd. */
static int add_device(const struct ctk_cdi_host *h, char *name,
                      bool (*pick)(const struct ctk_cdi_host_gpu *, const void *), const void *arg,
                      struct ctk_cdi_device_list *out, struct ctk_error **err)
{
        _cleanup_free_ char *owned = name;
        if (name == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        if (!ctk_cdi_device_name_valid(name))
                return ctk_error_set(err, EINVAL, "\"%s\" is not a valid CDI device name", name);
        size_t n = 1;
        for (size_t i = 0; i < h->n; i++)
                if (pick(&h->gpus[i], arg))
                        n += h->gpus[i].n;
        // NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers
        const struct ctk_devnode **nodes = calloc(n, sizeof(*nodes));
        if (nodes == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        size_t k = 0;
        for (size_t i = 0; i < h->n; i++)
                if (pick(&h->gpus[i], arg))
                        for (size_t j = 0; j < h->gpus[i].n; j++)
                                nodes[k++] = &h->gpus[i].nodes[j];
        nodes[k++] = &h->kfd;
        struct ctk_cdi_device *d = &out->v[out->n++];
        d->name = ctk_steal(&owned);
        d->nodes = nodes;
        d->n = k;
        return 0;
}

static bool pick_gpu(const struct ctk_cdi_host_gpu *g, const void *arg)
{
        return g == arg;
}
static bool pick_uuid(const struct ctk_cdi_host_gpu *g, const void *arg)
{
        return g->has_uuid && g->uuid == *(const uint64_t *)arg;
}
static bool pick_all(const struct ctk_cdi_host_gpu *g, const void *arg)
{
        (void)g;
        (void)arg;
        return true;
}

static bool uuid_seen_before(const struct ctk_cdi_host *h, size_t i)
{
        for (size_t j = 0; j < i; j++)
                if (h->gpus[j].has_uuid && h->gpus[j].uuid == h->gpus[i].uuid)
                        return true;
        return false;
}

int ctk_cdi_host_devices(const struct ctk_cdi_host *h, bool by_index, bool by_uuid, struct ctk_cdi_device_list *out,
                         struct ctk_error **err)
{
        *out = (struct ctk_cdi_device_list){0};
        out->v = calloc(2 * h->n + 1, sizeof(*out->v));
        if (out->v == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        char *name;
        for (size_t i = 0; by_index && i < h->n; i++) {
                if (asprintf(&name, "%zu", h->gpus[i].index) < 0)
                        name = NULL;
                if (add_device(h, name, pick_gpu, &h->gpus[i], out, err) < 0)
                        goto fail;
                out->v[out->n - 1].is_index = true;
                out->v[out->n - 1].index = h->gpus[i].index;
        }
        for (size_t i = 0; by_uuid && i < h->n; i++) {
                if (!h->gpus[i].has_uuid || uuid_seen_before(h, i))
                        continue;
                char buf[CTK_UUID_STRLEN];
                ctk_uuid_format(h->gpus[i].uuid, buf);
                if (add_device(h, strdup(buf), pick_uuid, &h->gpus[i].uuid, out, err) < 0)
                        goto fail;
        }
        if (add_device(h, strdup(CTK_CDI_ALL_DEVICE), pick_all, NULL, out, err) < 0)
                goto fail;
        return 0;
fail:
        ctk_cdi_device_list_clear(out);
        return -1;
}

static int cmp_gid(const void *a, const void *b)
{
        gid_t x = *(const gid_t *)a, y = *(const gid_t *)b;
        return x < y ? -1 : x > y;
}

int ctk_cdi_device_gids(const struct ctk_cdi_device *d, gid_t **out, size_t *n, struct ctk_error **err)
{
        *out = NULL;
        *n = 0;
        gid_t *v = calloc(d->n > 0 ? d->n : 1, sizeof(*v));
        if (v == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        size_t k = 0;
        for (size_t i = 0; i < d->n; i++)
                if (d->nodes[i]->gid != 0 && (d->nodes[i]->mode & 0006) != 0006)
                        v[k++] = d->nodes[i]->gid;
        if (k > 1) /* (qsort wants an array, even of none) */
                qsort(v, k, sizeof(*v), cmp_gid);
        size_t u = 0;
        for (size_t i = 0; i < k; i++)
                if (u == 0 || v[u - 1] != v[i])
                        v[u++] = v[i];
        if (u == 0) {
                free(v);
                return 0;
        }
        *out = v;
        *n = u;
        return 0;
}
