/* Profile JSON -> the GPUs of a struct ctk_fakefs_profile: PCI identity,
 * device nodes, partition modes and explicit partitions. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/fakefs/kfd_props.h"
#include "backends/fakefs/profile_load.h"
#include "core/base/base.h"
#include "core/json/json.h"

static int load_modes(struct ctk_pj *c, json_t *obj, const char *where, const char *key, struct ctk_strv *out)
{
        json_t *arr = json_object_get(obj, key);
        if (arr == NULL)
                return 0;
        AT(w, where, key);
        if (!json_is_array(arr) || json_array_size(arr) == 0)
                return ctk_pj_fail(c, w, "expected a non-empty array of mode names");
        size_t i;
        json_t *v;
        json_array_foreach(arr, i, v)
        {
                if (!json_is_string(v))
                        return ctk_pj_fail(c, w, "expected mode names (strings)");
                _cleanup_free_ char *up = strdup(json_string_value(v));
                if (up == NULL)
                        return ctk_pj_oom(c);
                for (char *s = up; *s; s++)
                        *s = (char)toupper((unsigned char)*s);
                if (ctk_strv_contains(out, up))
                        return ctk_pj_fail(c, w, "mode \"%s\" is listed twice", CTK_CUT(up));
                if (ctk_strv_push_take(out, ctk_steal(&up)) < 0)
                        return ctk_pj_oom(c);
        }
        return 0;
}

static int load_partitioning(struct ctk_pj *c, json_t *gpu, const char *where, struct ctk_fakefs_partitioning *out)
{
        static const char *const keys[] = {"compute", "memory", "xcds", "available_compute", "available_memory", NULL};
        json_t *obj = json_object_get(gpu, "partition");
        if (obj == NULL)
                return 0;
        AT(w, where, "partition");
        const char *compute = "SPX", *memory = "NPS1";
        uint64_t xcds = 0;
        if (ctk_pj_object(c, obj, w) < 0 || ctk_pj_check_keys(c, obj, w, keys) < 0 ||
            ctk_pj_string(c, obj, w, "compute", false, &compute) < 0 ||
            ctk_pj_string(c, obj, w, "memory", false, &memory) < 0 ||
            ctk_pj_uint(c, obj, w, "xcds", true, CTK_FAKEFS_MAX_PARTITIONS, &xcds, NULL) < 0 ||
            load_modes(c, obj, w, "available_compute", &out->available_compute) < 0 ||
            load_modes(c, obj, w, "available_memory", &out->available_memory) < 0)
                return -1;
        if (xcds == 0)
                return ctk_pj_fail(c, w, "\"xcds\" must be at least 1");
        out->supported = true;
        out->xcds = (unsigned int)xcds;
        if (ctk_pj_dup_str(c, compute, &out->compute) < 0 || ctk_pj_dup_str(c, memory, &out->memory) < 0)
                return -1;
        for (char *s = out->compute; *s; s++)
                *s = (char)toupper((unsigned char)*s);
        for (char *s = out->memory; *s; s++)
                *s = (char)toupper((unsigned char)*s);
        if (out->available_compute.n == 0 && ctk_fakefs_default_compute_modes(out->xcds, &out->available_compute) < 0)
                return ctk_pj_oom(c);
        if (out->available_memory.n == 0 &&
            (ctk_strv_push(&out->available_memory, "NPS1") < 0 || ctk_strv_push(&out->available_memory, "NPS4") < 0))
                return ctk_pj_oom(c);
        return 0;
}

static int load_parts(struct ctk_pj *c, struct ctk_fakefs_profile *p, json_t *gpu, const char *where,
                      struct ctk_fakefs_gpu *g)
{
        static const char *const keys[] = {"kfd_node",       "render_minor", "card_minor", "location_id",
                                           "unique_id",      "gpu_id",       "io_links",   "p2p_links",
                                           "kfd_properties", "mem_banks",    "caches",     NULL};
        json_t *arr = json_object_get(gpu, "partitions");
        if (arr == NULL)
                return 0;
        AT(w, where, "partitions");
        if (!json_is_array(arr) || json_array_size(arr) == 0 || json_array_size(arr) > CTK_FAKEFS_MAX_PARTITIONS)
                return ctk_pj_fail(c, w, "expected an array of 1 to %d partitions", CTK_FAKEFS_MAX_PARTITIONS);
        g->parts = calloc(json_array_size(arr), sizeof(*g->parts));
        if (g->parts == NULL)
                return ctk_pj_oom(c);
        size_t i;
        json_t *o;
        json_array_foreach(arr, i, o)
        {
                AT_INDEX(pw, w, i);
                struct ctk_fakefs_part *part = &g->parts[g->nparts++];
                uint64_t node = 0, render = 0, card = 0, loc = 0, gpu_id = 0;
                bool has_card, has_loc, has_gpu_id;
                if (ctk_pj_object(c, o, pw) < 0 || ctk_pj_check_keys(c, o, pw, keys) < 0 ||
                    ctk_pj_uint(c, o, pw, "kfd_node", true, CTK_FAKEFS_MAX_KFD_NODE, &node, NULL) < 0 ||
                    ctk_pj_uint(c, o, pw, "render_minor", true, CTK_FAKEFS_MAX_MINOR, &render, NULL) < 0 ||
                    ctk_pj_uint(c, o, pw, "card_minor", false, CTK_FAKEFS_MAX_MINOR, &card, &has_card) < 0 ||
                    ctk_pj_uint(c, o, pw, "location_id", false, UINT32_MAX, &loc, &has_loc) < 0 ||
                    ctk_pj_uint(c, o, pw, "gpu_id", false, UINT32_MAX, &gpu_id, &has_gpu_id) < 0 ||
                    ctk_pj_u64_id(c, o, pw, "unique_id", &part->unique_id, &part->has_unique_id) < 0 ||
                    ctk_pj_load_extra(c, p, o, pw, &part->extra) < 0)
                        return -1;
                part->kfd_node = (int)node;
                part->render_minor = (int)render;
                part->card_minor = has_card ? (int)card : -1;
                part->location_id = has_loc ? (int64_t)loc : -1;
                part->gpu_id = has_gpu_id ? (int64_t)gpu_id : -1;
                json_t *props = json_object_get(o, "kfd_properties");
                if (props != NULL) {
                        AT(prw, pw, "kfd_properties");
                        if (ctk_pj_load_props(c, props, prw, PROPS_GPU_OVERRIDE, &part->props) < 0)
                                return -1;
                }
        }
        return 0;
}

static int load_gpu(struct ctk_pj *c, struct ctk_fakefs_profile *p, json_t *o, const char *w, struct ctk_fakefs_gpu *g)
{
        static const char *const keys[] = {"pci",
                                           "vendor_id",
                                           "device_id",
                                           "class",
                                           "driver",
                                           "unique_id",
                                           "kfd_node",
                                           "card_minor",
                                           "render_minor",
                                           "gpu_id",
                                           "kfd_name",
                                           "kfd_template",
                                           "kfd_properties",
                                           "card",
                                           "render",
                                           "partition",
                                           "partitions",
                                           "numa_node",
                                           "io_links",
                                           "p2p_links",
                                           "mem_banks",
                                           "caches",
                                           "sensors",
                                           "revision",
                                           "subsystem_vendor",
                                           "subsystem_device",
                                           "product_name",
                                           "product_number",
                                           "serial_number",
                                           "vbios_version",
                                           NULL};
        const char *pci = NULL, *driver = "amdgpu", *kfd_name = NULL;
        uint64_t vendor = 0x1002, device = 0, cls = 0x038000, node = 0, card = 0, render = 0, gpu_id = 0, numa = 0;
        bool has_node, has_card, has_render, has_gpu_id, has_numa;
        if (ctk_pj_object(c, o, w) < 0 || ctk_pj_check_keys(c, o, w, keys) < 0 ||
            ctk_pj_string(c, o, w, "pci", true, &pci) < 0)
                return -1;
        if (ctk_fakefs_parse_bdf(pci, &g->domain, &g->bus, &g->dev, &g->fn) < 0)
                return ctk_pj_fail(c, w, "\"pci\": \"%s\" is not a PCI address like \"0000:03:00.0\"", CTK_CUT(pci));
        if (asprintf(&g->pci, "%04x:%02x:%02x.%x", g->domain, g->bus, g->dev, g->fn) < 0) {
                g->pci = NULL;
                return ctk_pj_oom(c);
        }
        json_t *drv = json_object_get(o, "driver");
        if (drv != NULL && json_is_null(drv))
                driver = NULL;
        else if (ctk_pj_string(c, o, w, "driver", false, &driver) < 0)
                return -1;
        if (ctk_pj_hex(c, o, w, "vendor_id", 0xffff, &vendor, NULL) < 0 ||
            ctk_pj_hex(c, o, w, "device_id", 0xffff, &device, NULL) < 0 ||
            ctk_pj_hex(c, o, w, "class", 0xffffff, &cls, NULL) < 0 ||
            ctk_pj_u64_id(c, o, w, "unique_id", &g->unique_id, &g->has_unique_id) < 0 ||
            ctk_pj_uint(c, o, w, "kfd_node", false, CTK_FAKEFS_MAX_KFD_NODE, &node, &has_node) < 0 ||
            ctk_pj_uint(c, o, w, "card_minor", false, CTK_FAKEFS_MAX_MINOR, &card, &has_card) < 0 ||
            ctk_pj_uint(c, o, w, "render_minor", false, CTK_FAKEFS_MAX_MINOR, &render, &has_render) < 0 ||
            ctk_pj_uint(c, o, w, "gpu_id", false, UINT32_MAX, &gpu_id, &has_gpu_id) < 0 ||
            ctk_pj_uint(c, o, w, "numa_node", false, CTK_FAKEFS_MAX_KFD_NODE, &numa, &has_numa) < 0 ||
            ctk_pj_string(c, o, w, "kfd_name", false, &kfd_name) < 0 ||
            ctk_pj_find_template(c, p, o, w, true, &g->template) < 0)
                return -1;
        if (json_object_get(o, "device_id") == NULL)
                return ctk_pj_fail(c, w, "missing required key \"device_id\"");
        if (driver != NULL && (driver[0] == '\0' || strchr(driver, '/') != NULL))
                return ctk_pj_fail(c, w, "\"driver\" must be a driver name like \"amdgpu\" (or null)");
        g->vendor_id = (unsigned int)vendor;
        g->device_id = (unsigned int)device;
        g->pci_class = (unsigned int)cls;
        g->kfd_node = has_node ? (int)node : -1;
        g->card_minor = has_card ? (int)card : -1;
        g->render_minor = has_render ? (int)render : -1;
        g->gpu_id = has_gpu_id ? (int64_t)gpu_id : -1;
        g->numa_node = has_numa ? (int)numa : -1;
        g->card_attr = p->card_attr;
        g->render_attr = p->render_attr;
        if (ctk_pj_dup_str(c, driver, &g->driver) < 0 || ctk_pj_dup_str(c, kfd_name, &g->kfd_name) < 0 ||
            ctk_pj_load_attr(c, o, w, "card", &g->card_attr, false, NULL, NULL) < 0 ||
            ctk_pj_load_attr(c, o, w, "render", &g->render_attr, false, NULL, NULL) < 0 ||
            load_partitioning(c, o, w, &g->partition) < 0 || load_parts(c, p, o, w, g) < 0 ||
            ctk_pj_load_extra(c, p, o, w, &g->extra) < 0 || ctk_pj_load_sensors(c, o, w, g) < 0)
                return -1;
        json_t *props = json_object_get(o, "kfd_properties");
        if (props != NULL) {
                AT(pw, w, "kfd_properties");
                if (ctk_pj_load_props(c, props, pw, PROPS_GPU_OVERRIDE, &g->props) < 0)
                        return -1;
        }
        return 0;
}

int ctk_pj_load_gpus(struct ctk_pj *c, json_t *root, struct ctk_fakefs_profile *p)
{
        json_t *arr = json_object_get(root, "gpus");
        if (arr == NULL)
                return 0;
        if (!json_is_array(arr))
                return ctk_pj_fail(c, "gpus", "expected an array");
        p->gpus = calloc(json_array_size(arr) + 1, sizeof(*p->gpus));
        if (p->gpus == NULL)
                return ctk_pj_oom(c);
        size_t i;
        json_t *o;
        json_array_foreach(arr, i, o)
        {
                AT_INDEX(w, "gpus", i);
                if (load_gpu(c, p, o, w, &p->gpus[p->ngpus++]) < 0)
                        return -1;
        }
        return 0;
}
