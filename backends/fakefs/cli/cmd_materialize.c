/* amd-ctk-fakefs materialize PROFILE DIR */
#include <stdio.h>
#include <string.h>

#include "backends/fakefs/host.h"
#include "backends/fakefs/materialize.h"
#include "core/base/base.h"
#include "fakefs_cli.h"

static const char help[] = "NAME:\n"
                           "   amd-ctk-fakefs materialize - write a host profile as a plain directory tree\n"
                           "\n"
                           "USAGE:\n"
                           "   amd-ctk-fakefs materialize PROFILE DIR\n"
                           "\n"
                           "DESCRIPTION:\n"
                           "   Creates DIR/sys and DIR/dev as the simulated host would show them: sysfs files,\n"
                           "   directories, symbolic links and real character device nodes (mknod, so root or\n"
                           "   CAP_MKNOD is needed) with the profile's major/minor, mode, uid and gid.\n"
                           "   Afterwards 'amd-ctk --root DIR ...' sees the same host as\n"
                           "   'amd-ctk --profile PROFILE ...'.  DIR is created if missing; DIR/sys and DIR/dev\n"
                           "   must not exist.  On failure nothing is left behind.\n"
                           "\n"
                           "OPTIONS:\n"
                           "   --help, -h   show help\n";

static int run(int argc, char **argv)
{
        int i = 1;
        if (i < argc && strcmp(argv[i], "--") == 0)
                i++;
        for (int j = i; j < argc; j++)
                if (argv[j][0] == '-' && argv[j][1] != '\0')
                        return fakefs_usage_error("materialize", "unknown option '%s'", argv[j]);
        if (argc - i != 2)
                return fakefs_usage_error("materialize", "expected PROFILE and DIR");
        _cleanup_error_ struct ctk_error *err = NULL;
        _cleanup_fakefs_host_ struct ctk_fakefs_host *host = NULL;
        if (ctk_fakefs_host_new(argv[i], &host, &err) < 0)
                return fakefs_fail(err);
        _cleanup_fakefs_tree_ struct ctk_fakefs_tree *t = ctk_fakefs_host_snapshot(host);
        if (ctk_fakefs_materialize(t, argv[i + 1], &err) < 0)
                return fakefs_fail(err);
        return 0;
}

const struct fakefs_cmd fakefs_cmd_materialize = {
    .name = "materialize",
    .summary = "write a profile as a directory tree (DIR/sys, DIR/dev) for --root",
    .help = help,
    .run = run,
};
