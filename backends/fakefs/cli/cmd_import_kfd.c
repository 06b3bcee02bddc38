/* amd-ctk-fakefs import-kfd CAPTURE_DIR [-o FILE] [--name NAME] [--description TEXT] */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backends/fakefs/import.h"
#include "core/base/base.h"
#include "fakefs_cli.h"

enum { O_OUTPUT, O_NAME, O_DESCRIPTION };

static int run(void *ctx, const struct ctk_cmdline *cl)
{
        (void)ctx;
        struct ctk_fakefs_import_opts opts = {.name = cl->opt[O_NAME].value,
                                              .description = cl->opt[O_DESCRIPTION].value};
        const char *output = cl->opt[O_OUTPUT].value, *capture = cl->args[0];
        if (output != NULL && output[0] == '\0')
                return ctk_cmdline_bad_value(cl, "--output", output, "a file name");
        _cleanup_error_ struct ctk_error *err = NULL;
        _cleanup_free_ char *json = NULL;
        if (ctk_fakefs_import_kfd(capture, &opts, &json, &err) < 0)
                return fakefs_fail(err);
        if (output == NULL) {
                if (fputs(json, stdout) == EOF || fflush(stdout) != 0) {
                        ctk_error_errno(&err, errno, "writing the profile to stdout");
                        return fakefs_fail(err);
                }
                return 0;
        }
        if (ctk_file_write_atomic(output, json, strlen(json), 0644, &err) < 0)
                return fakefs_fail(err);
        return 0;
}

static const struct ctk_opt import_opts[] = {
    [O_OUTPUT] = CTK_VALUE("output o", "FILE", "write the profile to FILE (atomically) instead of the standard output"),
    [O_NAME] = CTK_VALUE("name", "NAME", "profile name (default: the capture directory's name)"),
    [O_DESCRIPTION] = CTK_VALUE("description", "TEXT", "profile description"),
    {0},
};

const struct ctk_cmd fakefs_cmd_import_kfd = {
    .name = "import-kfd",
    .summary = "make a host profile from a KFD topology capture",
    .args = "CAPTURE_DIR",
    .min_args = 1,
    .max_args = 1,
    .description = "CAPTURE_DIR is a copy of /sys/class/kfd/kfd/topology: nodes/<n>/properties (and optionally "
                   "nodes/<n>/gpu_id, nodes/<n>/name, generation_id).  The profile keeps the captured KFD nodes, "
                   "render minors and properties, and synthesises PCI and DRM trees consistent with them: one PCI "
                   "device per domain/bus/device of location_id, partition 0 under the PCI device and the other "
                   "partitions as amdgpu_xcp_* platform devices, card minor = render minor - 128, partition mode "
                   "inferred from the partitions per GPU.  Output is deterministic.",
    .opts = import_opts,
    .run = run,
    .files = "CAPTURE_DIR\tthe capture, read\nFILE\tthe profile written (--output)",
    .examples = "    amd-ctk-fakefs import-kfd sim/captures/mi308-x8 --name mi308-x8 -o mi308-x8.json",
};
