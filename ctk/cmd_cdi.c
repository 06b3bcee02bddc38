/* amd-ctk cdi: Container Device Interface related commands. */
#include "cmd_cdi.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/base/base.h"

int ctk_cdi_discover(struct ctk_cli *cli, struct ctk_gpu_list *gpus, struct ctk_cdi_host *host, struct ctk_error **err)
{
        _cleanup_backend_ struct ctk_backend *b = NULL;
        *gpus = (struct ctk_gpu_list){0};
        if (ctk_cli_open_backend(cli, &b, err) < 0 || ctk_discover_gpus(b, gpus, err) < 0)
                return -1;
        if (host != NULL && ctk_cdi_host_collect(b, gpus, host, err) < 0) {
                ctk_gpu_list_clear(gpus);
                return -1;
        }
        return 0;
}

static const struct ctk_cmd *const cdi_subs[] = {&ctk_cmd_cdi_generate, &ctk_cmd_cdi_validate, &ctk_cmd_cdi_list, NULL};

const struct ctk_cmd ctk_cmd_cdi = {
    .name = "cdi",
    .summary = "Container Device interface related commands",
    .description = "The Container Device Interface (CDI) specification of this host's AMD GPUs: one CDI device per "
                   "GPU or GPU partition (amd.com/gpu=0, amd.com/gpu=1, ...) and amd.com/gpu=all, which container "
                   "engines with CDI support (Docker 25 and later, Podman, containerd, CRI-O) give to containers: "
                   "'docker run --device amd.com/gpu=0', 'podman run --device amd.com/gpu=all'.",
    .subs = cdi_subs,
    .files = CTK_CDI_DEFAULT_OUTPUT "\tthe CDI specification of this host's GPUs\n" CTK_CDI_STATIC_DIR
                                    ", " CTK_CDI_DYNAMIC_DIR
                                    "\tthe CDI spec directories engines read (config key cdi-spec-dirs)",
    .examples = "    sudo amd-ctk cdi generate\n"
                "    amd-ctk cdi validate\n"
                "    amd-ctk cdi list",
    .see_also = "podman-run(1) docker-run(1)",
};
