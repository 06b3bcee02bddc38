/* amd-ctk-fakefs materialize PROFILE DIR */
#include <stdio.h>

#include "backends/fakefs/host.h"
#include "backends/fakefs/materialize.h"
#include "core/base/base.h"
#include "fakefs_cli.h"

static int run(void *ctx, const struct ctk_cmdline *cl)
{
        (void)ctx;
        _cleanup_error_ struct ctk_error *err = NULL;
        _cleanup_fakefs_host_ struct ctk_fakefs_host *host = NULL;
        if (ctk_fakefs_host_new(cl->args[0], &host, &err) < 0)
                return fakefs_fail(err);
        _cleanup_fakefs_tree_ struct ctk_fakefs_tree *t = ctk_fakefs_host_snapshot(host);
        if (ctk_fakefs_materialize(t, cl->args[1], &err) < 0)
                return fakefs_fail(err);
        return 0;
}

const struct ctk_cmd fakefs_cmd_materialize = {
    .name = "materialize",
    .summary = "write a profile as a directory tree (DIR/sys, DIR/dev) for --root",
    .args = "PROFILE DIR",
    .min_args = 2,
    .max_args = 2,
    .description = "Creates DIR/sys and DIR/dev as the simulated host would show them: sysfs files, directories, "
                   "symbolic links and real character device nodes (mknod, so root or CAP_MKNOD is needed) with "
                   "the profile's major/minor, mode, uid and gid.  Afterwards 'amd-ctk --root DIR ...' sees the "
                   "same host as 'amd-ctk --profile PROFILE ...'.  DIR is created if missing; DIR/sys and DIR/dev "
                   "must not exist.  On failure nothing is left behind.",
    .run = run,
    .files = "PROFILE\tthe host profile, read\nDIR/sys, DIR/dev\tthe tree written",
    .examples = "    amd-ctk-fakefs materialize sim/profiles/mi300x-cpx-x8.json /tmp/host\n"
                "    amd-ctk --root /tmp/host cdi list",
};
