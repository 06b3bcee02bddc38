/* amd-ctk cdi generate|validate|list (one file per subcommand). */
#ifndef CTK_CMD_CDI_H
#define CTK_CMD_CDI_H

#include "cli.h"
#include "core/cdi/cdi.h"
#include "core/device/device.h"

/* `amd-ctk cdi generate`, `cdi validate`, `cdi list`. */
extern const struct ctk_cmd ctk_cmd_cdi_generate;
extern const struct ctk_cmd ctk_cmd_cdi_validate;
extern const struct ctk_cmd ctk_cmd_cdi_list;

/* Discovers the GPUs through the backend of --root/--profile/config and,
 * when host != NULL, stats their device nodes and /dev/kfd. */
int ctk_cdi_discover(struct ctk_cli *cli, struct ctk_gpu_list *gpus, struct ctk_cdi_host *host, struct ctk_error **err);

#endif
