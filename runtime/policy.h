/* Who may have GPUs and CDI devices: the decisions of the configuration
 * keys accept-visible-devices-envvar-when-unprivileged and cdi-kinds over a
 * parsed container spec (pure: no file, no log). */
#ifndef RT_POLICY_H
#define RT_POLICY_H

#include <jansson.h>
#include <stdbool.h>

#include "core/base/base.h"
#include "core/config/config.h"

/* Whether the container is privileged on the host: CAP_SYS_ADMIN in
 * process.capabilities.bounding (as NVIDIA's toolkit counts it) and no
 * user namespace of its own (none in linux.namespaces, no uidMappings nor
 * gidMappings: in one, CAP_SYS_ADMIN is that namespace's, not the host's:
 * Kubernetes' hostUsers: false, podman --userns=auto, Docker's
 * userns-remap).  Else why not. */
enum rt_privilege {
        RT_PRIVILEGED,
        RT_UNPRIVILEGED_USERNS, /* a user namespace of its own */
        RT_UNPRIVILEGED_CAPS,   /* no CAP_SYS_ADMIN in its bounding set */
};
enum rt_privilege rt_policy_privilege(const json_t *spec);
/* "privileged", "unprivileged: user namespace (...)", "unprivileged:
 * CAP_SYS_ADMIN is not in its bounding set": for the log. */
const char *rt_policy_privilege_why(enum rt_privilege p);

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
