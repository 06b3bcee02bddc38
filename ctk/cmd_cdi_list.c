/* amd-ctk cdi list [--json] [--spec-dirs] [--spec-dir DIR]... */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd_cdi.h"
#include "core/cdi/cdi.h"
#include "core/base/base.h"
#include "core/json/json.h"

static void usage(FILE *f)
{
        fputs("NAME:\n"
              "   amd-ctk cdi list - List the available AMD GPU devices\n"
              "\n"
              "USAGE:\n"
              "   amd-ctk cdi list [--json] [--spec-dirs] [--spec-dir DIR]...\n"
              "\n"
              "   Without --spec-dirs: the CDI devices of this host's GPUs (what\n"
              "   'amd-ctk cdi generate' writes), found by discovery.\n"
              "   With --spec-dirs: the devices the CDI spec files offer to container engines,\n"
              "   resolved like CDI runtimes do: later directories override earlier ones,\n"
              "   a device defined twice in one directory is unusable (reported as a conflict),\n"
              "   invalid spec files are skipped (reported).\n"
              "\n"
              "OPTIONS:\n"
              "   --json            print JSON\n"
              "   --spec-dirs       list what the spec directories offer (default directories:\n"
              "                     the config's cdi-spec-dirs, else " CTK_CDI_STATIC_DIR " " CTK_CDI_DYNAMIC_DIR ")\n"
              "   --spec-dir DIR    a spec directory, lowest priority first (repeatable;\n"
              "                     implies --spec-dirs)\n"
              "   --help, -h        show help\n",
              f);
}

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

static void print_gpus_text(const struct ctk_gpu_list *gpus)
{
        printf("Found %zu AMD GPU %s\n", gpus->n, gpus->n == 1 ? "device" : "devices");
        for (size_t i = 0; i < gpus->n; i++) {
                if (i == 0)
                        printf("%s/%s=%s\n", CTK_CDI_DEFAULT_VENDOR, CTK_CDI_DEFAULT_CLASS, CTK_CDI_ALL_DEVICE);
                printf("%s/%s=%zu\n", CTK_CDI_DEFAULT_VENDOR, CTK_CDI_DEFAULT_CLASS, gpus->v[i].index);
                for (size_t j = 0; j < gpus->v[i].drm.n; j++)
                        if (strncmp(gpus->v[i].drm.v[j], "/dev/dri/card", 13) != 0)
                                printf("  %s\n", gpus->v[i].drm.v[j]);
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

static void print_catalog_text(const struct ctk_cdi_catalog *c, const struct ctk_strv *dirs)
{
        printf("Found %zu CDI %s in ", c->n, c->n == 1 ? "device" : "devices");
        for (size_t i = 0; i < dirs->n; i++)
                printf("%s%s", i > 0 ? ", " : "", dirs->v[i]);
        putchar('\n');
        for (size_t i = 0; i < c->n; i++) {
                printf("%s (%s", c->offers[i].name, c->offers[i].spec);
                for (size_t j = 0; j < c->offers[i].overrides.n; j++)
                        printf("%s%s", j == 0 ? ", overrides " : ", ", c->offers[i].overrides.v[j]);
                puts(")");
        }
}

static void print_catalog_warnings(const struct ctk_cdi_catalog *c)
{
        (void)fflush(stdout);
        for (size_t i = 0; i < c->nconflicts; i++) {
                fprintf(stderr, "amd-ctk: warning: conflicting device %s (specs ", c->conflicts[i].name);
                for (size_t j = 0; j < c->conflicts[i].specs.n; j++)
                        fprintf(stderr, "%s%s", j > 0 ? ", " : "", c->conflicts[i].specs.v[j]);
                fputs("): CDI runtimes will not use it\n", stderr);
        }
        for (size_t i = 0; i < c->problems.n; i++)
                fprintf(stderr, "amd-ctk: warning: %s\n", c->problems.v[i]);
}

static int print_catalog_json(const struct ctk_cdi_catalog *c, const struct ctk_strv *dirs)
{
        _cleanup_json_ json_t *offers = json_array(), *conflicts = json_array();
        if (offers == NULL || conflicts == NULL)
                return -1;
        for (size_t i = 0; i < c->n; i++)
                if (json_array_append_new(offers,
                                          json_pack("{s:s, s:s, s:I, s:o}", "name", c->offers[i].name, "spec",
                                                    c->offers[i].spec, "priority", (json_int_t)c->offers[i].priority,
                                                    "overrides", strv_json(&c->offers[i].overrides))) < 0)
                        return -1;
        for (size_t i = 0; i < c->nconflicts; i++)
                if (json_array_append_new(conflicts, json_pack("{s:s, s:o}", "name", c->conflicts[i].name, "specs",
                                                               strv_json(&c->conflicts[i].specs))) < 0)
                        return -1;
        _cleanup_json_ json_t *out = json_pack("{s:o, s:O, s:O, s:o}", "spec_dirs", strv_json(dirs), "devices", offers,
                                               "conflicts", conflicts, "problems", strv_json(&c->problems));
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

static int list_specs(struct ctk_cli *cli, const struct ctk_strv *given, bool json)
{
        _cleanup_error_ struct ctk_error *err = NULL;
        struct ctk_strv dirs _cleanup_strv_ = {0};
        struct ctk_cdi_catalog c = {0};
        if (spec_dirs(cli, given, &dirs, &err) < 0 ||
            ctk_cdi_catalog_scan((const char *const *)dirs.v, dirs.n, &c, &err) < 0) {
                ctk_error_prefix(&err, "failed to list CDI devices");
                return ctk_cli_fail(err);
        }
        int rc = 0;
        if (!json)
                print_catalog_text(&c, &dirs);
        else
                rc = print_catalog_json(&c, &dirs);
        if (!json)
                print_catalog_warnings(&c);
        ctk_cdi_catalog_clear(&c);
        if (rc < 0)
                return ctk_cli_fail(&(struct ctk_error){.code = ENOMEM, .msg = (char *)"out of memory"});
        return 0;
}

int ctk_cdi_list_main(struct ctk_cli *cli, int argc, char **argv)
{
        static const struct option longopts[] = {
            {"json", no_argument, NULL, 'j'},
            {"spec-dirs", no_argument, NULL, 's'},
            {"spec-dir", required_argument, NULL, 'd'},
            {"help", no_argument, NULL, 'h'},
            {NULL, 0, NULL, 0},
        };
        bool json = false, from_specs = false;
        struct ctk_strv dirs _cleanup_strv_ = {0};
        optind = 0;
        opterr = 0;
        for (int c; (c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1;) {
                switch (c) {
                case 'j':
                        json = true;
                        break;
                case 's':
                        from_specs = true;
                        break;
                case 'd':
                        from_specs = true;
                        if (optarg[0] == '\0')
                                return ctk_cdi_usage_error("list", "--spec-dir needs a directory");
                        ctk_strv_push(&dirs, optarg);
                        break;
                case 'h':
                        usage(stdout);
                        return 0;
                default:
                        return ctk_cdi_usage_error("list", "unknown or incomplete option '%s'", argv[optind - 1]);
                }
        }
        if (optind < argc)
                return ctk_cdi_usage_error("list", "unexpected argument '%s'", argv[optind]);
        return from_specs ? list_specs(cli, &dirs, json) : list_gpus(cli, json);
}
