#include "help.h"

#include <stdio.h>

#include "core/config/config.h"

void rt_print_version(void)
{
        /* Before runc's own lines: `docker info` keeps the last line that
         * contains "version" and the "commit:" line, which stay runc's. */
        (void)printf("amd-container-runtime version %s (%s)\n", ctk_version, ctk_git_commit);
}

static const struct ctk_opt opts[] = {
    CTK_VALUE("amd-config", "FILE",
              "the toolkit configuration file (JSON; default " CTK_DEFAULT_CONFIG_PATH "), before every other "
              "argument"),
    {0},
};

const struct ctk_cmd rt_program = {
    .name = "amd-container-runtime",
    .summary = "OCI runtime that gives containers AMD GPUs, over runc or crun",
    .usage = "amd-container-runtime [--amd-config=FILE] [RUNTIME OPTIONS] COMMAND [ARGUMENTS]",
    .description =
        "An OCI runtime with runc's command line, for container engines such as Docker.  On create and run it reads "
        "the bundle's config.json, resolves the GPUs and CDI devices requested in the container's environment "
        "(AMD_VISIBLE_DEVICES, DOCKER_RESOURCE_*) and its request annotations (cdi.k8s.io/), adds /dev/kfd and each "
        "GPU's "
        "DRM nodes (device entries and cgroup rules) and the container edits of the CDI devices, writes the spec "
        "back atomically, and executes the low-level runtime (runc or crun) with the same arguments.  Every other "
        "command passes straight through.  A container that asks for no GPU and no CDI device is left exactly as "
        "plain runc would run it.\n"
        "\n"
        "--help and --version print amd-container-runtime's help or version, then the low-level runtime's.",
    .details =
        "Fully qualified CDI names (vendor/class=name) of the kinds the configuration key cdi-kinds lists (default "
        "amd.com/gpu only; \"*\" for any vendor; a name of another kind fails the container with one line naming "
        "the key) resolve through the CDI spec directories "
        "(configuration key cdi-spec-dirs, default /etc/cdi then /var/run/cdi; *.json and *.yaml) as CDI runtimes "
        "resolve them; a name that resolves to nothing, or a conflict between two devices, fails the container "
        "with one line naming the cause.  The configuration key mode says what plain tokens mean: auto (default) "
        "the GPUs found by discovery; cdi the amd.com/gpu devices of the spec, which must still match the host's "
        "/dev/dri (else the container fails naming the difference and the 'amd-ctk cdi generate' command that "
        "writes the spec again with its options, or the spec is regenerated when cdi-refresh-on-stale is true); "
        "legacy discovery only, where a CDI name is an error and annotations are ignored.\n"
        "\n"
        "Request annotations are those whose key begins with one of the prefixes of the configuration key "
        "cdi-annotation-prefixes (default cdi.k8s.io/; [] turns them off).  With "
        "accept-visible-devices-envvar-when-unprivileged set to false, AMD_VISIBLE_DEVICES and DOCKER_RESOURCE_KIND "
        "are ignored, with one line in the log, in a container that is not privileged on the host (CAP_SYS_ADMIN is "
        "not in process.capabilities.bounding, or it has a user namespace of its own, where CAP_SYS_ADMIN is not the "
        "host's): it runs without GPUs.  Privileged containers, request annotations and the "
        "engine's own CDI injection are not affected.  On a shared Kubernetes node, where the runtime may run every "
        "pod, set it false and let the device plugin give the GPUs; where users set annotations themselves (docker "
        "run --annotation, podman run --annotation), set cdi-annotation-prefixes to [] as well.\n"
        "\n"
        "With the GPU tracker enabled (amd-ctk gpu-tracker), the container is recorded as a user of its GPUs, all or "
        "nothing.  create and run record them before they execute the low-level runtime: a container refused a GPU "
        "fails with one line naming the GPU and the container holding it, and keeps nothing.  delete runs the "
        "low-level runtime's delete as a child and releases the GPUs once the container is gone.\n"
        "\n"
        "The host's GPUs are read below the configuration key root (default /); a simulated host is given as a "
        "directory there (amd-ctk-fakefs mount or materialize).  The runtime carries no simulator: a configuration "
        "with the key profile, or AMD_CTK_PROFILE in its environment, fails every call with one line saying so.\n"
        "\n"
        "Errors are one line on standard error and in the low-level runtime's --log file, in its format, so that "
        "the engine shows them.  The log file is written only when there is something to log for a container.",
    .opts = opts,
    .print_version = rt_print_version,
    .version = ctk_version,
    .date = ctk_build_date,
    .exit_status = "0\tsuccess: the low-level runtime's status otherwise, as it runs in the runtime's place\n"
                   "1\tthe container cannot get what it asks for (one line says why), or the configuration is "
                   "invalid\n"
                   "2\tan unknown option of amd-container-runtime (--amd-...), or one without its value",
    .environment =
        "AMD_CTK_CONFIG\tthe toolkit configuration file, when --amd-config is not given\n"
        "AMD_CTK_PROFILE\tnot read: set, every call fails (a simulated host is given as the key root)\n"
        "AMD_VISIBLE_DEVICES\t(in the container's environment) the GPUs to give the container: all, "
        "none, a comma-separated list of indices, ranges a-b and UUIDs, as listed by 'amd-ctk gpu list', "
        "and fully qualified CDI names (amd.com/gpu=1; example.com/nic=eth0 when cdi-kinds lists its kind); unset, "
        "empty or void: no "
        "change to the container; a GPU that does not exist fails the container with one clear message\n"
        "DOCKER_RESOURCE_KIND\t(in the container's environment) the same, for the resource kinds named in "
        "the configuration (default AMD_GPU and GPU)",
    .files = CTK_DEFAULT_CONFIG_PATH
    "\ttoolkit configuration ('amd-ctk config default' prints every key)\n" CTK_DEFAULT_LOG_FILE
    "\truntime log (key log-file)\n" CTK_CDI_STATIC_DIR ", " CTK_CDI_DYNAMIC_DIR
    "\tCDI spec directories (key cdi-spec-dirs); 'amd-ctk cdi list --all-vendors' "
    "lists what they offer\n" CTK_DEFAULT_STATE_DIR "\tthe GPU tracker's state (key state-dir)",
    .examples = "Docker runs it once 'amd-ctk runtime configure' named it in daemon.json:\n"
                "\n"
                "    docker run --runtime=amd -e AMD_VISIBLE_DEVICES=0,1 rocm/rocm-terminal rocm-smi\n"
                "\n"
                "Its version and the low-level runtime's:\n"
                "\n"
                "    amd-container-runtime --version",
    .see_also = "amd-ctk(1) amd-ctk-fakefs(1) runc(8) crun(1)",
};
