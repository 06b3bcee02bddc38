/* Swarm resource ids: the values `amd-ctk runtime configure --swarm-resources`
 * writes into Docker's node-generic-resources, one per GPU or partition, and
 * that the selection grammar resolves back when Swarm hands them to a task
 * as DOCKER_RESOURCE_<KIND>=ID,ID,...
 *
 *   0x<UUID>       uuid form, a GPU that is one device (its KFD unique_id)
 *   0x<UUID>:<N>   uuid form, partition N of the GPU with that UUID: N counts
 *                  the GPU's partitions from 0 in index order (the one on the
 *                  PCI function first, then its amdgpu_xcp devices), so the
 *                  id stays the same when other GPUs come, go or are
 *                  repartitioned; :0 also names an unpartitioned GPU
 *   gpu<N>         index form, the device with index N
 *
 * Swarm takes a value that is a decimal integer for a count, not a name (and
 * refuses a kind with both), so an index is written gpu<N>. */
#ifndef CTK_RESOURCE_ID_H
#define CTK_RESOURCE_ID_H

#include <stdbool.h>
#include <stddef.h>

#include "core/base/base.h"
#include "gpu.h"

enum ctk_resource_id_form {
        CTK_RESOURCE_ID_UUID,  /* 0x<UUID> or 0x<UUID>:<N> */
        CTK_RESOURCE_ID_INDEX, /* gpu<N> */
};

/* The id of gpus->v[i] in that form (malloc'ed).  The uuid form fails, naming
 * the device, when it reports no UUID or another GPU reports the same one. */
int ctk_resource_id_format(const struct ctk_gpu_list *gpus, size_t i, enum ctk_resource_id_form form, char **out,
                           struct ctk_error **err);

/* Whether the token s[0..len) has the shape of a gpu<N> or <UUID>:<N> id (a
 * ':' in it, or the prefix "gpu", lower case as written, and no '='): the
 * grammar's other tokens never do. */
bool ctk_resource_id_is(const char *s, size_t len);

/* Resolves such a token to the index of one device; an id naming nothing is
 * an error naming the token and what the host has. */
int ctk_resource_id_resolve(const char *s, size_t len, const struct ctk_gpu_list *gpus, size_t *index,
                            struct ctk_error **err);

#endif
