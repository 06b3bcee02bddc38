/* The KFD capture importer's grouping: nodes -> physical GPUs -> partitions,
 * one template per device id, the partition mode of a GPU. */
#include "backends/fakefs/import_group.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/base.h"

uint64_t ctk_fakefs_import_num(const struct ctk_kfd_capture_node *n, const char *key)
{
        uint64_t v = 0;
        ctk_kfd_capture_u64(n, key, &v);
        return v;
}

static int need(struct ctk_fakefs_importer *im, const struct ctk_kfd_capture_node *n, const char *key)
{
        uint64_t v;
        if (ctk_kfd_capture_u64(n, key, &v) < 0)
                return ctk_error_set(im->err, EINVAL, "%s/nodes/%d/properties: missing %s", CTK_CUT(im->dir), n->id,
                                     CTK_CUT(key));
        return 0;
}

bool ctk_fakefs_import_is_gpu(const struct ctk_kfd_capture_node *n)
{
        return ctk_fakefs_import_num(n, "drm_render_minor") > 0;
}

/* Partitions in function-bit order, then render-minor order. */
static int by_partition(const void *a, const void *b)
{
        const struct ctk_kfd_capture_node *x = *(const struct ctk_kfd_capture_node *const *)a;
        const struct ctk_kfd_capture_node *y = *(const struct ctk_kfd_capture_node *const *)b;
        uint64_t fx = ctk_fakefs_import_num(x, "location_id") & 7, fy = ctk_fakefs_import_num(y, "location_id") & 7;
        if (fx != fy)
                return fx < fy ? -1 : 1;
        uint64_t rx = ctk_fakefs_import_num(x, "drm_render_minor"), ry = ctk_fakefs_import_num(y, "drm_render_minor");
        return rx < ry ? -1 : rx > ry;
}

static int by_pci(const void *a, const void *b)
{
        const struct ctk_fakefs_import_gpu *x = a, *y = b;
        uint64_t kx = ((uint64_t)x->domain << 16) | (x->bus << 8) | x->dev;
        uint64_t ky = ((uint64_t)y->domain << 16) | (y->bus << 8) | y->dev;
        return kx < ky ? -1 : kx > ky;
}

int ctk_fakefs_import_group(struct ctk_fakefs_importer *im)
{
        im->groups = calloc(im->cap.n + 1, sizeof(*im->groups));
        if (im->groups == NULL)
                return ctk_error_set(im->err, ENOMEM, "out of memory");
        for (size_t i = 0; i < im->cap.n; i++) {
                const struct ctk_kfd_capture_node *n = &im->cap.nodes[i];
                if (!ctk_fakefs_import_is_gpu(n))
                        continue;
                static const char *const keys[] = {"location_id", "domain", "vendor_id", "device_id"};
                for (size_t k = 0; k < 4; k++)
                        if (need(im, n, keys[k]) < 0)
                                return -1;
                uint64_t loc = ctk_fakefs_import_num(n, "location_id"), dom = ctk_fakefs_import_num(n, "domain"),
                         minor = ctk_fakefs_import_num(n, "drm_render_minor");
                if (dom > 0xffff || loc > 0xffff || minor < 128 || minor > CTK_FAKEFS_MAX_MINOR)
                        return ctk_error_set(im->err, EINVAL,
                                             "%s/nodes/%d/properties: domain, location_id or drm_render_minor "
                                             "out of range",
                                             CTK_CUT(im->dir), n->id);
                struct ctk_fakefs_import_gpu key = {
                    (unsigned int)dom, (unsigned int)(loc >> 8) & 0xff, (unsigned int)(loc >> 3) & 0x1f, {0}, 0};
                struct ctk_fakefs_import_gpu *g = NULL;
                for (size_t j = 0; j < im->ngroups && g == NULL; j++)
                        if (by_pci(&im->groups[j], &key) == 0)
                                g = &im->groups[j];
                if (g == NULL) {
                        g = &im->groups[im->ngroups++];
                        *g = key;
                }
                if (g->n == CTK_FAKEFS_MAX_PARTITIONS)
                        return ctk_error_set(im->err, EINVAL, "%s: more than %d KFD nodes on PCI device %04x:%02x:%02x",
                                             CTK_CUT(im->dir), CTK_FAKEFS_MAX_PARTITIONS, g->domain, g->bus, g->dev);
                g->parts[g->n++] = n;
        }
        qsort(im->groups, im->ngroups, sizeof(*im->groups), by_pci);
        for (size_t j = 0; j < im->ngroups; j++)
                // NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers
                qsort(im->groups[j].parts, im->groups[j].n, sizeof(im->groups[j].parts[0]), by_partition);
        return 0;
}

const struct ctk_fakefs_import_template *ctk_fakefs_import_template_of(struct ctk_fakefs_importer *im,
                                                                       const struct ctk_kfd_capture_node *n)
{
        unsigned int device = (unsigned int)ctk_fakefs_import_num(n, "device_id");
        for (size_t i = 0; i < im->ntmpls; i++)
                if (im->tmpls[i].device_id == device)
                        return &im->tmpls[i];
        struct ctk_fakefs_import_template *t = &im->tmpls[im->ntmpls++];
        uint64_t gfx = ctk_fakefs_import_num(n, "gfx_target_version");
        t->device_id = device;
        t->node = n;
        (void)snprintf(t->name, sizeof(t->name), "gfx%u%u%x", (unsigned int)(gfx / 10000) % 100,
                       (unsigned int)(gfx / 100) % 100, (unsigned int)(gfx % 100));
        for (size_t i = 0; i + 1 < im->ntmpls; i++)
                if (strcmp(im->tmpls[i].name, t->name) == 0)
                        (void)snprintf(t->name + strlen(t->name), sizeof(t->name) - strlen(t->name), "-0x%04x", device);
        return t;
}

void ctk_fakefs_import_partition_mode(size_t parts, uint64_t xcc, unsigned int *xcds, const char **mode)
{
        unsigned int p = 1, x = 1;
        while (p < parts)
                p *= 2;
        while (x < parts * (xcc ? xcc : 1) && x < CTK_FAKEFS_MAX_PARTITIONS)
                x *= 2;
        *xcds = x;
        if (p == 1)
                *mode = "SPX";
        else if (p == x)
                *mode = "CPX";
        else
                *mode = p == 2 ? "DPX" : "QPX";
}
