/* Swarm resource ids (see resource_id.h). */
#include "resource_id.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/base.h"

#define INDEX_PREFIX "gpu"
/* As for plain indices: at most 8 digits. */
#define MAX_ID_DIGITS 8

/* The devices reporting g's UUID: *pos is g's place among them, *total their
 * number.  Fails when two distinct GPUs (PCI functions) report it. */
static int uuid_place(const struct ctk_gpu_list *gpus, size_t i, size_t *pos, size_t *total, struct ctk_error **err)
{
        const struct ctk_gpu *g = &gpus->v[i];
        *pos = *total = 0;
        for (size_t j = 0; j < gpus->n; j++) {
                const struct ctk_gpu *o = &gpus->v[j];
                if (!o->has_uuid || o->uuid != g->uuid)
                        continue;
                if (g->pci == NULL || o->pci == NULL || strcmp(g->pci, o->pci) != 0) {
                        char uuid[CTK_UUID_STRLEN];
                        ctk_uuid_format(g->uuid, uuid);
                        return ctk_error_set(err, EINVAL, "GPUs %zu and %zu both report UUID %s", i < j ? i : j,
                                             i < j ? j : i, CTK_CUT(uuid));
                }
                if (j < i)
                        (*pos)++;
                (*total)++;
        }
        return 0;
}

int ctk_resource_id_format(const struct ctk_gpu_list *gpus, size_t i, enum ctk_resource_id_form form, char **out,
                           struct ctk_error **err)
{
        *out = NULL;
        if (i >= gpus->n)
                return ctk_error_set(err, EINVAL, "GPU %zu does not exist", i);
        int n;
        if (form == CTK_RESOURCE_ID_INDEX) {
                n = asprintf(out, INDEX_PREFIX "%zu", i);
        } else {
                const struct ctk_gpu *g = &gpus->v[i];
                if (!g->has_uuid)
                        return ctk_error_set(err, ENOENT, "GPU %zu reports no UUID", i);
                size_t pos, total;
                if (uuid_place(gpus, i, &pos, &total, err) < 0)
                        return -1;
                char uuid[CTK_UUID_STRLEN];
                ctk_uuid_format(g->uuid, uuid);
                n = total == 1 ? asprintf(out, "%s", uuid) : asprintf(out, "%s:%zu", uuid, pos);
        }
        if (n < 0) {
                *out = NULL;
                return ctk_error_set(err, ENOMEM, "out of memory");
        }
        return 0;
}

bool ctk_resource_id_is(const char *s, size_t len)
{
        size_t plen = strlen(INDEX_PREFIX);
        if (memchr(s, '=', len) != NULL) /* a CDI name without its vendor, say: not an id */
                return false;
        return memchr(s, ':', len) != NULL || (len >= plen && memcmp(s, INDEX_PREFIX, plen) == 0);
}

/* Strict decimal of 1 to MAX_ID_DIGITS digits. */
static int id_number(const char *s, size_t len, size_t *out)
{
        uint64_t v;
        if (len == 0 || len > MAX_ID_DIGITS || ctk_parse_u64_dec(s, len, UINT32_MAX, &v) < 0)
                return -1;
        *out = (size_t)v;
        return 0;
}

static int resolve_index(const char *s, size_t len, const struct ctk_gpu_list *gpus, size_t *index,
                         struct ctk_error **err)
{
        size_t plen = strlen(INDEX_PREFIX), i;
        if (id_number(s + plen, len - plen, &i) < 0)
                return ctk_error_set(err, EINVAL, "'%s' is not a GPU id (expected " INDEX_PREFIX "<N>, e.g. gpu0)",
                                     CTK_CUTN(s, len));
        if (i >= gpus->n) {
                if (gpus->n == 0)
                        return ctk_error_set(err, ENOENT, "GPU %s does not exist (this host has no AMD GPUs)",
                                             CTK_CUTN(s, len));
                return ctk_error_set(err, ENOENT, "GPU %s does not exist (this host has gpu0 to gpu%zu)",
                                     CTK_CUTN(s, len), gpus->n - 1);
        }
        *index = i;
        return 0;
}

static int resolve_partition(const char *s, size_t len, const struct ctk_gpu_list *gpus, size_t *index,
                             struct ctk_error **err)
{
        const char *colon = memchr(s, ':', len);
        size_t ulen = (size_t)(colon - s), part;
        _cleanup_free_ char *u = strndup(s, ulen);
        if (u == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        uint64_t uuid;
        if (ulen == 0 || ctk_uuid_parse(u, &uuid) < 0 || id_number(colon + 1, len - ulen - 1, &part) < 0)
                return ctk_error_set(err, EINVAL,
                                     "'%s' is not a GPU partition id (expected 0x<UUID>:<N>, e.g. "
                                     "0xE3AA140F9A5F9E31:3)",
                                     CTK_CUTN(s, len));
        size_t first = SIZE_MAX, total = 0;
        for (size_t j = 0; j < gpus->n; j++) {
                if (!gpus->v[j].has_uuid || gpus->v[j].uuid != uuid)
                        continue;
                if (first == SIZE_MAX) {
                        first = j;
                        size_t pos;
                        if (uuid_place(gpus, j, &pos, &total, err) < 0)
                                return ctk_error_prefix(err, "%s", CTK_CUTN(s, len));
                }
        }
        if (first == SIZE_MAX)
                return ctk_error_set(err, ENOENT, "no GPU has UUID %s (for %s; 'amd-ctk gpu list' shows their UUIDs)",
                                     CTK_CUT(u), CTK_CUTN(s, len));
        if (part >= total) {
                if (total == 1)
                        return ctk_error_set(err, ENOENT, "GPU %s does not exist (GPU %s is not partitioned: %s:0)",
                                             CTK_CUTN(s, len), CTK_CUT(u), CTK_CUT(u));
                return ctk_error_set(err, ENOENT, "GPU %s does not exist (GPU %s has partitions 0-%zu)",
                                     CTK_CUTN(s, len), CTK_CUT(u), total - 1);
        }
        for (size_t j = first; j < gpus->n; j++)
                if (gpus->v[j].has_uuid && gpus->v[j].uuid == uuid && part-- == 0) {
                        *index = j;
                        return 0;
                }
        return ctk_error_set(err, ENOENT, "GPU %s does not exist", CTK_CUTN(s, len)); /* not reached */
}

int ctk_resource_id_resolve(const char *s, size_t len, const struct ctk_gpu_list *gpus, size_t *index,
                            struct ctk_error **err)
{
        if (memchr(s, ':', len) != NULL)
                return resolve_partition(s, len, gpus, index, err);
        return resolve_index(s, len, gpus, index, err);
}
