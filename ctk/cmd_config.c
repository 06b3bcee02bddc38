/* amd-ctk config default|show */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "core/base/base.h"

static const char usage_text[] =
    "Usage: amd-ctk config COMMAND\n"
    "\n"
    "Commands:\n"
    "   default   print the default configuration (a complete config file)\n"
    "   show      check the configuration file and print the configuration in effect\n"
    "\n"
    "The configuration file is " CTK_DEFAULT_CONFIG_PATH " unless --config FILE\n"
    "or AMD_CTK_CONFIG names another one.  Both amd-ctk and amd-container-runtime read it.\n";

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

static int run_default(void)
{
        struct ctk_config c;
        _cleanup_error_ struct ctk_error *err = NULL;
        if (ctk_config_defaults(&c, &err) < 0)
                return ctk_cli_fail(err);
        int rc = print_config(&c);
        ctk_config_clear(&c);
        return rc;
}

static int run_show(struct ctk_cli *cli)
{
        const struct ctk_config *c;
        _cleanup_error_ struct ctk_error *err = NULL;
        if (ctk_cli_config(cli, &c, &err) < 0)
                return ctk_cli_fail(err);
        return print_config(c);
}

static int run_config(struct ctk_cli *cli, int argc, char **argv)
{
        if (ctk_cli_wants_help(argc, argv)) {
                fputs(usage_text, stdout);
                return 0;
        }
        if (argc < 2) {
                fputs(usage_text, stderr);
                return 2;
        }
        if (argc > 2) {
                fprintf(stderr, "amd-ctk: config %s takes no arguments (got '%s')\n", argv[1], argv[2]);
                return 2;
        }
        if (strcmp(argv[1], "default") == 0)
                return run_default();
        if (strcmp(argv[1], "show") == 0)
                return run_show(cli);
        fprintf(stderr, "amd-ctk: unknown config command '%s'\n\n%s", argv[1], usage_text);
        return 2;
}

CTK_COMMAND(config_command, .name = "config", .summary = "Show the toolkit configuration", .order = 60,
            .run = run_config)
