/* amd-ctk-fakefs mount PROFILE MOUNTPOINT [--foreground] [--faults FILE] [--pidfile FILE] [--debug]
 * amd-ctk-fakefs umount MOUNTPOINT */
#include <stdio.h>

#include "backends/fakefs/faults.h"
#include "backends/fakefs/fuse/server.h"
#include "backends/fakefs/host.h"
#include "core/base/base.h"
#include "fakefs_cli.h"

enum { O_FOREGROUND, O_FAULTS, O_PIDFILE, O_DEBUG };

static int mount_run(void *ctx, const struct ctk_cmdline *cl)
{
        (void)ctx;
        struct fakefs_mount_opts opts = {
            .foreground = cl->opt[O_FOREGROUND].on,
            .debug = cl->opt[O_DEBUG].on,
            .pidfile = cl->opt[O_PIDFILE].value,
        };
        const char *faults_file = cl->opt[O_FAULTS].value;
        opts.mountpoint = cl->args[1];
        _cleanup_error_ struct ctk_error *err = NULL;
        _cleanup_fakefs_host_ struct ctk_fakefs_host *host = NULL;
        struct ctk_fakefs_faults *faults = NULL;
        if (ctk_fakefs_host_new(cl->args[0], &host, &err) < 0 || ctk_fakefs_faults_new(host, &faults, &err) < 0)
                return fakefs_fail(err);
        int rc = 0;
        if ((faults_file != NULL && ctk_fakefs_faults_apply_file(faults, faults_file, &err) < 0) ||
            fakefs_fuse_serve(host, faults, &opts, &err) < 0)
                rc = fakefs_fail(err);
        ctk_fakefs_faults_free(faults);
        return rc;
}

static int umount_run(void *ctx, const struct ctk_cmdline *cl)
{
        (void)ctx;
        _cleanup_error_ struct ctk_error *err = NULL;
        if (fakefs_unmount(cl->args[0], &err) < 0)
                return fakefs_fail(err);
        return 0;
}

static const struct ctk_opt mount_opts[] = {
    [O_FOREGROUND] = CTK_FLAG("foreground f", "stay in the foreground"),
    [O_FAULTS] = CTK_VALUE("faults", "FILE", "apply the rules of FILE before mounting"),
    [O_PIDFILE] = CTK_VALUE("pidfile", "FILE", "write the server's process id to FILE"),
    [O_DEBUG] = CTK_FLAG("debug", "log refused writes on standard error (with --foreground)"),
    {0},
};

const struct ctk_cmd fakefs_cmd_mount = {
    .name = "mount",
    .summary = "serve a profile as a live /sys and /dev over FUSE (repartitioning, faults)",
    .args = "PROFILE MOUNTPOINT",
    .min_args = 2,
    .max_args = 2,
    .description = "Mounts MOUNTPOINT/sys and MOUNTPOINT/dev as the simulated host shows them (files, symbolic "
                   "links, character device nodes with the profile's numbers, modes and owners; the mount is "
                   "nodev), readable by every user (allow_other).  Returns once the mount is up; the server runs "
                   "in the background until 'amd-ctk-fakefs umount' or SIGTERM/SIGINT/SIGHUP, then unmounts.\n"
                   "\n"
                   "Writing a mode (SPX, DPX, QPX, CPX / NPS1, NPS4, any case) to a GPU's "
                   "current_compute_partition or current_memory_partition repartitions it like the amdgpu driver: "
                   "partitions, DRM nodes and KFD nodes are rebuilt and the KFD generation_id is bumped; a mode the "
                   "GPU does not offer fails with EINVAL.\n"
                   "\n"
                   "MOUNTPOINT/.fakefs/ctl injects faults, one rule per line; reading it lists the active rules:\n"
                   "\n"
                   "   eio GLOB        opening/reading/listing matching paths fails with EIO\n"
                   "   enoent GLOB     matching paths vanish\n"
                   "   delay MS GLOB   operations on matching paths wait MS milliseconds\n"
                   "   unplug BDF      hot-unplug the GPU at PCI address BDF\n"
                   "   plug BDF        plug it back\n"
                   "   clear           drop all rules and plug every GPU back\n"
                   "\n"
                   "GLOB is a shell pattern on paths like /sys/class/kfd/kfd/topology/nodes/3/properties ('*' does "
                   "not match '/').",
    .opts = mount_opts,
    .run = mount_run,
    .exit_status = "1\tthe profile is invalid, or the mount failed (no FUSE, a busy mount point)",
    .files = "PROFILE\tthe host profile, read\nMOUNTPOINT/.fakefs/ctl\tthe control file: faults, hot-unplug\n"
             "/dev/fuse\tFUSE",
    .examples = "    amd-ctk-fakefs mount sim/profiles/mi300x-spx-x8.json /tmp/host --pidfile /tmp/host.pid\n"
                "    echo CPX > /tmp/host/sys/bus/pci/devices/0000:05:00.0/current_compute_partition\n"
                "    echo 'eio /sys/class/kfd/kfd/topology/nodes/2/*' > /tmp/host/.fakefs/ctl",
    .see_also = "fusermount3(1)",
};

const struct ctk_cmd fakefs_cmd_umount = {
    .name = "umount",
    .summary = "unmount an amd-ctk-fakefs mount",
    .args = "MOUNTPOINT",
    .min_args = 1,
    .max_args = 1,
    .description = "Unmounts MOUNTPOINT if it is an amd-ctk-fakefs mount (other file systems are refused); the "
                   "server then exits.  A busy mount, or one whose server died, is detached lazily so that it "
                   "never stays behind.",
    .run = umount_run,
    .exit_status = "1\tMOUNTPOINT is not an amd-ctk-fakefs mount, or cannot be unmounted",
    .files = "/proc/self/mountinfo\tthe mounts, to check MOUNTPOINT's",
    .examples = "    amd-ctk-fakefs umount /tmp/host",
};
