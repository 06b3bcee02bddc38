/* amd-ctk cdi: Container Device Interface related commands. */
#include "cmd_cdi.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/base/base.h"

static void cdi_usage(FILE *f)
{
        fputs("NAME:\n"
              "   amd-ctk cdi - Container Device interface related commands\n"
              "\n"
              "USAGE:\n"
              "   amd-ctk cdi command [options]\n"
              "\n"
              "COMMANDS:\n"
              "   generate   Generate the CDI spec for GPUs\n"
              "   validate   Validate the CDI spec for GPUs\n"
              "   list       List the available AMD GPU devices\n"
              "\n"
              "Run 'amd-ctk cdi COMMAND --help' for the options of a command.\n",
              f);
}

int ctk_cdi_usage_error(const char *cmd, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "amd-ctk: cdi %s: ", cmd);
        vfprintf(stderr, fmt, ap);
        fprintf(stderr, " (see 'amd-ctk cdi %s --help')\n", cmd);
        va_end(ap);
        return 2;
}

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

static int run_cdi(struct ctk_cli *cli, int argc, char **argv)
{
        if (argc < 2) {
                cdi_usage(stderr);
                return 2;
        }
        const char *sub = argv[1];
        if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0 || strcmp(sub, "help") == 0) {
                cdi_usage(stdout);
                return 0;
        }
        if (strcmp(sub, "generate") == 0)
                return ctk_cdi_generate_main(cli, argc - 1, argv + 1);
        if (strcmp(sub, "validate") == 0)
                return ctk_cdi_validate_main(cli, argc - 1, argv + 1);
        if (strcmp(sub, "list") == 0)
                return ctk_cdi_list_main(cli, argc - 1, argv + 1);
        fprintf(stderr, "amd-ctk: unknown cdi command '%s'\n\n", sub);
        cdi_usage(stderr);
        return 2;
}

CTK_COMMAND(cdi_command, .name = "cdi", .summary = "Container Device interface related commands", .order = 20,
            .run = run_cdi)
