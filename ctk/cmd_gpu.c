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
#include "table.h"

/* The GPU's partition mode on every row of its partitions: discovery
 * reads it on partition 0 only (as the Go toolkit). */
static const char *partition_mode(const struct ctk_gpu_list *l, size_t i)
{
        while (l->v[i].partition[0] == '\0' && i > 0 && strcmp(l->v[i - 1].pci, l->v[i].pci) == 0)
                i--;
        return l->v[i].partition[0] != '\0' ? l->v[i].partition : "-";
}

static int print_table(const struct ctk_gpu_list *l)
{
        static const char *const head[] = {"GPU Id", "UUID", "DRM Devices", "PCI Address", "Partition"};
        static const size_t width[] = {10, 25, 40, 14};
        struct ctk_table t = {.ncols = 5, .head = head, .width = width};
        bool unpartitioned = false;
        int rc = 0;
        for (size_t i = 0; rc == 0 && i < l->n; i++) {
                const struct ctk_gpu *g = &l->v[i];
                char index[24], uuid[CTK_UUID_STRLEN] = "N/A";
                (void)snprintf(index, sizeof(index), "%zu", g->index);
                if (g->has_uuid)
                        ctk_uuid_format(g->uuid, uuid);
                /* Like the Go toolkit: the non-card DRM nodes, comma separated. */
                struct ctk_strv drm _cleanup_strv_ = {0};
                for (size_t j = 0; rc == 0 && j < g->drm.n; j++)
                        if (strncmp(g->drm.v[j], "/dev/dri/card", 13) != 0)
                                rc = ctk_strv_push(&drm, g->drm.v[j]);
                _cleanup_free_ char *nodes = rc == 0 ? ctk_strv_join(&drm, ", ") : NULL;
                const char *mode = partition_mode(l, i);
                unpartitioned |= strcmp(mode, "-") == 0;
                const char *row[] = {index, uuid, nodes, g->pci, mode};
                rc = nodes != NULL ? ctk_table_add(&t, row) : -1;
        }
        if (rc == 0) {
                printf("Found %zu AMD GPU %s\n", l->n, l->n == 1 ? "device" : "devices");
                rc = ctk_table_print(stdout, &t);
        }
        if (rc == 0 && unpartitioned)
                puts("Partition: the GPU's compute and memory partition mode; '-': the GPU cannot be partitioned");
        ctk_table_clear(&t);
        return rc;
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

/* The KFD gpu_id of the GPU's topology node (what rocm-smi calls its
 * GUID), read only here: discovery does not need it. */
static json_t *kfd_gpu_id(struct ctk_backend *b, const struct ctk_gpu *g)
{
        _cleanup_error_ struct ctk_error *err = NULL;
        _cleanup_free_ char *path = NULL, *text = NULL;
        size_t len = 0;
        uint64_t v;
        if (g->kfd_node < 0 || asprintf(&path, "/sys/class/kfd/kfd/topology/nodes/%d/gpu_id", g->kfd_node) < 0 ||
            ctk_read_file(b, path, &text, &len, &err) < 0)
                return json_null();
        while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == ' '))
                len--;
        if (ctk_parse_u64_dec(text, len, UINT32_MAX, &v) < 0)
                return json_null();
        return json_integer((json_int_t)v);
}

static json_t *gpu_json(struct ctk_backend *b, const struct ctk_gpu_list *l, size_t i)
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
        json_object_set_new(o, "kfd_node", g->kfd_node >= 0 ? json_integer(g->kfd_node) : json_null());
        json_object_set_new(o, "gpu_id", kfd_gpu_id(b, g));
        json_object_set_new(o, "devices", devs);
        json_object_set_new(o, "swarm_id", swarm_id(l, i));
        return o;
}

static int print_json(struct ctk_backend *b, const struct ctk_gpu_list *l)
{
        _cleanup_json_ json_t *arr = json_array();
        for (size_t i = 0; arr != NULL && i < l->n; i++)
                if (json_array_append_new(arr, gpu_json(b, l, i)) < 0)
                        return -1;
        _cleanup_free_ char *s = arr != NULL ? json_dumps(arr, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
        if (s == NULL)
                return -1;
        puts(s);
        return 0;
}

enum { O_JSON, O_ALL_VENDORS };

static int run_list(void *ctx, const struct ctk_cmdline *cl)
{
        struct ctk_cli *cli = ctx;
        if (cl->opt[O_ALL_VENDORS].on)
                return ctk_gpu_list_all_vendors(cli, cl->opt[O_JSON].on);
        _cleanup_error_ struct ctk_error *err = NULL;
        _cleanup_backend_ struct ctk_backend *b = NULL;
        _cleanup_gpu_list_ struct ctk_gpu_list l = {0};
        if (ctk_cli_open_backend(cli, &b, &err) < 0)
                return ctk_cli_fail(err);
        if (ctk_discover_gpus(b, &l, &err) < 0) {
                ctk_error_prefix(&err, "failed to list AMD devices");
                return ctk_cli_fail(err);
        }
        if ((cl->opt[O_JSON].on ? print_json(b, &l) : print_table(&l)) < 0) {
                struct ctk_error e = {.code = ENOMEM, .msg = (char *)"out of memory"};
                return ctk_cli_fail(&e);
        }
        return 0;
}

static const struct ctk_opt list_opts[] = {
    [O_JSON] =
        CTK_FLAG("json", "print a JSON array: index, uuid, pci, partition, render_minor, kfd_node, gpu_id (the KFD "
                         "node's), devices, swarm_id (the Swarm resource id of runtime configure --swarm-resources)"),
    [O_ALL_VENDORS] = CTK_FLAG(
        "all-vendors", "list every display/accelerator PCI device (any vendor) with its driver and DRM nodes, and "
                       "whether amd-ctk can manage it"),
    {0},
};

static const struct ctk_cmd gpu_list = {
    .name = "list",
    .summary = "List AMD GPUs with their UUIDs",
    .description = "Lists the AMD GPUs (and GPU partitions) in index order: the index used by AMD_VISIBLE_DEVICES, "
                   "CDI device names (amd.com/gpu=N) and the GPU tracker.  UUIDs are the KFD unique_id of each "
                   "device (N/A when the driver reports none); the DRM devices are the render nodes; the "
                   "partition is the GPU's compute and memory partition mode (cpx_nps1: compute partition CPX, "
                   "memory partition NPS1), on each of its partitions, or '-' for a GPU that cannot be "
                   "partitioned.",
    .opts = list_opts,
    .run = run_list,
    .exit_status = "1\tthe GPUs cannot be listed (the amdgpu driver is not loaded, sysfs cannot be read)",
    .files = "/sys/class/kfd/kfd/topology/nodes\tthe KFD topology: GPUs, their PCI location and unique ids\n"
             "/sys/bus/pci/devices\tthe PCI devices, their DRM nodes and partitions\n"
             "/dev/dri\tthe DRM device nodes",
    .examples = "    amd-ctk gpu list\n"
                "    amd-ctk gpu list --json | jq -r '.[].uuid'\n"
                "\n"
                "Why a GPU of another vendor is not listed:\n"
                "\n"
                "    amd-ctk gpu list --all-vendors",
};

static const struct ctk_cmd *const gpu_subs[] = {&gpu_list, NULL};

const struct ctk_cmd ctk_cmd_gpu = {
    .name = "gpu",
    .summary = "GPU related commands",
    .description = "The AMD GPUs of the host, as amd-ctk and amd-container-runtime find and number them.",
    .subs = gpu_subs,
    .files = "/sys, /dev\tthe host's sysfs and device nodes (below --root, or simulated by --profile)",
    .examples = "    amd-ctk gpu list",
};
