/* amd-ctk cdi list [--json] [--spec-dirs | --all-vendors] [--spec-dir DIR]... */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd_cdi.h"
#include "core/cdi/cdi.h"
#include "core/base/base.h"
#include "core/json/json.h"

static json_t *strv_json(const struct ctk_strv *v)
{
        json_t *a = json_array();
        for (size_t i = 0; a != NULL && i < v->n; i++)
                json_array_append_new(a, json_string(v->v[i]));
        return a;
}

static int print_json(const json_t *j)
{
        _cleanup_free_ char *s = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        if (s == NULL)
                return -1;
        puts(s);
        return 0;
}

/* ---- from discovery ---- */

/* Each device with its nodes, as the spec gives them to a container. */
static void print_gpus_text(const struct ctk_gpu_list *gpus)
{
        printf("Found %zu AMD GPU %s\n", gpus->n, gpus->n == 1 ? "device" : "devices");
        for (size_t i = 0; i < gpus->n; i++) {
                if (i == 0)
                        printf("%s/%s=%s\n  %s and the DRM nodes of every device below\n", CTK_CDI_DEFAULT_VENDOR,
                               CTK_CDI_DEFAULT_CLASS, CTK_CDI_ALL_DEVICE, CTK_CDI_KFD_PATH);
                printf("%s/%s=%zu\n", CTK_CDI_DEFAULT_VENDOR, CTK_CDI_DEFAULT_CLASS, gpus->v[i].index);
                for (size_t j = 0; j < gpus->v[i].drm.n; j++)
                        printf("  %s\n", gpus->v[i].drm.v[j]);
                printf("  %s\n", CTK_CDI_KFD_PATH);
        }
}

static json_t *device_json(const char *name, const struct ctk_gpu *g, const struct ctk_gpu_list *all)
{
        _cleanup_free_ char *qualified = NULL;
        if (asprintf(&qualified, "%s/%s=%s", CTK_CDI_DEFAULT_VENDOR, CTK_CDI_DEFAULT_CLASS, name) < 0)
                return NULL;
        json_t *nodes = json_array();
        for (size_t i = 0; nodes != NULL && i < all->n; i++)
                if (g == NULL || g == &all->v[i])
                        for (size_t j = 0; j < all->v[i].drm.n; j++)
                                json_array_append_new(nodes, json_string(all->v[i].drm.v[j]));
        json_array_append_new(nodes, json_string(CTK_CDI_KFD_PATH));
        if (g == NULL)
                return json_pack("{s:s, s:o}", "name", qualified, "nodes", nodes);
        char uuid[CTK_UUID_STRLEN];
        ctk_uuid_format(g->uuid, uuid);
        return json_pack("{s:s, s:I, s:o, s:o}", "name", qualified, "index", (json_int_t)g->index, "uuid",
                         g->has_uuid ? json_string(uuid) : json_null(), "nodes", nodes);
}

static int print_gpus_json(const struct ctk_gpu_list *gpus)
{
        _cleanup_json_ json_t *devs = json_array();
        if (devs == NULL || json_array_append_new(devs, device_json(CTK_CDI_ALL_DEVICE, NULL, gpus)) < 0)
                return -1;
        for (size_t i = 0; i < gpus->n; i++) {
                char name[32];
                (void)snprintf(name, sizeof(name), "%zu", gpus->v[i].index);
                if (json_array_append_new(devs, device_json(name, &gpus->v[i], gpus)) < 0)
                        return -1;
        }
        _cleanup_json_ json_t *out = json_pack("{s:O}", "devices", devs);
        return out != NULL ? print_json(out) : -1;
}

static int list_gpus(struct ctk_cli *cli, bool json)
{
        _cleanup_error_ struct ctk_error *err = NULL;
        _cleanup_gpu_list_ struct ctk_gpu_list gpus = {0};
        if (ctk_cdi_discover(cli, &gpus, NULL, &err) < 0) {
                ctk_error_prefix(&err, "failed to list AMD devices");
                return ctk_cli_fail(err);
        }
        if (!json)
                print_gpus_text(&gpus);
        else if (print_gpus_json(&gpus) < 0)
                return ctk_cli_fail(&(struct ctk_error){.code = ENOMEM, .msg = (char *)"out of memory"});
        return 0;
}

/* ---- from the spec directories ---- */

static void print_cache_text(const struct ctk_cdi_cache *c, const struct ctk_strv *dirs)
{
        printf("Found %zu CDI %s in ", c->n, c->n == 1 ? "device" : "devices");
        for (size_t i = 0; i < dirs->n; i++)
                printf("%s%s", i > 0 ? ", " : "", dirs->v[i]);
        putchar('\n');
        for (size_t i = 0; i < c->n; i++) {
                printf("%s (%s", c->devices[i].name, c->specs[c->devices[i].spec].path);
                for (size_t j = 0; j < c->devices[i].overrides.n; j++)
                        printf("%s%s", j == 0 ? ", overrides " : ", ", c->devices[i].overrides.v[j]);
                puts(")");
        }
}

/* Conflicts and skipped files: warnings on stderr, or (in_listing) lines of the listing. */
static void print_cache_problems(const struct ctk_cdi_cache *c, bool in_listing)
{
        FILE *f = in_listing ? stdout : stderr;
        const char *lead = in_listing ? "" : "amd-ctk: warning: ";
        (void)fflush(stdout);
        for (size_t i = 0; i < c->nconflicts; i++) {
                fprintf(f, "%sconflicting device %s (specs ", lead, c->conflicts[i].name);
                for (size_t j = 0; j < c->conflicts[i].specs.n; j++)
                        fprintf(f, "%s%s", j > 0 ? ", " : "", c->conflicts[i].specs.v[j]);
                fputs("): CDI runtimes will not use it\n", f);
        }
        for (size_t i = 0; i < c->nproblems; i++)
                fprintf(f, "%s%s%s\n", lead, in_listing ? "skipped: " : "", c->problems[i].msg);
}

static int print_cache_json(const struct ctk_cdi_cache *c, const struct ctk_strv *dirs)
{
        _cleanup_json_ json_t *offers = json_array(), *conflicts = json_array(), *problems = json_array(),
                              *skipped = json_array();
        if (offers == NULL || conflicts == NULL || problems == NULL || skipped == NULL)
                return -1;
        for (size_t i = 0; i < c->n; i++) {
                const struct ctk_cdi_spec *sp = &c->specs[c->devices[i].spec];
                if (json_array_append_new(offers, json_pack("{s:s, s:s, s:I, s:o}", "name", c->devices[i].name, "spec",
                                                            sp->path, "priority", (json_int_t)sp->priority, "overrides",
                                                            strv_json(&c->devices[i].overrides))) < 0)
                        return -1;
        }
        for (size_t i = 0; i < c->nconflicts; i++)
                if (json_array_append_new(conflicts, json_pack("{s:s, s:o}", "name", c->conflicts[i].name, "specs",
                                                               strv_json(&c->conflicts[i].specs))) < 0)
                        return -1;
        for (size_t i = 0; i < c->nproblems; i++)
                if (json_array_append_new(problems, json_string(c->problems[i].msg)) < 0 ||
                    json_array_append_new(
                        skipped, json_pack("{s:s, s:s}", "spec", c->problems[i].path, "error", c->problems[i].msg)) < 0)
                        return -1;
        _cleanup_json_ json_t *out =
            json_pack("{s:o, s:O, s:O, s:O, s:O}", "spec_dirs", strv_json(dirs), "devices", offers, "conflicts",
                      conflicts, "problems", problems, "skipped", skipped);
        return out != NULL ? print_json(out) : -1;
}

static int spec_dirs(struct ctk_cli *cli, const struct ctk_strv *given, struct ctk_strv *out, struct ctk_error **err)
{
        const struct ctk_strv *src = given;
        if (given->n == 0) {
                const struct ctk_config *c;
                if (ctk_cli_config(cli, &c, err) < 0)
                        return -1;
                src = &c->cdi_spec_dirs;
        }
        for (size_t i = 0; i < src->n; i++)
                if (ctk_strv_push(out, src->v[i]) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
        if (out->n == 0 && (ctk_strv_push(out, CTK_CDI_STATIC_DIR) < 0 || ctk_strv_push(out, CTK_CDI_DYNAMIC_DIR) < 0))
                return ctk_error_set(err, ENOMEM, "out of memory");
        return 0;
}

static int list_specs(struct ctk_cli *cli, const struct ctk_strv *given, bool json, bool all_vendors)
{
        _cleanup_error_ struct ctk_error *err = NULL;
        struct ctk_strv dirs _cleanup_strv_ = {0};
        _cleanup_cdi_cache_ struct ctk_cdi_cache c = {0};
        if (spec_dirs(cli, given, &dirs, &err) < 0 ||
            ctk_cdi_cache_load((const char *const *)dirs.v, dirs.n, &c, &err) < 0) {
                ctk_error_prefix(&err, "failed to list CDI devices");
                return ctk_cli_fail(err);
        }
        int rc = 0;
        if (!json)
                print_cache_text(&c, &dirs);
        else
                rc = print_cache_json(&c, &dirs);
        if (!json)
                print_cache_problems(&c, all_vendors);
        if (rc < 0)
                return ctk_cli_fail(&(struct ctk_error){.code = ENOMEM, .msg = (char *)"out of memory"});
        return 0;
}

enum { O_JSON, O_SPEC_DIRS, O_ALL_VENDORS, O_SPEC_DIR };

static int run_list(void *ctx, const struct ctk_cmdline *cl)
{
        const struct ctk_optval *dirs = &cl->opt[O_SPEC_DIR];
        for (size_t i = 0; i < dirs->values.n; i++)
                if (dirs->values.v[i][0] == '\0')
                        return ctk_cmdline_bad_value(cl, "--spec-dir", "", "a directory");
        bool json = cl->opt[O_JSON].on, all_vendors = cl->opt[O_ALL_VENDORS].on;
        bool from_specs = cl->opt[O_SPEC_DIRS].on || all_vendors || dirs->count > 0;
        return from_specs ? list_specs(ctx, &dirs->values, json, all_vendors) : list_gpus(ctx, json);
}

static const struct ctk_opt list_opts[] = {
    [O_JSON] = CTK_FLAG("json", "print JSON"),
    [O_SPEC_DIRS] = CTK_FLAG("spec-dirs", "list what the spec directories offer (default directories: the config's "
                                          "cdi-spec-dirs, else " CTK_CDI_STATIC_DIR " " CTK_CDI_DYNAMIC_DIR ")"),
    [O_ALL_VENDORS] = CTK_FLAG("all-vendors", "--spec-dirs, problems included in the listing (JSON: \"skipped\")"),
    [O_SPEC_DIR] =
        CTK_VALUES("spec-dir", "DIR", "a spec directory, lowest priority first (repeatable; implies --spec-dirs)"),
    {0},
};

const struct ctk_cmd ctk_cmd_cdi_list = {
    .name = "list",
    .summary = "List the available AMD GPU devices",
    .description = "Without --spec-dirs: the CDI devices of this host's GPUs (what 'amd-ctk cdi generate' writes), "
                   "found by discovery, each with its device nodes.\n"
                   "\n"
                   "With --spec-dirs: the devices the CDI spec files offer to container engines, resolved like "
                   "CDI runtimes do: later directories override earlier ones, a device defined twice in one "
                   "directory is unusable (reported as a conflict), invalid spec files are skipped (reported).\n"
                   "\n"
                   "With --all-vendors: the same, with the conflicts and the skipped spec files and their errors "
                   "in the listing: what a CDI runtime can resolve, and why a name does not resolve.",
    .opts = list_opts,
    .run = run_list,
    .exit_status = "1\tthe GPUs cannot be listed, or a spec directory cannot be read",
    .files = CTK_CDI_STATIC_DIR ", " CTK_CDI_DYNAMIC_DIR "\tthe spec directories of --spec-dirs (config key "
                                "cdi-spec-dirs)",
    .examples = "    amd-ctk cdi list\n"
                "    amd-ctk cdi list --all-vendors\n"
                "    amd-ctk cdi list --spec-dir /etc/cdi --spec-dir /var/run/cdi --json",
};
