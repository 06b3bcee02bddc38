/* amd-ctk-fakefs import-kfd CAPTURE_DIR [-o FILE] [--name NAME] [--description TEXT] */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backends/fakefs/import.h"
#include "core/base/base.h"
#include "fakefs_cli.h"

static const char help[] = "NAME:\n"
                           "   amd-ctk-fakefs import-kfd - make a host profile from a KFD topology capture\n"
                           "\n"
                           "USAGE:\n"
                           "   amd-ctk-fakefs import-kfd CAPTURE_DIR [-o FILE] [--name NAME] [--description TEXT]\n"
                           "\n"
                           "DESCRIPTION:\n"
                           "   CAPTURE_DIR is a copy of /sys/class/kfd/kfd/topology: nodes/<n>/properties (and\n"
                           "   optionally nodes/<n>/gpu_id, nodes/<n>/name, generation_id).  The profile keeps\n"
                           "   the captured KFD nodes, render minors and properties, and synthesises PCI and DRM\n"
                           "   trees consistent with them: one PCI device per domain/bus/device of location_id,\n"
                           "   partition 0 under the PCI device and the other partitions as amdgpu_xcp_*\n"
                           "   platform devices, card minor = render minor - 128, partition mode inferred from\n"
                           "   the partitions per GPU.  Output is deterministic.\n"
                           "\n"
                           "OPTIONS:\n"
                           "   -o FILE, --output FILE   write the profile to FILE (atomically) instead of stdout\n"
                           "   --name NAME              profile name (default: the capture directory's name)\n"
                           "   --description TEXT       profile description\n"
                           "   --help, -h               show help\n";

static int run(int argc, char **argv)
{
        struct ctk_fakefs_import_opts opts = {0};
        const char *output = NULL, *capture = NULL;
        bool dashdash = false;
        for (int i = 1; i < argc; i++) {
                bool missing = false;
                const char *v;
                if (!dashdash && argv[i][0] == '-' && argv[i][1] != '\0') {
                        if (strcmp(argv[i], "--") == 0)
                                dashdash = true;
                        else if ((v = ctk_argv_option_value(argc, argv, &i, "-o", &missing)) != NULL ||
                                 (v = ctk_argv_option_value(argc, argv, &i, "--output", &missing)) != NULL)
                                output = v;
                        else if ((v = ctk_argv_option_value(argc, argv, &i, "--name", &missing)) != NULL)
                                opts.name = v;
                        else if ((v = ctk_argv_option_value(argc, argv, &i, "--description", &missing)) != NULL)
                                opts.description = v;
                        else if (missing)
                                return fakefs_usage_error("import-kfd", "option %s needs a value", argv[i]);
                        else
                                return fakefs_usage_error("import-kfd", "unknown option '%s'", argv[i]);
                        continue;
                }
                if (capture != NULL)
                        return fakefs_usage_error("import-kfd", "unexpected argument '%s'", argv[i]);
                capture = argv[i];
        }
        if (capture == NULL)
                return fakefs_usage_error("import-kfd", "expected CAPTURE_DIR");
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

const struct fakefs_cmd fakefs_cmd_import_kfd = {
    .name = "import-kfd",
    .summary = "make a host profile from a KFD topology capture",
    .help = help,
    .run = run,
};
