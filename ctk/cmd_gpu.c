/* amd-ctk gpu list [--json] [--all-vendors] */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "core/base/base.h"
#include "core/json/json.h"
#include "core/device/device.h"
#include "gpu_list.h"

static void gpu_usage(FILE *f)
{
        fputs("NAME:\n"
              "   amd-ctk gpu - GPU related commands\n"
              "\n"
              "USAGE:\n"
              "   amd-ctk gpu command [options]\n"
              "\n"
              "COMMANDS:\n"
              "   list     List AMD GPUs with their UUIDs\n"
              "\n"
              "Run 'amd-ctk gpu list --help' for its options.\n",
              f);
}

static void list_usage(FILE *f)
{
        fputs("NAME:\n"
              "   amd-ctk gpu list - List AMD GPUs with their UUIDs\n"
              "\n"
              "USAGE:\n"
              "   amd-ctk gpu list [--json] [--all-vendors]\n"
              "\n"
              "   Lists the AMD GPUs (and GPU partitions) in index order: the index used by\n"
              "   AMD_VISIBLE_DEVICES, CDI device names (amd.com/gpu=N) and the GPU tracker.\n"
              "   UUIDs are the KFD unique_id of each device (N/A when the driver reports none).\n"
              "\n"
              "OPTIONS:\n"
              "   --json          print a JSON array: index, uuid, pci, partition,\n"
              "                   render_minor, devices, swarm_id (the Swarm resource id\n"
              "                   of runtime configure --swarm-resources)\n"
              "   --all-vendors   list every display/accelerator PCI device (any vendor) with\n"
              "                   its driver and DRM nodes, and whether amd-ctk can manage it\n"
              "   --help, -h      show help\n",
              f);
}

#define DASHES "--------------------------------------------------------------------------------------------------"

static void print_table(const struct ctk_gpu_list *l)
{
        printf("Found %zu AMD GPU %s\n", l->n, l->n == 1 ? "device" : "devices");
        puts(DASHES);
        printf("%-10s%-25s%-40s%-14s%s\n", "GPU Id", "UUID", "DRM Devices", "PCI Address", "Partition");
        puts(DASHES);
        for (size_t i = 0; i < l->n; i++) {
                const struct ctk_gpu *g = &l->v[i];
                char uuid[CTK_UUID_STRLEN] = "N/A";
                if (g->has_uuid)
                        ctk_uuid_format(g->uuid, uuid);
                /* Like the Go toolkit: the non-card DRM nodes, comma separated. */
                char *drm = NULL;
                size_t len = 0;
                FILE *f = open_memstream(&drm, &len);
                bool first = true;
                for (size_t j = 0; f != NULL && j < g->drm.n; j++) {
                        if (strncmp(g->drm.v[j], "/dev/dri/card", 13) == 0)
                                continue;
                        fprintf(f, "%s%s", first ? "" : ", ", g->drm.v[j]);
                        first = false;
                }
                if (f != NULL && fclose(f) != 0) { /* out of memory: the list is cut */
                        free(drm);
                        drm = NULL;
                }
                printf("%-10zu%-25s%-40s%-14s%s\n", g->index, uuid, drm != NULL ? drm : "?", g->pci,
                       g->partition[0] != '\0' ? g->partition : "-");
                free(drm);
        }
}

/* The id runtime configure --swarm-resources writes for the device (uuid
 * form), or null when it has none. */
static json_t *swarm_id(const struct ctk_gpu_list *l, size_t i)
{
        _cleanup_free_ char *id = NULL;
        _cleanup_error_ struct ctk_error *err = NULL;
        if (ctk_resource_id_format(l, i, CTK_RESOURCE_ID_UUID, &id, &err) < 0)
                return json_null();
        return json_string(id);
}

static json_t *gpu_json(const struct ctk_gpu_list *l, size_t i)
{
        const struct ctk_gpu *g = &l->v[i];
        json_t *o = json_object();
        json_t *devs = json_array();
        if (o == NULL || devs == NULL) {
                json_decref(o);
                json_decref(devs);
                return NULL;
        }
        char uuid[CTK_UUID_STRLEN];
        ctk_uuid_format(g->uuid, uuid);
        for (size_t j = 0; j < g->drm.n; j++)
                json_array_append_new(devs, json_string(g->drm.v[j]));
        json_object_set_new(o, "index", json_integer((json_int_t)g->index));
        json_object_set_new(o, "uuid", g->has_uuid ? json_string(uuid) : json_null());
        json_object_set_new(o, "pci", json_string(g->pci));
        json_object_set_new(o, "partition", json_string(g->partition));
        json_object_set_new(o, "render_minor", json_integer(g->render_minor));
        json_object_set_new(o, "devices", devs);
        json_object_set_new(o, "swarm_id", swarm_id(l, i));
        return o;
}

static int print_json(const struct ctk_gpu_list *l)
{
        _cleanup_json_ json_t *arr = json_array();
        for (size_t i = 0; arr != NULL && i < l->n; i++)
                if (json_array_append_new(arr, gpu_json(l, i)) < 0)
                        return -1;
        _cleanup_free_ char *s = arr != NULL ? json_dumps(arr, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
        if (s == NULL)
                return -1;
        puts(s);
        return 0;
}

static int run_list(struct ctk_cli *cli, int argc, char **argv)
{
        bool json = false, all_vendors = false;
        for (int i = 1; i < argc; i++) {
                if (strcmp(argv[i], "--json") == 0) {
                        json = true;
                } else if (strcmp(argv[i], "--all-vendors") == 0) {
                        all_vendors = true;
                } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
                        list_usage(stdout);
                        return 0;
                } else {
                        fprintf(stderr, "amd-ctk: gpu list: unexpected argument '%s'\n\n", argv[i]);
                        list_usage(stderr);
                        return 2;
                }
        }
        if (all_vendors) {
                return ctk_gpu_list_all_vendors(cli, json);
        }
        _cleanup_error_ struct ctk_error *err = NULL;
        _cleanup_backend_ struct ctk_backend *b = NULL;
        _cleanup_gpu_list_ struct ctk_gpu_list l = {0};
        if (ctk_cli_open_backend(cli, &b, &err) < 0)
                return ctk_cli_fail(err);
        if (ctk_discover_gpus(b, &l, &err) < 0) {
                ctk_error_prefix(&err, "failed to list AMD devices");
                return ctk_cli_fail(err);
        }
        if (json) {
                if (print_json(&l) < 0) {
                        struct ctk_error e = {.code = ENOMEM, .msg = (char *)"out of memory"};
                        return ctk_cli_fail(&e);
                }
        } else {
                print_table(&l);
        }
        return 0;
}

static int run_gpu(struct ctk_cli *cli, int argc, char **argv)
{
        if (argc < 2) {
                gpu_usage(stderr);
                return 2;
        }
        if (strcmp(argv[1], "list") == 0)
                return run_list(cli, argc - 1, argv + 1);
        if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
                gpu_usage(stdout);
                return 0;
        }
        fprintf(stderr, "amd-ctk: gpu: unknown command '%s'\n\n", argv[1]);
        gpu_usage(stderr);
        return 2;
}

CTK_COMMAND(gpu_command, .name = "gpu", .summary = "GPU related commands", .order = 30, .run = run_gpu)
