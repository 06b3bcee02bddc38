/* amd-ctk-fakefs: simulated AMD GPU hosts from host profiles. */
#include <stdio.h>

#include "fakefs_cli.h"

static const struct ctk_cmd *const commands[] = {
    &fakefs_cmd_materialize, &fakefs_cmd_import_kfd, &fakefs_cmd_mount, &fakefs_cmd_umount, NULL,
};

static const struct ctk_cmd amd_ctk_fakefs = {
    .name = "amd-ctk-fakefs",
    .summary = "simulated AMD GPU hosts (fake /sys and /dev) from host profiles",
    .description = "Serves a host profile (a JSON file describing GPUs, partitions, PCI addresses, unique ids, "
                   "device numbers and owners) as the /sys and /dev an amdgpu host has: over FUSE, live (a "
                   "repartition is a write, faults can be injected), or written out as a directory tree.  'amd-ctk "
                   "--root DIR' and 'amd-container-runtime' (config key root) then see that host; 'amd-ctk "
                   "--profile FILE' simulates it in memory.  Host profiles are JSON files (see sim/profiles/README.md "
                   "in the sources).",
    .subs = commands,
    .print_version = ctk_cmdline_print_version,
    .version = ctk_version,
    .date = ctk_build_date,
    .files = "-",
    .examples = "A simulated 4-GPU host, its GPUs, and the mount gone again:\n"
                "\n"
                "    mkdir /tmp/host\n"
                "    amd-ctk-fakefs mount sim/profiles/seed-4xmi210.json /tmp/host\n"
                "    amd-ctk --root /tmp/host gpu list\n"
                "    amd-ctk-fakefs umount /tmp/host",
    .see_also = "amd-ctk(1) amd-container-runtime(1)",
};

int fakefs_fail(const struct ctk_error *err)
{
        fprintf(stderr, "amd-ctk-fakefs: %s\n", err != NULL ? err->msg : "unknown error");
        return 1;
}

int main(int argc, char **argv)
{
        int rc = ctk_cmdline_main(&amd_ctk_fakefs, argc, argv, NULL);
        /* output cut by a full disk or a closed pipe fails a command that
         * did not fail already */
        _cleanup_error_ struct ctk_error *err = NULL;
        if (rc == 0 && ctk_stdout_close(&err) < 0)
                rc = fakefs_fail(err);
        return rc;
}
