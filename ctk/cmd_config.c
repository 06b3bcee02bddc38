/* amd-ctk config default|show */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "core/base/base.h"

static int print_config(const struct ctk_config *c)
{
        _cleanup_free_ char *s = ctk_config_dump(c);
        if (s == NULL) {
                fputs("amd-ctk: out of memory\n", stderr);
                return 1;
        }
        fputs(s, stdout);
        return 0;
}

static int run_default(void *ctx, const struct ctk_cmdline *cl)
{
        (void)ctx;
        (void)cl;
        struct ctk_config c;
        _cleanup_error_ struct ctk_error *err = NULL;
        if (ctk_config_defaults(&c, &err) < 0)
                return ctk_cli_fail(err);
        int rc = print_config(&c);
        ctk_config_clear(&c);
        return rc;
}

static int run_show(void *ctx, const struct ctk_cmdline *cl)
{
        (void)cl;
        const struct ctk_config *c;
        _cleanup_error_ struct ctk_error *err = NULL;
        if (ctk_cli_config(ctx, &c, &err) < 0)
                return ctk_cli_fail(err);
        return print_config(c);
}

#define CONFIG_FILE                                                                                                    \
        CTK_DEFAULT_CONFIG_PATH "\tthe toolkit configuration, unless --config or AMD_CTK_CONFIG name another"

static const struct ctk_cmd config_default = {
    .name = "default",
    .summary = "print the default configuration (a complete config file)",
    .description = "Prints every key of the configuration with its default value, as JSON: a complete "
                   "configuration file to start from.  Reads no file.",
    .run = run_default,
    .files = "-",
    .examples = "A configuration that logs at debug level:\n"
                "\n"
                "    amd-ctk config default | jq '.\"log-level\" = \"debug\"' >config.json",
};

static const struct ctk_cmd config_show = {
    .name = "show",
    .summary = "check the configuration file and print the configuration in effect",
    .description = "Reads the configuration file the way both amd-ctk and amd-container-runtime read it (unknown "
                   "keys, wrong types and bad values are errors, reported as FILE:LINE:COLUMN) and prints every "
                   "key with the value in effect: the file's, else the default.  A missing default file is not "
                   "an error (the defaults are in effect); a missing file named by --config is.",
    .run = run_show,
    .exit_status = "1\tthe configuration file is invalid, or one it names is missing",
    .files = CONFIG_FILE,
    .examples = "    amd-ctk config show\n"
                "    amd-ctk --config /tmp/test-config.json config show",
};

static const struct ctk_cmd *const config_subs[] = {&config_default, &config_show, NULL};

const struct ctk_cmd ctk_cmd_config = {
    .name = "config",
    .summary = "Show the toolkit configuration",
    .description = "The configuration file is " CTK_DEFAULT_CONFIG_PATH " unless --config FILE or "
                   "AMD_CTK_CONFIG names another one.  Both amd-ctk and amd-container-runtime read it.",
    .subs = config_subs,
    .files = CONFIG_FILE,
    .examples = "    amd-ctk config default\n"
                "    amd-ctk config show",
};
