/* amd-ctk seccomp profile [--base FILE]
 *
 * Prints a Docker seccomp profile that also allows the NUMA memory-policy
 * syscalls, for `docker run --security-opt seccomp=FILE` without our runtime. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "core/base/base.h"
#include "core/json/json.h"
#include "core/oci/oci.h"

static int load_base(const char *path, json_t **out, struct ctk_error **err)
{
        bool is_stdin = strcmp(path, "-") == 0;
        const char *name = is_stdin ? "<stdin>" : path;
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        if (!is_stdin && ctk_file_read_all(path, &text, &len, err) < 0)
                return -1;
        json_error_t jerr;
        json_t *j = is_stdin ? json_loadf(stdin, 0, &jerr) : json_loadb(text, len, 0, &jerr);
        if (j == NULL) {
                if (jerr.line <= 0)
                        return ctk_error_set(err, EINVAL, "cannot read %s: %s", CTK_CUT(name), jerr.text);
                return ctk_error_set(err, EINVAL, "%s:%d:%d: %s", CTK_CUT(name), jerr.line, jerr.column, jerr.text);
        }
        *out = j;
        return 0;
}

static int run_profile(void *ctx, const struct ctk_cmdline *cl)
{
        (void)ctx;
        const char *base = cl->opt[0].value;
        if (base != NULL && base[0] == '\0')
                return ctk_cmdline_bad_value(cl, "--base", base, "a file name, or '-' for the standard input");

        _cleanup_error_ struct ctk_error *err = NULL;
        _cleanup_json_ json_t *profile = NULL;
        if (base != NULL) {
                if (load_base(base, &profile, &err) < 0)
                        return ctk_cli_fail(err);
        } else if ((profile = ctk_seccomp_docker_default_profile()) == NULL) {
                ctk_error_set(&err, ENOMEM, "out of memory");
                return ctk_cli_fail(err);
        }
        bool changed = false;
        if (ctk_seccomp_numa_edit_docker_profile(profile, &changed, &err) < 0) {
                if (base != NULL)
                        ctk_error_prefix(&err, "%s", CTK_CUT(strcmp(base, "-") == 0 ? "<stdin>" : base));
                return ctk_cli_fail(err);
        }
        if (!changed)
                fputs("amd-ctk: note: the profile already allows the NUMA memory-policy calls (or does not deny "
                      "them); printed unchanged\n",
                      stderr);
        if (json_dumpf(profile, stdout, JSON_INDENT(2)) < 0 || fputc('\n', stdout) == EOF || fflush(stdout) != 0) {
                ctk_error_errno(&err, errno, "cannot write the profile");
                return ctk_cli_fail(err);
        }
        return 0;
}

static const struct ctk_opt profile_opts[] = {
    CTK_VALUE(
        "base", "FILE",
        "start from this Docker seccomp profile ('-' reads the standard input) instead of Docker's default profile"),
    {0},
};

static const struct ctk_cmd seccomp_profile = {
    .name = "profile",
    .summary = "print a Docker seccomp profile that allows NUMA memory-policy calls",
    .description = "Prints a Docker seccomp profile (JSON) that keeps every rule of the base profile and adds "
                   "one rule allowing get_mempolicy, mbind, set_mempolicy and set_mempolicy_home_node, which "
                   "Docker's default profile grants only to containers with CAP_SYS_NICE and which NUMA-aware "
                   "GPU code needs.  Use it instead of '--security-opt seccomp=unconfined':\n"
                   "\n"
                   "    amd-ctk seccomp profile > /etc/docker/seccomp-amd.json\n"
                   "    docker run --security-opt seccomp=/etc/docker/seccomp-amd.json ...\n"
                   "\n"
                   "amd-container-runtime makes the same change by itself for containers that get GPUs (config "
                   "key seccomp-numa), so this command is for setups without it.  A base profile that already "
                   "allows the calls is printed unchanged, with a note on standard error.",
    .opts = profile_opts,
    .run = run_profile,
    .files = "FILE\tthe base profile of --base, read only; without it, the profile is built in",
    .examples = "From a profile of your own:\n"
                "\n"
                "    amd-ctk seccomp profile --base my-profile.json > seccomp-amd.json",
    .see_also = "docker-run(1)",
};

static const struct ctk_cmd *const seccomp_subs[] = {&seccomp_profile, NULL};

const struct ctk_cmd ctk_cmd_seccomp = {
    .name = "seccomp",
    .summary = "Print a seccomp profile for GPU containers (NUMA calls)",
    .description = "Seccomp profiles for GPU containers run without amd-container-runtime.",
    .subs = seccomp_subs,
    .files = "-",
    .examples = "    amd-ctk seccomp profile > /etc/docker/seccomp-amd.json",
};
