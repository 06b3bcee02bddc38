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

/* Appends a device made of the nodes of every GPU of h->gpus[from..to) for
 * which pick() is true, then /dev/kfd. */
static int add_device(const struct ctk_cdi_host *h, size_t from, size_t to, char *name,
                      bool (*pick)(const struct ctk_cdi_host_gpu *, const void *), const void *arg,
                      struct ctk_cdi_device_list *out, struct ctk_error **err)
{
        _cleanup_free_ char *owned = name;
        if (name == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        if (!ctk_cdi_device_name_valid(name))
                return ctk_error_set(err, EINVAL, "\"%s\" is not a valid CDI device name", CTK_CUT(name));
        size_t n = 1;
        for (size_t i = from; i < to; i++)
                if (pick(&h->gpus[i], arg))
                        n += h->gpus[i].n;
        // NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers
        const struct ctk_devnode **nodes = calloc(n, sizeof(*nodes));
        if (nodes == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        size_t k = 0;
        for (size_t i = from; i < to; i++)
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
        for (size_t i = 0; by_index && i < h->n; i++) {
                char name[24];
                (void)snprintf(name, sizeof(name), "%zu", h->gpus[i].index);
                if (add_device(h, i, i + 1, strdup(name), pick_all, NULL, out, err) < 0)
                        goto fail;
                out->v[out->n - 1].is_index = true;
                out->v[out->n - 1].index = h->gpus[i].index;
        }
        for (size_t i = 0; by_uuid && i < h->n; i++) {
                if (!h->gpus[i].has_uuid || uuid_seen_before(h, i))
                        continue;
                char buf[CTK_UUID_STRLEN];
                ctk_uuid_format(h->gpus[i].uuid, buf);
                if (add_device(h, 0, h->n, strdup(buf), pick_uuid, &h->gpus[i].uuid, out, err) < 0)
                        goto fail;
        }
        if (add_device(h, 0, h->n, strdup(CTK_CDI_ALL_DEVICE), pick_all, NULL, out, err) < 0)
                goto fail;
        return 0;
fail:
        ctk_cdi_device_list_clear(out);
        return -1;
}
