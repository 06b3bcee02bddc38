/* amd-ctk-fakefs mount PROFILE MOUNTPOINT [--foreground] [--faults FILE] [--pidfile FILE] [--debug]
 * amd-ctk-fakefs umount MOUNTPOINT */
#include <stdio.h>
#include <string.h>

#include "backends/fakefs/faults.h"
#include "backends/fakefs/fuse/server.h"
#include "backends/fakefs/host.h"
#include "core/base/base.h"
#include "fakefs_cli.h"

static const char mount_help[] =
    "NAME:\n"
    "   amd-ctk-fakefs mount - serve a host profile as a live /sys and /dev over FUSE\n"
    "\n"
    "USAGE:\n"
    "   amd-ctk-fakefs mount PROFILE MOUNTPOINT [--foreground] [--faults FILE] [--pidfile FILE] [--debug]\n"
    "\n"
    "DESCRIPTION:\n"
    "   Mounts MOUNTPOINT/sys and MOUNTPOINT/dev as the simulated host shows them (files,\n"
    "   symbolic links, character device nodes with the profile's numbers, modes and\n"
    "   owners; the mount is nodev), readable by every user (allow_other).  Returns once\n"
    "   the mount is up; the server runs in the background until 'amd-ctk-fakefs umount'\n"
    "   or SIGTERM/SIGINT/SIGHUP, then unmounts.\n"
    "\n"
    "   Writing a mode (SPX, DPX, QPX, CPX / NPS1, NPS4, any case) to a GPU's\n"
    "   current_compute_partition or current_memory_partition repartitions it like the\n"
    "   amdgpu driver: partitions, DRM nodes and KFD nodes are rebuilt and the KFD\n"
    "   generation_id is bumped; a mode the GPU does not offer fails with EINVAL.\n"
    "\n"
    "   MOUNTPOINT/.fakefs/ctl injects faults, one rule per line; reading it lists the\n"
    "   active rules:\n"
    "      eio GLOB        opening/reading/listing matching paths fails with EIO\n"
    "      enoent GLOB     matching paths vanish\n"
    "      delay MS GLOB   operations on matching paths wait MS milliseconds\n"
    "      unplug BDF      hot-unplug the GPU at PCI address BDF\n"
    "      plug BDF        plug it back\n"
    "      clear           drop all rules and plug every GPU back\n"
    "   GLOB is a shell pattern on paths like /sys/class/kfd/kfd/topology/nodes/3/properties\n"
    "   ('*' does not match '/').\n"
    "\n"
    "OPTIONS:\n"
    "   --foreground     stay in the foreground\n"
    "   --faults FILE    apply the rules of FILE before mounting\n"
    "   --pidfile FILE   write the server's process id to FILE\n"
    "   --debug          log refused writes on stderr (with --foreground)\n"
    "   --help, -h       show help\n";

static const char umount_help[] = "NAME:\n"
                                  "   amd-ctk-fakefs umount - unmount an amd-ctk-fakefs mount\n"
                                  "\n"
                                  "USAGE:\n"
                                  "   amd-ctk-fakefs umount MOUNTPOINT\n"
                                  "\n"
                                  "DESCRIPTION:\n"
                                  "   Unmounts MOUNTPOINT if it is an amd-ctk-fakefs mount (other file systems are\n"
                                  "   refused); the server then exits.  A busy mount, or one whose server died, is\n"
                                  "   detached lazily so that it never stays behind.\n"
                                  "\n"
                                  "OPTIONS:\n"
                                  "   --help, -h   show help\n";

static int mount_run(int argc, char **argv)
{
        struct fakefs_mount_opts opts = {0};
        const char *faults_file = NULL, *args[2] = {NULL, NULL};
        int nargs = 0;
        bool dashdash = false;
        for (int i = 1; i < argc; i++) {
                if (!dashdash && argv[i][0] == '-' && argv[i][1] != '\0') {
                        const char **value = NULL;
                        if (strcmp(argv[i], "--") == 0)
                                dashdash = true;
                        else if (strcmp(argv[i], "--foreground") == 0 || strcmp(argv[i], "-f") == 0)
                                opts.foreground = true;
                        else if (strcmp(argv[i], "--debug") == 0)
                                opts.debug = true;
                        else if (strcmp(argv[i], "--faults") == 0)
                                value = &faults_file;
                        else if (strcmp(argv[i], "--pidfile") == 0)
                                value = &opts.pidfile;
                        else
                                return fakefs_usage_error("mount", "unknown option '%s'", argv[i]);
                        if (value != NULL) {
                                if (i + 1 >= argc)
                                        return fakefs_usage_error("mount", "option %s needs a value", argv[i]);
                                *value = argv[++i];
                        }
                        continue;
                }
                if (nargs == 2)
                        return fakefs_usage_error("mount", "unexpected argument '%s'", argv[i]);
                args[nargs++] = argv[i];
        }
        if (nargs != 2)
                return fakefs_usage_error("mount", "expected PROFILE and MOUNTPOINT");
        opts.mountpoint = args[1];
        _cleanup_error_ struct ctk_error *err = NULL;
        _cleanup_fakefs_host_ struct ctk_fakefs_host *host = NULL;
        struct ctk_fakefs_faults *faults = NULL;
        if (ctk_fakefs_host_new(args[0], &host, &err) < 0 || ctk_fakefs_faults_new(host, &faults, &err) < 0)
                return fakefs_fail(err);
        int rc = 0;
        if ((faults_file != NULL && ctk_fakefs_faults_apply_file(faults, faults_file, &err) < 0) ||
            fakefs_fuse_serve(host, faults, &opts, &err) < 0)
                rc = fakefs_fail(err);
        ctk_fakefs_faults_free(faults);
        return rc;
}

static int umount_run(int argc, char **argv)
{
        int i = 1;
        if (i < argc && strcmp(argv[i], "--") == 0)
                i++;
        else if (i < argc && argv[i][0] == '-' && argv[i][1] != '\0')
                return fakefs_usage_error("umount", "unknown option '%s'", argv[i]);
        if (argc - i != 1)
                return fakefs_usage_error("umount", "expected MOUNTPOINT");
        _cleanup_error_ struct ctk_error *err = NULL;
        if (fakefs_unmount(argv[i], &err) < 0)
                return fakefs_fail(err);
        return 0;
}

const struct fakefs_cmd fakefs_cmd_mount = {
    .name = "mount",
    .summary = "serve a profile as a live /sys and /dev over FUSE (repartitioning, faults)",
    .help = mount_help,
    .run = mount_run,
};

const struct fakefs_cmd fakefs_cmd_umount = {
    .name = "umount",
    .summary = "unmount an amd-ctk-fakefs mount",
    .help = umount_help,
    .run = umount_run,
};
