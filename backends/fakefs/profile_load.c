/* Profile JSON -> struct ctk_fakefs_profile (syntax and per-object checks;
 * cross-object checks are in profile_check.c). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/fakefs/kfd_props.h"
#include "backends/fakefs/profile.h"
#include "backends/fakefs/profile_check.h"
#include "backends/fakefs/profile_json.h"
#include "core/base/base.h"
#include "core/json/json.h"

#define AT(var, where, key)                                                                                            \
        _cleanup_free_ char *var = ctk_pj_at(where, key);                                                              \
        if (var == NULL)                                                                                               \
        return ctk_error_set(c->err, ENOMEM, "out of memory")
#define AT_INDEX(var, where, i)                                                                                        \
        _cleanup_free_ char *var = ctk_pj_at_index(where, i);                                                          \
        if (var == NULL)                                                                                               \
        return ctk_error_set(c->err, ENOMEM, "out of memory")

static int oom(struct ctk_pj *c)
{
        return ctk_error_set(c->err, ENOMEM, "out of memory");
}

static int dup_str(struct ctk_pj *c, const char *s, char **out)
{
        if (s == NULL)
                return 0;
        if ((*out = strdup(s)) == NULL)
                return oom(c);
        return 0;
}

static bool valid_prop_key(const char *k)
{
        if (*k == '\0')
                return false;
        for (; *k != '\0'; k++)
                if (!islower((unsigned char)*k) && !isdigit((unsigned char)*k) && *k != '_')
                        return false;
        return true;
}

enum props_kind {
        PROPS_TEMPLATE,     /* null values place computed keys */
        PROPS_GPU_OVERRIDE, /* computed keys cannot be overridden */
        PROPS_CPU_OVERRIDE,
};

/* A KFD property object: key -> non-negative integer or string of digits. */
static int load_props(struct ctk_pj *c, json_t *obj, const char *where, enum props_kind kind,
                      struct ctk_fakefs_props *out)
{
        if (ctk_pj_object(c, obj, where) < 0)
                return -1;
        size_t n = json_object_size(obj);
        out->v = calloc(n ? n : 1, sizeof(*out->v));
        if (out->v == NULL)
                return oom(c);
        const char *key;
        json_t *v;
        json_object_foreach(obj, key, v)
        {
                struct ctk_fakefs_prop *p = &out->v[out->n];
                if (!valid_prop_key(key))
                        return ctk_pj_fail(c, where, "\"%s\" is not a KFD property name (a-z, 0-9, _)", key);
                bool identity = ctk_fakefs_prop_is_identity(key);
                if (identity && kind == PROPS_GPU_OVERRIDE)
                        return ctk_pj_fail(c, where, "\"%s\" is computed from the GPU; it cannot be overridden", key);
                if (dup_str(c, key, &p->key) < 0)
                        return -1;
                out->n++;
                if (json_is_null(v)) {
                        if (kind != PROPS_TEMPLATE || !identity)
                                return ctk_pj_fail(c, where,
                                                   "\"%s\": null is only allowed for computed keys in a template", key);
                } else if (json_is_integer(v) && json_integer_value(v) >= 0) {
                        if (asprintf(&p->value, "%lld", (long long)json_integer_value(v)) < 0) {
                                p->value = NULL;
                                return oom(c);
                        }
                } else if (json_is_string(v) && json_string_length(v) > 0 &&
                           strspn(json_string_value(v), "0123456789") == json_string_length(v)) {
                        if (dup_str(c, json_string_value(v), &p->value) < 0)
                                return -1;
                } else {
                        return ctk_pj_fail(c, where, "\"%s\" must be a non-negative integer (or a string of digits)",
                                           key);
                }
        }
        return 0;
}

static int load_attr(struct ctk_pj *c, json_t *parent, const char *where, const char *key,
                     struct ctk_fakefs_node_attr *out, bool with_numbers, unsigned int *major, unsigned int *minor)
{
        json_t *obj = json_object_get(parent, key);
        if (obj == NULL)
                return 0;
        AT(w, where, key);
        static const char *const attr_keys[] = {"mode", "uid", "gid", NULL};
        static const char *const num_keys[] = {"major", "minor", "mode", "uid", "gid", NULL};
        if (ctk_pj_object(c, obj, w) < 0 || ctk_pj_check_keys(c, obj, w, with_numbers ? num_keys : attr_keys) < 0)
                return -1;
        uint64_t uid = out->uid, gid = out->gid, ma = major ? *major : 0, mi = minor ? *minor : 0;
        if (ctk_pj_mode(c, obj, w, "mode", &out->mode) < 0 ||
            ctk_pj_uint(c, obj, w, "uid", false, UINT32_MAX - 1, &uid, NULL) < 0 ||
            ctk_pj_uint(c, obj, w, "gid", false, UINT32_MAX - 1, &gid, NULL) < 0)
                return -1;
        if (with_numbers && (ctk_pj_uint(c, obj, w, "major", false, 4095, &ma, NULL) < 0 ||
                             ctk_pj_uint(c, obj, w, "minor", false, CTK_FAKEFS_MAX_MINOR, &mi, NULL) < 0))
                return -1;
        out->uid = (uid_t)uid;
        out->gid = (gid_t)gid;
        if (major != NULL)
                *major = (unsigned int)ma;
        if (minor != NULL)
                *minor = (unsigned int)mi;
        return 0;
}

static int find_template(struct ctk_pj *c, struct ctk_fakefs_profile *p, json_t *obj, const char *where, bool gpu,
                         const struct ctk_fakefs_props **out)
{
        const char *name = NULL;
        if (ctk_pj_string(c, obj, where, "kfd_template", false, &name) < 0)
                return -1;
        /* The last two templates are the built-in GPU and CPU ones. */
        *out = &p->templates[p->ntemplates - (gpu ? 2 : 1)].props;
        if (name == NULL)
                return 0;
        for (size_t i = 0; i + 2 < p->ntemplates; i++) {
                if (strcmp(p->templates[i].name, name) == 0) {
                        *out = &p->templates[i].props;
                        return 0;
                }
        }
        return ctk_pj_fail(c, where, "kfd_template \"%s\" is not defined in kfd_templates", name);
}

static int load_templates(struct ctk_pj *c, json_t *root, struct ctk_fakefs_profile *p)
{
        json_t *obj = json_object_get(root, "kfd_templates");
        if (obj != NULL && ctk_pj_object(c, obj, "kfd_templates") < 0)
                return -1;
        size_t n = obj != NULL ? json_object_size(obj) : 0;
        p->templates = calloc(n + 2, sizeof(*p->templates));
        if (p->templates == NULL)
                return oom(c);
        const char *key;
        json_t *v;
        json_object_foreach(obj, key, v)
        {
                AT(w, "kfd_templates", key);
                struct ctk_fakefs_template *t = &p->templates[p->ntemplates++];
                if (dup_str(c, key, &t->name) < 0 || load_props(c, v, w, PROPS_TEMPLATE, &t->props) < 0)
                        return -1;
        }
        for (int i = 0; i < 2; i++) {
                struct ctk_fakefs_template *t = &p->templates[p->ntemplates++];
                if (dup_str(c, "", &t->name) < 0 || ctk_fakefs_builtin_template(i == 0, &t->props) < 0)
                        return oom(c);
        }
        return 0;
}

static int load_cpus(struct ctk_pj *c, json_t *root, struct ctk_fakefs_profile *p)
{
        static const char *const keys[] = {"node", "kfd_template", "kfd_properties", NULL};
        json_t *arr = json_object_get(root, "cpu_nodes");
        if (arr == NULL) { /* default: one CPU node 0 */
                if ((p->cpus = calloc(1, sizeof(*p->cpus))) == NULL)
                        return oom(c);
                p->ncpus = 1;
                p->cpus[0].template = &p->templates[p->ntemplates - 1].props;
                return 0;
        }
        if (!json_is_array(arr))
                return ctk_pj_fail(c, "cpu_nodes", "expected an array");
        p->cpus = calloc(json_array_size(arr) + 1, sizeof(*p->cpus));
        if (p->cpus == NULL)
                return oom(c);
        size_t i;
        json_t *o;
        json_array_foreach(arr, i, o)
        {
                AT_INDEX(w, "cpu_nodes", i);
                struct ctk_fakefs_cpu *cpu = &p->cpus[p->ncpus++];
                uint64_t node = 0;
                if (ctk_pj_object(c, o, w) < 0 || ctk_pj_check_keys(c, o, w, keys) < 0 ||
                    ctk_pj_uint(c, o, w, "node", true, CTK_FAKEFS_MAX_KFD_NODE, &node, NULL) < 0 ||
                    find_template(c, p, o, w, false, &cpu->template) < 0)
                        return -1;
                cpu->kfd_node = (int)node;
                json_t *props = json_object_get(o, "kfd_properties");
                if (props != NULL) {
                        AT(pw, w, "kfd_properties");
                        if (load_props(c, props, pw, PROPS_CPU_OVERRIDE, &cpu->props) < 0)
                                return -1;
                }
        }
        return 0;
}

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
                        return oom(c);
                for (char *s = up; *s; s++)
                        *s = (char)toupper((unsigned char)*s);
                if (ctk_strv_contains(out, up))
                        return ctk_pj_fail(c, w, "mode \"%s\" is listed twice", up);
                if (ctk_strv_push_take(out, ctk_steal(&up)) < 0)
                        return oom(c);
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
        if (dup_str(c, compute, &out->compute) < 0 || dup_str(c, memory, &out->memory) < 0)
                return -1;
        for (char *s = out->compute; *s; s++)
                *s = (char)toupper((unsigned char)*s);
        for (char *s = out->memory; *s; s++)
                *s = (char)toupper((unsigned char)*s);
        if (out->available_compute.n == 0 && ctk_fakefs_default_compute_modes(out->xcds, &out->available_compute) < 0)
                return oom(c);
        if (out->available_memory.n == 0 &&
            (ctk_strv_push(&out->available_memory, "NPS1") < 0 || ctk_strv_push(&out->available_memory, "NPS4") < 0))
                return oom(c);
        return 0;
}

static int load_parts(struct ctk_pj *c, json_t *gpu, const char *where, struct ctk_fakefs_gpu *g)
{
        static const char *const keys[] = {"kfd_node",  "render_minor", "card_minor",     "location_id",
                                           "unique_id", "gpu_id",       "kfd_properties", NULL};
        json_t *arr = json_object_get(gpu, "partitions");
        if (arr == NULL)
                return 0;
        AT(w, where, "partitions");
        if (!json_is_array(arr) || json_array_size(arr) == 0 || json_array_size(arr) > CTK_FAKEFS_MAX_PARTITIONS)
                return ctk_pj_fail(c, w, "expected an array of 1 to %d partitions", CTK_FAKEFS_MAX_PARTITIONS);
        g->parts = calloc(json_array_size(arr), sizeof(*g->parts));
        if (g->parts == NULL)
                return oom(c);
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
                    ctk_pj_u64_id(c, o, pw, "unique_id", &part->unique_id, &part->has_unique_id) < 0)
                        return -1;
                part->kfd_node = (int)node;
                part->render_minor = (int)render;
                part->card_minor = has_card ? (int)card : -1;
                part->location_id = has_loc ? (int64_t)loc : -1;
                part->gpu_id = has_gpu_id ? (int64_t)gpu_id : -1;
                json_t *props = json_object_get(o, "kfd_properties");
                if (props != NULL) {
                        AT(prw, pw, "kfd_properties");
                        if (load_props(c, props, prw, PROPS_GPU_OVERRIDE, &part->props) < 0)
                                return -1;
                }
        }
        return 0;
}

static int load_gpu(struct ctk_pj *c, struct ctk_fakefs_profile *p, json_t *o, const char *w, struct ctk_fakefs_gpu *g)
{
        static const char *const keys[] = {
            "pci",        "vendor_id",    "device_id",  "class",    "driver",       "unique_id",      "kfd_node",
            "card_minor", "render_minor", "gpu_id",     "kfd_name", "kfd_template", "kfd_properties", "card",
            "render",     "partition",    "partitions", NULL};
        const char *pci = NULL, *driver = "amdgpu", *kfd_name = NULL;
        uint64_t vendor = 0x1002, device = 0, cls = 0x038000, node = 0, card = 0, render = 0, gpu_id = 0;
        bool has_node, has_card, has_render, has_gpu_id;
        if (ctk_pj_object(c, o, w) < 0 || ctk_pj_check_keys(c, o, w, keys) < 0 ||
            ctk_pj_string(c, o, w, "pci", true, &pci) < 0)
                return -1;
        if (ctk_fakefs_parse_bdf(pci, &g->domain, &g->bus, &g->dev, &g->fn) < 0)
                return ctk_pj_fail(c, w, "\"pci\": \"%s\" is not a PCI address like \"0000:03:00.0\"", pci);
        if (asprintf(&g->pci, "%04x:%02x:%02x.%x", g->domain, g->bus, g->dev, g->fn) < 0) {
                g->pci = NULL;
                return oom(c);
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
            ctk_pj_string(c, o, w, "kfd_name", false, &kfd_name) < 0 ||
            find_template(c, p, o, w, true, &g->template) < 0)
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
        g->card_attr = p->card_attr;
        g->render_attr = p->render_attr;
        if (dup_str(c, driver, &g->driver) < 0 || dup_str(c, kfd_name, &g->kfd_name) < 0 ||
            load_attr(c, o, w, "card", &g->card_attr, false, NULL, NULL) < 0 ||
            load_attr(c, o, w, "render", &g->render_attr, false, NULL, NULL) < 0 ||
            load_partitioning(c, o, w, &g->partition) < 0 || load_parts(c, o, w, g) < 0)
                return -1;
        json_t *props = json_object_get(o, "kfd_properties");
        if (props != NULL) {
                AT(pw, w, "kfd_properties");
                if (load_props(c, props, pw, PROPS_GPU_OVERRIDE, &g->props) < 0)
                        return -1;
        }
        return 0;
}

static int load_gpus(struct ctk_pj *c, json_t *root, struct ctk_fakefs_profile *p)
{
        json_t *arr = json_object_get(root, "gpus");
        if (arr == NULL)
                return 0;
        if (!json_is_array(arr))
                return ctk_pj_fail(c, "gpus", "expected an array");
        p->gpus = calloc(json_array_size(arr) + 1, sizeof(*p->gpus));
        if (p->gpus == NULL)
                return oom(c);
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

static int load_host(struct ctk_pj *c, json_t *root, struct ctk_fakefs_profile *p)
{
        static const char *const keys[] = {"name", "description",   "amdgpu",    "xcp_name", "kfd",
                                           "dri",  "kfd_templates", "cpu_nodes", "gpus",     NULL};
        static const char *const kfd_keys[] = {"generation_id", "device", NULL};
        static const char *const dri_keys[] = {"major", "card", "render", NULL};
        const char *name = NULL, *desc = NULL, *xcp = "amdgpu_xcp_";
        if (ctk_pj_object(c, root, "") < 0 || ctk_pj_check_keys(c, root, "", keys) < 0 ||
            ctk_pj_string(c, root, "", "name", false, &name) < 0 ||
            ctk_pj_string(c, root, "", "description", false, &desc) < 0 ||
            ctk_pj_bool(c, root, "", "amdgpu", &p->amdgpu_loaded) < 0 ||
            ctk_pj_string(c, root, "", "xcp_name", false, &xcp) < 0)
                return -1;
        if (strcmp(xcp, "amdgpu_xcp_") != 0 && strcmp(xcp, "amdgpu_xcp.") != 0)
                return ctk_pj_fail(c, "xcp_name", "must be \"amdgpu_xcp_\" or \"amdgpu_xcp.\"");
        if (dup_str(c, name, &p->name) < 0 || dup_str(c, desc, &p->description) < 0 ||
            dup_str(c, xcp, &p->xcp_prefix) < 0)
                return -1;
        json_t *kfd = json_object_get(root, "kfd");
        if (kfd != NULL) {
                if (ctk_pj_object(c, kfd, "kfd") < 0 || ctk_pj_check_keys(c, kfd, "kfd", kfd_keys) < 0 ||
                    ctk_pj_uint(c, kfd, "kfd", "generation_id", false, INT64_MAX, &p->generation_id, NULL) < 0)
                        return -1;
                json_t *dev = json_object_get(kfd, "device");
                if (dev != NULL && json_is_null(dev))
                        p->has_kfd_device = false;
                else if (load_attr(c, kfd, "kfd", "device", &p->kfd_attr, true, &p->kfd_major, &p->kfd_minor) < 0)
                        return -1;
        }
        json_t *dri = json_object_get(root, "dri");
        if (dri != NULL) {
                uint64_t major = p->dri_major;
                if (ctk_pj_object(c, dri, "dri") < 0 || ctk_pj_check_keys(c, dri, "dri", dri_keys) < 0 ||
                    ctk_pj_uint(c, dri, "dri", "major", false, 4095, &major, NULL) < 0 ||
                    load_attr(c, dri, "dri", "card", &p->card_attr, false, NULL, NULL) < 0 ||
                    load_attr(c, dri, "dri", "render", &p->render_attr, false, NULL, NULL) < 0)
                        return -1;
                p->dri_major = (unsigned int)major;
        }
        return load_templates(c, root, p) < 0 || load_cpus(c, root, p) < 0 || load_gpus(c, root, p) < 0 ? -1 : 0;
}

static void set_defaults(struct ctk_fakefs_profile *p)
{
        p->amdgpu_loaded = true;
        p->generation_id = 1;
        p->has_kfd_device = true;
        p->kfd_major = 235;
        p->kfd_attr = (struct ctk_fakefs_node_attr){.mode = 0660, .uid = 0, .gid = 109};
        p->dri_major = 226;
        p->card_attr = (struct ctk_fakefs_node_attr){.mode = 0660, .uid = 0, .gid = 44};
        p->render_attr = (struct ctk_fakefs_node_attr){.mode = 0660, .uid = 0, .gid = 109};
}

static int load_json(json_t *root, const char *name, struct ctk_fakefs_profile **out, struct ctk_error **err)
{
        struct ctk_pj c = {.file = name, .err = err};
        _cleanup_fakefs_profile_ struct ctk_fakefs_profile *p = calloc(1, sizeof(*p));
        if (p == NULL || (p->path = strdup(name)) == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        set_defaults(p);
        if (load_host(&c, root, p) < 0 || ctk_fakefs_profile_check(p, err) < 0)
                return -1;
        *out = ctk_steal(&p);
        return 0;
}

static int json_fail(const char *name, const json_error_t *je, struct ctk_error **err)
{
        if (je->line < 0)
                return ctk_error_set(err, EINVAL, "%s: %s", name, je->text);
        return ctk_error_set(err, EINVAL, "%s:%d:%d: %s", name, je->line, je->column, je->text);
}

int ctk_fakefs_profile_parse(const char *text, const char *name, struct ctk_fakefs_profile **out,
                             struct ctk_error **err)
{
        json_error_t je;
        _cleanup_json_ json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
        if (root == NULL)
                return json_fail(name, &je, err);
        return load_json(root, name, out, err);
}

int ctk_fakefs_profile_load(const char *path, struct ctk_fakefs_profile **out, struct ctk_error **err)
{
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        if (f == NULL)
                return ctk_error_errno(err, errno, "cannot open profile %s", path);
        json_error_t je;
        _cleanup_json_ json_t *root = json_loadf(f, JSON_REJECT_DUPLICATES, &je);
        if (root == NULL) {
                if (ferror(f))
                        return ctk_error_errno(err, errno, "reading profile %s", path);
                return json_fail(path, &je, err);
        }
        return load_json(root, path, out, err);
}
