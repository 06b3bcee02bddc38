/* amd-ctk version (and amd-ctk --version) */
#include <stdio.h>

#include "cli.h"

static int run_version(void *ctx, const struct ctk_cmdline *cl)
{
        (void)ctx;
        (void)cl;
        ctk_cmdline_print_version();
        return 0;
}

const struct ctk_cmd ctk_cmd_version = {
    .name = "version",
    .summary = "Show the version",
    .description = "Prints the version of amd-ctk (git's description of the source tree it was built from: "
                   "\"-dirty\" when that tree had changes not committed), the date of the build and the commit. "
                   "'amd-ctk --version' prints the same.",
    .run = run_version,
    .files = "-",
    .examples = "    amd-ctk version",
};
