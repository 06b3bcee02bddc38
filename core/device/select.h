/* The GPU selection grammar of AMD_VISIBLE_DEVICES, DOCKER_RESOURCE_<KIND>
 * and `amd-ctk gpu-tracker IDS ...`.
 *
 *   all (any case) | none | comma list of: index, range a-b, UUID, the
 *   Swarm resource ids 0x<UUID>:<N> and gpu<N> (resource_id.h), and
 *   fully qualified CDI names for the *_names functions
 *
 * Tokens are trimmed; duplicates removed; result ascending.  A range is
 * bounded by the GPU count before expansion.  An index or UUID that does not
 * exist is an error naming the token and the valid set, e.g.
 *   "GPU 9 does not exist (this host has GPUs 0-3)". */
#ifndef CTK_SELECT_H
#define CTK_SELECT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/base/base.h"
#include "gpu.h"

enum ctk_select_kind {
        CTK_SELECT_UNSET, /* unset, empty or "void": behave exactly like plain runc */
        CTK_SELECT_NONE,  /* "none": no GPUs, but the request was explicit */
        CTK_SELECT_LIST,  /* idx[] holds the selected indices (may be all) */
};

struct ctk_selection {
        enum ctk_select_kind kind;
        size_t *idx; /* ascending, unique */
        size_t n;
};

/* Parses one value against the discovered GPUs. On error *err names the
 * bad token; so does a fully qualified CDI name (vendor/class=name). */
int ctk_select_parse(const char *value, const struct ctk_gpu_list *gpus, struct ctk_selection *out,
                     struct ctk_error **err);
/* The same, but fully qualified CDI names are appended to names (in
 * order, unchecked) instead; a value of CDI names only gives
 * CTK_SELECT_UNSET plus its names. */
int ctk_select_parse_names(const char *value, const struct ctk_gpu_list *gpus, struct ctk_selection *out,
                           struct ctk_strv *names, struct ctk_error **err);
/* Union of b into a (a stays ascending and unique; kinds combine: LIST > NONE > UNSET). */
int ctk_select_merge(struct ctk_selection *a, const struct ctk_selection *b, struct ctk_error **err);
void ctk_selection_clear(struct ctk_selection *s);

/* Resolves the selection from an OCI process.env style array ("NAME=value"):
 * AMD_VISIBLE_DEVICES and DOCKER_RESOURCE_<KIND> for each kind in `kinds`
 * (NULL-terminated, e.g. {"AMD_GPU", "GPU", NULL}); several variables give the
 * union.  Errors are prefixed with the variable name. */
int ctk_select_from_env(char *const *env, size_t nenv, const char *const *kinds, const struct ctk_gpu_list *gpus,
                        struct ctk_selection *out, struct ctk_error **err);
/* The same with ctk_select_parse_names: CDI names into names, and the
 * variable each came from into vars (parallel to names). */
int ctk_select_from_env_names(char *const *env, size_t nenv, const char *const *kinds, const struct ctk_gpu_list *gpus,
                              struct ctk_selection *out, struct ctk_strv *names, struct ctk_strv *vars,
                              struct ctk_error **err);

#endif
