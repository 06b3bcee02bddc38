/* amd-ctk version */
#include <stdio.h>

#include "cli.h"

static int run_version(struct ctk_cli *cli, int argc, char **argv)
{
        (void)cli;
        if (ctk_cli_wants_help(argc, argv)) {
                puts("Usage: amd-ctk version\n\nShow the version, build date and commit of amd-ctk.");
                return 0;
        }
        if (argc > 1) {
                fprintf(stderr, "amd-ctk: version takes no arguments (got '%s')\n", argv[1]);
                return 2;
        }
        printf("Version: %s\nBuild Date: %s\nGitCommit: %s\n", CTK_VERSION, CTK_BUILD_DATE, CTK_GIT_COMMIT);
        return 0;
}

CTK_COMMAND(version_command, .name = "version", .summary = "Show the version", .order = 0, .run = run_version)
