/* The profile loader's parts shared by profile_load.c (host, templates,
 * CPUs) and profile_load_gpu.c (GPUs and their partitions). */
#ifndef CTK_FAKEFS_PROFILE_LOAD_H
#define CTK_FAKEFS_PROFILE_LOAD_H

#include <jansson.h>
#include <stdbool.h>

#include "backends/fakefs/profile.h"
#include "backends/fakefs/profile_json.h"

/* var = "where.key" / "where[i]" (owned), or return ENOMEM from the caller. */
#define AT(var, where, key)                                                                                            \
        _cleanup_free_ char *var = ctk_pj_at(where, key);                                                              \
        if ((var) == NULL)                                                                                             \
        return ctk_error_set(c->err, ENOMEM, "out of memory")
#define AT_INDEX(var, where, i)                                                                                        \
        _cleanup_free_ char *var = ctk_pj_at_index(where, i);                                                          \
        if ((var) == NULL)                                                                                             \
        return ctk_error_set(c->err, ENOMEM, "out of memory")

enum props_kind {
        PROPS_TEMPLATE,     /* null values place computed keys */
        PROPS_GPU_OVERRIDE, /* computed keys cannot be overridden */
        PROPS_CPU_OVERRIDE,
        PROPS_CACHE, /* also sibling_map: "1,0,0,..." */
};

/* ENOMEM: "out of memory", -1. */
int ctk_pj_oom(struct ctk_pj *c);
/* *out = a copy of s (nothing when s is NULL). */
int ctk_pj_dup_str(struct ctk_pj *c, const char *s, char **out);
/* A KFD property object: key -> non-negative integer or string of digits, checked for kind. */
int ctk_pj_load_props(struct ctk_pj *c, json_t *obj, const char *where, enum props_kind kind,
                      struct ctk_fakefs_props *out);
/* parent[key] as node attributes (mode, uid, gid; with_numbers: major, minor too) over *out. */
int ctk_pj_load_attr(struct ctk_pj *c, json_t *parent, const char *where, const char *key,
                     struct ctk_fakefs_node_attr *out, bool with_numbers, unsigned int *major, unsigned int *minor);
/* The KFD template obj names (kfd_template), or the built-in GPU or CPU one. */
int ctk_pj_find_template(struct ctk_pj *c, struct ctk_fakefs_profile *p, json_t *obj, const char *where, bool gpu,
                         const struct ctk_fakefs_props **out);
/* kfd_link_templates (then the built-in ones), kfd_mem_banks, kfd_caches. */
int ctk_pj_load_topology(struct ctk_pj *c, json_t *root, struct ctk_fakefs_profile *p);
/* A KFD node's io_links, p2p_links, mem_banks and caches (obj's keys). */
int ctk_pj_load_extra(struct ctk_pj *c, struct ctk_fakefs_profile *p, json_t *obj, const char *where,
                      struct ctk_fakefs_node_extra *out);
/* A GPU's sensors and PCI attributes (obj's keys). */
int ctk_pj_load_sensors(struct ctk_pj *c, json_t *obj, const char *where, struct ctk_fakefs_gpu *g);
/* root.gpus into p->gpus. */
int ctk_pj_load_gpus(struct ctk_pj *c, json_t *root, struct ctk_fakefs_profile *p);

#endif
