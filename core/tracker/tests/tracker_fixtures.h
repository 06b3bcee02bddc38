/* Shared fixtures for the GPU tracker tests: a GPU list like the 4-GPU host
 * of the GPU tracker documentation, temporary state directories, and
 * stand-ins for the UUID helpers of the discovery code (weak, so the real
 * ones win when they are linked). */
#ifndef CTK_TESTS_TRACKER_FIXTURES_H
#define CTK_TESTS_TRACKER_FIXTURES_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/device/device.h"
#include "core/base/base.h"
#include "core/tracker/state.h"
#include "core/base/tests/scratch_dir.h"

__attribute__((weak)) void ctk_uuid_format(uint64_t uuid, char buf[CTK_UUID_STRLEN])
{
        snprintf(buf, CTK_UUID_STRLEN, "0x%" PRIX64, uuid);
}

__attribute__((weak)) int ctk_uuid_parse(const char *s, uint64_t *out)
{
        if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
                s += 2;
        while (s[0] == '0' && s[1] != '\0')
                s++;
        size_t n = strlen(s);
        if (n == 0 || n > 16 || strspn(s, "0123456789abcdefABCDEF") != n)
                return -1;
        *out = strtoull(s, NULL, 16);
        return 0;
}

__attribute__((weak)) void ctk_gpu_list_clear(struct ctk_gpu_list *l)
{
        for (size_t i = 0; i < l->n; i++) {
                free(l->v[i].pci);
                free(l->v[i].group_key);
                free(l->v[i].sysfs_path);
                free(l->v[i].partition);
                ctk_strv_clear(&l->v[i].drm);
        }
        free(l->v);
        l->v = NULL;
        l->n = 0;
}

/* The documented host: 4 MI210 (no partitions). */
static const uint64_t fx_seed_uuids[4] = {0xEA35F57CC80DEB35ULL, 0x89CAA15875FF5A43ULL, 0x6E32F10EFC982B4CULL,
                                          0x12FE4F7FDAF06B9ULL};

/* n GPUs; GPU i has PCI "0000:<bus>:00.0", card i+1, renderD 128+i;
 * partition "" ; UUID from fx_seed_uuids when i < 4, else 0x1000+i. */
static inline void fx_gpus(struct ctk_gpu_list *l, size_t n)
{
        l->n = n;
        l->v = calloc(n ? n : 1, sizeof(*l->v));
        for (size_t i = 0; i < n; i++) {
                struct ctk_gpu *g = &l->v[i];
                char buf[64];
                g->index = i;
                snprintf(buf, sizeof(buf), "0000:%02zx:00.0", 0x03 + i * 0x20);
                g->pci = strdup(buf);
                g->partition = strdup("");
                g->card_minor = (int)i + 1;
                g->render_minor = 128 + (int)i;
                snprintf(buf, sizeof(buf), "/dev/dri/card%zu", i + 1);
                ctk_strv_push(&g->drm, buf);
                snprintf(buf, sizeof(buf), "/dev/dri/renderD%zu", 128 + i);
                ctk_strv_push(&g->drm, buf);
                g->has_uuid = true;
                g->uuid = i < 4 ? fx_seed_uuids[i] : 0x1000 + i;
        }
}

/* The k-th container (in allocation order) holding GPU gpu, or NULL. */
static inline const char *fx_holder(const struct ctk_tracker_state *st, size_t gpu, size_t k)
{
        for (size_t i = 0; i < st->ncontainers; i++)
                if (ctk_tracker_container_holds(&st->containers[i], gpu) && k-- == 0)
                        return st->containers[i].id;
        return NULL;
}

/* Adds a container holding the given GPUs (no runtime root). */
static inline void fx_add_container(struct ctk_tracker_state *st, const char *id, const size_t *gpus, size_t n)
{
        st->containers = realloc(st->containers, (st->ncontainers + 1) * sizeof(*st->containers));
        struct ctk_tracker_container *c = &st->containers[st->ncontainers++];
        memset(c, 0, sizeof(*c));
        c->id = strdup(id);
        c->gpus = calloc(n + 1, sizeof(size_t));
        memcpy(c->gpus, gpus, n * sizeof(size_t));
        c->ngpus = n;
}

/* A fresh temporary directory (removed by fx_rmtree). */
static inline char *fx_tmpdir(void)
{
        char *d = strdup("/tmp/ctk-tracker-test.XXXXXX");
        if (d == NULL || scratch_dir_make(d) == NULL) {
                free(d);
                return NULL;
        }
        return d;
}

static inline void fx_rmtree(char *dir)
{
        if (dir == NULL)
                return;
        if (scratch_dir_remove(dir) != 0)
                fprintf(stderr, "cannot remove %s\n", dir);
        free(dir);
}

/* Writes a file (creating it). */
static inline int fx_write(const char *path, const char *text)
{
        FILE *f = fopen(path, "we");
        if (f == NULL)
                return -1;
        fputs(text, f);
        return fclose(f);
}

/* The message of parsing text as a tracker state, which must fail
 * (malloc'ed). */
static inline char *fx_parse_error(const char *text)
{
        struct ctk_tracker_state st;
        struct ctk_error *err = NULL;
        assert_int_equal(ctk_tracker_state_parse(text, strlen(text), &st, &err), -1);
        assert_non_null(err);
        char *msg = strdup(err->msg);
        ctk_error_free(err);
        return msg;
}

#endif
