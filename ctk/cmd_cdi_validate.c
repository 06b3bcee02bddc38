/* amd-ctk cdi validate [--path PATH] [--no-host-check] */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cmd_cdi.h"
#include "core/base/base.h"

/* Loads the spec as the runtime would; a spec it would skip as not trusted
 * is said on stderr (*untrusted) and checked all the same. */
static int load(const char *path, struct ctk_cdi_doc *doc, struct ctk_cdi_report *rep, bool *untrusted,
                struct ctk_error **err)
{
        _cleanup_error_ struct ctk_error *e = NULL;
        *untrusted = false;
        if (ctk_cdi_load_trusted(path, doc, rep, &e) == 0)
                return 0;
        if (e->code != EPERM) {
                *err = ctk_steal(&e);
                return -1;
        }
        (void)fflush(stdout);
        fprintf(stderr, "amd-ctk: warning: %s: the runtime skips it\n", e->msg);
        *untrusted = true;
        return ctk_cdi_load(path, doc, rep, err);
}

static int validate(struct ctk_cli *cli, const char *path, bool host_check, struct ctk_cdi_report *rep, bool *untrusted,
                    struct ctk_error **err)
{
        _cleanup_cdi_doc_ struct ctk_cdi_doc doc = {0};
        if (load(path, &doc, rep, untrusted, err) < 0)
                return -1;
        if (doc.root == NULL)
                return 0;
        const struct ctk_cdi_source src = ctk_cdi_doc_source(&doc);
        if (ctk_cdi_check(doc.root, &src, rep) > 0 || !host_check)
                return 0;
        _cleanup_gpu_list_ struct ctk_gpu_list gpus = {0};
        _cleanup_cdi_host_ struct ctk_cdi_host host = {0};
        if (ctk_cdi_discover(cli, &gpus, &host, err) < 0)
                return ctk_error_prefix(err, "cannot compare the spec with this host");
        ctk_cdi_fresh_check(doc.root, &host, rep);
        return 0;
}

enum { O_PATH, O_NO_HOST_CHECK };

static int run_validate(void *ctx, const struct ctk_cmdline *cl)
{
        struct ctk_cli *cli = ctx;
        const char *path = cl->opt[O_PATH].value != NULL ? cl->opt[O_PATH].value : CTK_CDI_DEFAULT_OUTPUT;
        bool host_check = !cl->opt[O_NO_HOST_CHECK].on;
        if (path[0] == '\0')
                return ctk_cmdline_bad_value(cl, "--path", path, "a file name");

        printf("Validating CDI spec: %s\n", path);
        (void)fflush(stdout);
        _cleanup_cdi_report_ struct ctk_cdi_report rep = {0};
        _cleanup_error_ struct ctk_error *err = NULL;
        bool untrusted = false;
        if (validate(cli, path, host_check, &rep, &untrusted, &err) < 0) {
                ctk_error_prefix(&err, "failed to validate CDI spec");
                return ctk_cli_fail(err);
        }
        for (size_t i = 0; i < rep.warnings.n; i++)
                printf("warning: %s\n", rep.warnings.v[i]);
        if (rep.more_warnings > 0)
                printf("warning: and %zu more warnings\n", rep.more_warnings);
        for (size_t i = 0; i < rep.errors.n; i++)
                printf("%s\n", rep.errors.v[i]);
        if (rep.more_errors > 0)
                printf("and %zu more errors\n", rep.more_errors);
        if (rep.errors.n > 0)
                printf("CDI spec is invalid\nPlease regenerate CDI spec\n");
        else if (untrusted)
                printf("CDI spec is valid, but not trusted: the runtime does not use it\n");
        else
                printf("CDI spec is valid\n");
        return rep.errors.n > 0 || untrusted ? 1 : 0;
}

static const struct ctk_opt validate_opts[] = {
    [O_PATH] =
        CTK_VALUE("path", "PATH",
                  "full path of CDI spec file, JSON or (.yaml, .yml) YAML (default: \"" CTK_CDI_DEFAULT_OUTPUT "\")"),
    [O_NO_HOST_CHECK] = CTK_FLAG("no-host-check", "check the spec's structure only, not this host"),
    {0},
};

const struct ctk_cmd ctk_cmd_cdi_validate = {
    .name = "validate",
    .summary = "Validate the CDI spec for GPUs",
    .description = "Checks the spec the way CDI runtimes load it (unknown or duplicate keys, cdiVersion known and "
                   "new enough for the content, kind and device names, device nodes, env, mounts, hooks; problems "
                   "are shown as file:line:column), then compares it with this host: every device node whose "
                   "numbers, mode or owner changed, and every device that is missing or gone, is named.  Exits 1 "
                   "when the spec is invalid or stale, or not trusted: the runtime uses a spec only when root (or its "
                   "own user) owns it, its directory and a link's target, and no one else may write them.  Writes "
                   "nothing.",
    .opts = validate_opts,
    .run = run_validate,
    .exit_status =
        "0\tthe spec is valid and matches this host\n"
        "1\tthe spec is invalid, or stale (regenerate it: amd-ctk cdi generate), not trusted, or cannot be read",
    .files = CTK_CDI_DEFAULT_OUTPUT "\tthe spec checked by default (--path)",
    .examples = "    amd-ctk cdi validate\n"
                "    amd-ctk cdi validate --path /etc/cdi/amd.yaml --no-host-check",
};
