/* amd-ctk cdi generate|validate|list (one file per subcommand). */
#ifndef CTK_CMD_CDI_H
#define CTK_CMD_CDI_H

#include "cli.h"
#include "core/cdi/cdi.h"
#include "core/device/device.h"

/* `amd-ctk cdi generate`: argc/argv from the subcommand on; returns the exit status. */
int ctk_cdi_generate_main(struct ctk_cli *cli, int argc, char **argv);
/* `amd-ctk cdi validate`; returns the exit status. */
int ctk_cdi_validate_main(struct ctk_cli *cli, int argc, char **argv);
/* `amd-ctk cdi list`; returns the exit status. */
int ctk_cdi_list_main(struct ctk_cli *cli, int argc, char **argv);

/* Discovers the GPUs through the backend of --root/--profile/config and,
 * when host != NULL, stats their device nodes and /dev/kfd. */
int ctk_cdi_discover(struct ctk_cli *cli, struct ctk_gpu_list *gpus, struct ctk_cdi_host *host, struct ctk_error **err);

/* Prints "amd-ctk: <cmd>: <msg>" for a command-line mistake; returns 2. */
int ctk_cdi_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
