/* Hand-built hosts for the CDI unit tests (header-only, static). */
#ifndef CTK_TEST_CDI_HOST_H
#define CTK_TEST_CDI_HOST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cdi/cdi.h"

static inline struct ctk_devnode test_node(const char *path, unsigned major, unsigned minor, mode_t mode, gid_t gid)
{
        return (struct ctk_devnode){
            .path = strdup(path), .type = 'c', .major = major, .minor = minor, .mode = mode, .uid = 0, .gid = gid};
}

/* GPU 0: card1/renderD128 (UUID 0xEA35F57CC80DEB35); GPUs 1 and 2: two
 * partitions of one GPU sharing UUID 0x12FE4F7FDAF06B9 (card2/renderD129,
 * card3/renderD130); GPU 3: renderD131 only, no UUID.  card nodes are
 * root:video(44) 0660, render nodes root:render(109) 0660 except
 * renderD131 (0666), /dev/kfd 235:0 root:render 0660. */
static inline void test_host_4(struct ctk_cdi_host *h)
{
        static const uint64_t uuids[] = {0xEA35F57CC80DEB35ull, 0x12FE4F7FDAF06B9ull, 0x12FE4F7FDAF06B9ull, 0};
        *h = (struct ctk_cdi_host){0};
        h->gpus = calloc(4, sizeof(*h->gpus));
        for (size_t i = 0; i < 4; i++) {
                struct ctk_cdi_host_gpu *g = &h->gpus[h->n++];
                char card[32], render[32];
                snprintf(card, sizeof(card), "/dev/dri/card%zu", i + 1);
                snprintf(render, sizeof(render), "/dev/dri/renderD%zu", 128 + i);
                g->index = i;
                g->has_uuid = uuids[i] != 0;
                g->uuid = uuids[i];
                g->nodes = calloc(2, sizeof(*g->nodes));
                if (i < 3)
                        g->nodes[g->n++] = test_node(card, 226, (unsigned)i + 1, 0660, 44);
                g->nodes[g->n++] = test_node(render, 226, 128 + (unsigned)i, i < 3 ? 0660 : 0666, 109);
        }
        h->kfd = test_node("/dev/kfd", 235, 0, 0660, 109);
}

/* One GPU: card0 (226:0) and renderD128. */
static inline void test_host_1(struct ctk_cdi_host *h)
{
        *h = (struct ctk_cdi_host){0};
        h->gpus = calloc(1, sizeof(*h->gpus));
        struct ctk_cdi_host_gpu *g = &h->gpus[h->n++];
        g->nodes = calloc(2, sizeof(*g->nodes));
        g->nodes[g->n++] = test_node("/dev/dri/card0", 226, 0, 0660, 44);
        g->nodes[g->n++] = test_node("/dev/dri/renderD128", 226, 128, 0660, 109);
        h->kfd = test_node("/dev/kfd", 235, 0, 0660, 109);
}

static inline void test_host_free(struct ctk_cdi_host *h)
{
        for (size_t i = 0; i < h->n; i++) {
                for (size_t j = 0; j < h->gpus[i].n; j++)
                        free(h->gpus[i].nodes[j].path);
                free(h->gpus[i].nodes);
        }
        free(h->gpus);
        free(h->kfd.path);
        *h = (struct ctk_cdi_host){0};
}

#endif
