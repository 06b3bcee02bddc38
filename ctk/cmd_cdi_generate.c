/* amd-ctk cdi generate [--output PATH|-] [--device-name-strategy S]
 *                      [--vendor V] [--class C] [--additional-gids]
 *                      [--force] [--refresh] */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd_cdi.h"
#include "core/base/base.h"
#include "core/json/json.h"

static void usage(FILE *f)
{
        fputs("NAME:\n"
              "   amd-ctk cdi generate - Generate the CDI spec for GPUs\n"
              "\n"
              "USAGE:\n"
              "   amd-ctk cdi generate [options]\n"
              "\n"
              "   Writes a CDI spec with one device per GPU (or GPU partition), named by\n"
              "   its index as in AMD_VISIBLE_DEVICES, and a device 'all'.  Each device has\n"
              "   its card and render nodes and /dev/kfd, with the host's numbers, mode and\n"
              "   owner.  cdiVersion is the oldest version that has every feature used, so\n"
              "   older container engines accept the spec.  The file is replaced atomically\n"
              "   and gets mode 0644, so that every CDI client can read it.  A spec that is\n"
              "   already what would be written is left as it is (same bytes, same mtime).\n"
              "\n"
              "OPTIONS:\n"
              "   --output PATH                 output file, '-' for stdout (default: \"" CTK_CDI_DEFAULT_OUTPUT "\")\n"
              "   --device-name-strategy S      index, uuid or index,uuid (default: index);\n"
              "                                 uuid names are 0x<HEX> (all partitions of a GPU)\n"
              "   --vendor V, --class C         the kind V/C of the devices (default: amd.com/gpu)\n"
              "   --additional-gids             add the groups of the device nodes to additionalGids,\n"
              "                                 for containers that run as a non-root user\n"
              "                                 (needs CDI 0.7.0: container engines from 2023 on)\n"
              "   --force                       write the spec even when it is up to date\n"
              "   --refresh                     for the refresh service (driver load, repartition):\n"
              "                                 nothing when config key cdi-refresh is false;\n"
              "                                 keeps a copy in the state directory\n"
              "   --help, -h                    show help\n",
              f);
}

static int parse_strategy(const char *s, struct ctk_cdi_options *o)
{
        _cleanup_free_ char *copy = strdup(s);
        if (copy == NULL)
                return -1;
        bool index = false, uuid = false;
        char *save = NULL;
        for (char *t = strtok_r(copy, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
                if (strcmp(t, "index") == 0)
                        index = true;
                else if (strcmp(t, "uuid") == 0)
                        uuid = true;
                else
                        return -1;
        }
        if (!index && !uuid)
                return -1;
        o->by_index = index;
        o->by_uuid = uuid;
        return 0;
}

/* With --refresh, a copy of what the spec file holds now, in the state
 * directory: the package's purge removes the spec only when it is still
 * ours (the same bytes). */
static int keep_copy(const struct ctk_config *cfg, const char *text, struct ctk_error **err)
{
        _cleanup_free_ char *copy = NULL;
        if (asprintf(&copy, "%s/cdi-generated.json", cfg->state_dir) < 0)
                return ctk_error_set(err, ENOMEM, "out of memory");
        if (ctk_mkdir_parent(copy, 0755, err) < 0 ||
            ctk_file_write_atomic_mode(copy, text, strlen(text), 0644, err) < 0)
                return ctk_error_prefix(err, "cannot keep a copy of the CDI spec");
        return 0;
}

static int write_spec(const char *output, const char *text, bool force)
{
        _cleanup_error_ struct ctk_error *err = NULL;
        if (strcmp(output, "-") == 0) {
                fputs(text, stdout);
                return 0;
        }
        bool written = false;
        if (ctk_cdi_spec_save(output, text, force, &written, &err) < 0) {
                ctk_error_prefix(&err, "failed to write CDI spec");
                return ctk_cli_fail(err);
        }
        printf(written ? "Generated CDI spec: %s\n" : "CDI spec is up to date: %s\n", output);
        return 0;
}

int ctk_cdi_generate_main(struct ctk_cli *cli, int argc, char **argv)
{
        static const struct option longopts[] = {
            {"output", required_argument, NULL, 'o'},
            {"device-name-strategy", required_argument, NULL, 's'},
            {"vendor", required_argument, NULL, 'V'},
            {"class", required_argument, NULL, 'C'},
            {"additional-gids", no_argument, NULL, 'g'},
            {"force", no_argument, NULL, 'f'},
            {"refresh", no_argument, NULL, 'r'},
            {"help", no_argument, NULL, 'h'},
            {NULL, 0, NULL, 0},
        };
        struct ctk_cdi_options o;
        ctk_cdi_options_init(&o);
        const char *output = CTK_CDI_DEFAULT_OUTPUT;
        bool force = false, refresh = false;
        optind = 0;
        opterr = 0;
        for (int c; (c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1;) {
                switch (c) {
                case 'o':
                        output = optarg;
                        break;
                case 's':
                        if (parse_strategy(optarg, &o) < 0)
                                return ctk_cdi_usage_error("generate",
                                                           "--device-name-strategy must be index, uuid or "
                                                           "index,uuid (got '%s')",
                                                           optarg);
                        break;
                case 'V':
                        o.vendor = optarg;
                        break;
                case 'C':
                        o.class_ = optarg;
                        break;
                case 'g':
                        o.additional_gids = true;
                        break;
                case 'f':
                        force = true;
                        break;
                case 'r':
                        refresh = true;
                        break;
                case 'h':
                        usage(stdout);
                        return 0;
                default:
                        return ctk_cdi_usage_error("generate", "unknown or incomplete option '%s'", argv[optind - 1]);
                }
        }
        if (optind < argc)
                return ctk_cdi_usage_error("generate", "unexpected argument '%s'", argv[optind]);
        if (output[0] == '\0')
                return ctk_cdi_usage_error("generate", "--output needs a file name or '-'");

        _cleanup_error_ struct ctk_error *err = NULL;
        const struct ctk_config *cfg = NULL;
        if (refresh) {
                if (ctk_cli_config(cli, &cfg, &err) < 0)
                        return ctk_cli_fail(err);
                if (!cfg->cdi_refresh) {
                        puts("CDI spec refresh is off (config key cdi-refresh): nothing done");
                        return 0;
                }
        }
        _cleanup_gpu_list_ struct ctk_gpu_list gpus = {0};
        _cleanup_cdi_host_ struct ctk_cdi_host host = {0};
        _cleanup_json_ json_t *spec = NULL;
        if (ctk_cdi_discover(cli, &gpus, &host, &err) < 0 || ctk_cdi_spec_build(&host, &o, &spec, &err) < 0) {
                ctk_error_prefix(&err, "failed to generate CDI spec");
                return ctk_cli_fail(err);
        }
        _cleanup_free_ char *text = ctk_cdi_spec_dump(spec);
        if (text == NULL) {
                struct ctk_error oom = {.code = ENOMEM, .msg = (char *)"failed to generate CDI spec: out of memory"};
                return ctk_cli_fail(&oom);
        }
        int rc = write_spec(output, text, force);
        if (rc == 0 && refresh && strcmp(output, "-") != 0 && keep_copy(cfg, text, &err) < 0)
                return ctk_cli_fail(err);
        return rc;
}
