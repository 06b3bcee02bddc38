/* Who may have GPUs and CDI devices: the decisions of the configuration
 * keys accept-visible-devices-envvar-when-unprivileged and cdi-kinds over a
 * parsed container spec (pure: no file, no log). */
#ifndef RT_POLICY_H
#define RT_POLICY_H

#include <jansson.h>
#include <stdbool.h>

#include "core/base/base.h"
#include "core/config/config.h"

/* Whether the container is privileged the way NVIDIA's toolkit counts it:
 * CAP_SYS_ADMIN is in process.capabilities.bounding. */
bool rt_policy_privileged(const json_t *spec);

/* Whether the selection variables (AMD_VISIBLE_DEVICES, DOCKER_RESOURCE_*)
 * of this container count: always, unless the configuration refuses them
 * from containers that are not privileged. */
bool rt_policy_env_accepted(const struct ctk_config *cfg, const json_t *spec);

/* Refuses the first of the CDI names (sources, parallel, say where each
 * came from) whose kind is not one of cdi-kinds, with one line naming the
 * key; 0 when every one is allowed. */
int rt_policy_check_kinds(const struct ctk_config *cfg, const struct ctk_strv *names, const struct ctk_strv *sources,
                          struct ctk_error **err);

#endif
