/* The names the programs share, said once: the container environment's
 * selection variables, the toolkit's files and default directories, the
 * CDI spec directories and the CDI kind of our devices. */
#ifndef CTK_NAMES_H
#define CTK_NAMES_H

#include <stdbool.h>

#define CTK_VISIBLE_DEVICES "AMD_VISIBLE_DEVICES"
#define CTK_RESOURCE_PREFIX "DOCKER_RESOURCE_"

/* A selection variable of a container's environment: the name, or with
 * kinds the prefix of one name per resource kind (config key
 * resource-kinds: DOCKER_RESOURCE_<KIND>, the kind in any case). */
struct ctk_selection_variable {
        const char *name;
        bool kinds;
};
/* All of them (names.c), up to an entry whose name is NULL: the selection
 * (core/device/select.c) and the runtime's quick look at a spec
 * (runtime/bundle.c) read the same list. */
extern const struct ctk_selection_variable ctk_selection_variables[];

/* The toolkit's files. */
#define CTK_DEFAULT_CONFIG_PATH "/etc/amd-container-toolkit/config.json"
#define CTK_DEFAULT_STATE_DIR   "/var/lib/amd-container-toolkit"
#define CTK_DEFAULT_LOG_FILE    "/var/log/amd-container-runtime.log"

/* CDI: the spec directories (CDI's own defaults, in their order), the
 * request annotations' prefix, the kind of our devices. */
#define CTK_CDI_STATIC_DIR        "/etc/cdi"
#define CTK_CDI_DYNAMIC_DIR       "/var/run/cdi"
#define CTK_CDI_ANNOTATION_PREFIX "cdi.k8s.io/"
#define CTK_CDI_DEFAULT_VENDOR    "amd.com"
#define CTK_CDI_DEFAULT_CLASS     "gpu"
#define CTK_CDI_DEFAULT_KIND      CTK_CDI_DEFAULT_VENDOR "/" CTK_CDI_DEFAULT_CLASS

#endif
