/* Output of `amd-ctk gpu list` (ctk/cmd_gpu.c) and of its --all-vendors
 * variant (ctk/gpu_all_vendors.c). Each builds its whole output before
 * printing, so an error never leaves partial output. */
#ifndef CTK_GPU_LIST_H
#define CTK_GPU_LIST_H

#include <stdbool.h>

#include "cli.h"

/* `amd-ctk gpu list --all-vendors`: every display device of the host, AMD or not. */
int ctk_gpu_list_all_vendors(struct ctk_cli *cli, bool json);

#endif
