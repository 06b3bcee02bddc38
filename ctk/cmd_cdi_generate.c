/* amd-ctk cdi generate [--output PATH|-] [--device-name-strategy S]
 *                      [--vendor V] [--class C] [--additional-gids]
 *                      [--force] [--refresh] */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd_cdi.h"
#include "core/base/base.h"
#include "core/json/json.h"

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
static int keep_copy(const char *dir, const char *text, struct ctk_error **err)
{
        _cleanup_free_ char *copy = NULL;
        if (asprintf(&copy, "%s/cdi-generated.json", dir) < 0)
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

enum { O_OUTPUT, O_STRATEGY, O_VENDOR, O_CLASS, O_GIDS, O_FORCE, O_REFRESH };

static int run_generate(void *ctx, const struct ctk_cmdline *cl)
{
        struct ctk_cli *cli = ctx;
        struct ctk_cdi_options o;
        ctk_cdi_options_init(&o);
        const char *output = cl->opt[O_OUTPUT].value != NULL ? cl->opt[O_OUTPUT].value : CTK_CDI_DEFAULT_OUTPUT;
        const char *strategy = cl->opt[O_STRATEGY].value;
        bool force = cl->opt[O_FORCE].on, refresh = cl->opt[O_REFRESH].on;
        if (strategy != NULL && parse_strategy(strategy, &o) < 0)
                return ctk_cmdline_bad_value(cl, "--device-name-strategy", strategy, "index, uuid or index,uuid");
        if (cl->opt[O_VENDOR].value != NULL)
                o.vendor = cl->opt[O_VENDOR].value;
        if (cl->opt[O_CLASS].value != NULL)
                o.class_ = cl->opt[O_CLASS].value;
        o.additional_gids = cl->opt[O_GIDS].on;
        if (output[0] == '\0')
                return ctk_cmdline_bad_value(cl, "--output", output, "a file name, or '-' for the standard output");

        _cleanup_error_ struct ctk_error *err = NULL;
        const struct ctk_config *cfg = NULL;
        const char *state_dir = NULL; /* --refresh: where the copy goes */
        if (refresh) {
                if (ctk_cli_config(cli, &cfg, &err) < 0)
                        return ctk_cli_fail(err);
                if (!cfg->cdi_refresh) {
                        puts("CDI spec refresh is off (config key cdi-refresh): nothing done");
                        return 0;
                }
                if (strcmp(output, "-") != 0 && ctk_cli_state_dir(cli, &state_dir, &err) < 0) {
                        ctk_error_prefix(&err, "cannot keep a copy of the CDI spec");
                        return ctk_cli_fail(err);
                }
        }
        _cleanup_gpu_list_ struct ctk_gpu_list gpus = {0};
        _cleanup_cdi_host_ struct ctk_cdi_host host = {0};
        _cleanup_json_ json_t *spec = NULL;
        if (ctk_cdi_discover(cli, &gpus, &host, &err) < 0 || ctk_cli_root(cli, &o.root, &err) < 0 ||
            ctk_cdi_spec_build(&host, &o, &spec, &err) < 0) {
                ctk_error_prefix(&err, "failed to generate CDI spec");
                return ctk_cli_fail(err);
        }
        _cleanup_free_ char *text = ctk_cdi_spec_dump(spec);
        if (text == NULL) {
                struct ctk_error oom = {.code = ENOMEM, .msg = (char *)"failed to generate CDI spec: out of memory"};
                return ctk_cli_fail(&oom);
        }
        int rc = write_spec(output, text, force);
        if (rc == 0 && state_dir != NULL && keep_copy(state_dir, text, &err) < 0)
                return ctk_cli_fail(err);
        return rc;
}

static const struct ctk_opt generate_opts[] = {
    [O_OUTPUT] = CTK_VALUE("output", "PATH",
                           "output file, '-' for the standard output (default: \"" CTK_CDI_DEFAULT_OUTPUT "\")"),
    [O_STRATEGY] =
        CTK_VALUE("device-name-strategy", "S",
                  "index, uuid or index,uuid (default: index); uuid names are 0x<HEX> (all partitions of a GPU)"),
    [O_VENDOR] = CTK_VALUE("vendor", "V", "the vendor of the devices' kind V/C (default: amd.com)"),
    [O_CLASS] = CTK_VALUE("class", "C", "the class of the devices' kind V/C (default: gpu)"),
    [O_GIDS] =
        CTK_FLAG("additional-gids",
                 "add the groups of the device nodes to additionalGids, for containers that run as a non-root user "
                 "(needs CDI 0.7.0: container engines from 2023 on)"),
    [O_FORCE] = CTK_FLAG("force", "write the spec even when it is up to date"),
    [O_REFRESH] = CTK_FLAG("refresh",
                           "for the refresh service (driver load, repartition): nothing when config key cdi-refresh is "
                           "false; keeps a copy in the state directory"),
    {0},
};

const struct ctk_cmd ctk_cmd_cdi_generate = {
    .name = "generate",
    .summary = "Generate the CDI spec for GPUs",
    .description = "Writes a CDI spec with one device per GPU (or GPU partition), named by its index as in "
                   "AMD_VISIBLE_DEVICES, and a device 'all'.  Each device has its card and render nodes and "
                   "/dev/kfd, with the host's numbers, mode and owner.  cdiVersion is the oldest version that has "
                   "every feature used, so older container engines accept the spec.  The file is replaced "
                   "atomically and gets mode 0644, so that every CDI client can read it.  A spec that is already "
                   "what would be written is left as it is (same bytes, same mtime).",
    .details = "After a GPU is repartitioned, or the driver reloaded, the spec no longer matches the host: the "
               "package's amd-cdi-refresh.service runs 'amd-ctk cdi generate --refresh' then; 'amd-ctk cdi "
               "validate' says what changed.",
    .opts = generate_opts,
    .run = run_generate,
    .exit_status = "1\tthe GPUs cannot be listed, or the spec cannot be written (the previous one is kept)",
    .files = CTK_CDI_DEFAULT_OUTPUT "\tthe spec written by default (--output)\n" CTK_DEFAULT_STATE_DIR
                                    "/cdi-generated.json\twith --refresh: a copy of the spec written, "
                                    "in the state directory (config key state-dir)",
    .examples = "    sudo amd-ctk cdi generate\n"
                "    sudo amd-ctk cdi generate --device-name-strategy index,uuid --additional-gids\n"
                "\n"
                "The spec of a simulated host, on the standard output:\n"
                "\n"
                "    amd-ctk --profile sim/profiles/seed-4xmi210.json cdi generate --output -",
};
