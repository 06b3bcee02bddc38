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

static const char seccomp_usage[] =
    "Usage: amd-ctk seccomp COMMAND [options]\n"
    "\n"
    "Commands:\n"
    "   profile   print a Docker seccomp profile that allows NUMA memory-policy calls\n";

static const char profile_usage[] = "Usage: amd-ctk seccomp profile [--base FILE]\n"
                                    "\n"
                                    "Prints a Docker seccomp profile (JSON) that keeps every rule of the base profile\n"
                                    "and adds one rule allowing get_mempolicy, mbind, set_mempolicy and\n"
                                    "set_mempolicy_home_node, which Docker's default profile grants only to\n"
                                    "containers with CAP_SYS_NICE and which NUMA-aware GPU code needs. Use it instead\n"
                                    "of '--security-opt seccomp=unconfined':\n"
                                    "\n"
                                    "   amd-ctk seccomp profile > /etc/docker/seccomp-amd.json\n"
                                    "   docker run --security-opt seccomp=/etc/docker/seccomp-amd.json ...\n"
                                    "\n"
                                    "amd-container-runtime makes the same change by itself for containers that get\n"
                                    "GPUs (config key seccomp-numa), so this command is for setups without it.\n"
                                    "\n"
                                    "Options:\n"
                                    "   --base FILE   start from this Docker seccomp profile ('-' reads stdin)\n"
                                    "                 instead of Docker's default profile\n"
                                    "   --help, -h    show this help\n";

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
                        return ctk_error_set(err, EINVAL, "cannot read %s: %s", name, jerr.text);
                return ctk_error_set(err, EINVAL, "%s:%d:%d: %s", name, jerr.line, jerr.column, jerr.text);
        }
        *out = j;
        return 0;
}

static int run_profile(int argc, char **argv)
{
        if (ctk_cli_wants_help(argc, argv)) {
                fputs(profile_usage, stdout);
                return 0;
        }
        const char *base = NULL;
        for (int i = 1; i < argc; i++) {
                if (strcmp(argv[i], "--base") == 0 && i + 1 < argc) {
                        base = argv[++i];
                } else if (strncmp(argv[i], "--base=", 7) == 0) {
                        base = argv[i] + 7;
                } else {
                        fprintf(stderr,
                                strcmp(argv[i], "--base") == 0
                                    ? "amd-ctk: seccomp profile: option %s needs a file name\n"
                                    : "amd-ctk: seccomp profile: unexpected argument '%s'\n"
                                      "Run 'amd-ctk seccomp profile --help' for usage.\n",
                                argv[i]);
                        return 2;
                }
        }
        if (base != NULL && base[0] == '\0') {
                fputs("amd-ctk: seccomp profile: --base needs a file name\n", stderr);
                return 2;
        }

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
                        ctk_error_prefix(&err, "%s", strcmp(base, "-") == 0 ? "<stdin>" : base);
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

static int run_seccomp(struct ctk_cli *cli, int argc, char **argv)
{
        (void)cli;
        if (argc >= 2 && strcmp(argv[1], "profile") == 0)
                return run_profile(argc - 1, argv + 1);
        if (argc < 2 || ctk_cli_wants_help(argc, argv)) {
                fputs(seccomp_usage, argc < 2 ? stderr : stdout);
                return argc < 2 ? 2 : 0;
        }
        fprintf(stderr, "amd-ctk: seccomp: unknown command '%s'\n\n%s", argv[1], seccomp_usage);
        return 2;
}

CTK_COMMAND(seccomp_command, .name = "seccomp", .summary = "Print a seccomp profile for GPU containers (NUMA calls)",
            .order = 70, .run = run_seccomp)
