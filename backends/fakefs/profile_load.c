/* Profile JSON -> struct ctk_fakefs_profile (syntax and per-object checks;
 * cross-object checks are in profile_check.c; GPUs in profile_load_gpu.c). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/fakefs/kfd_props.h"
#include "backends/fakefs/profile.h"
#include "backends/fakefs/profile_check.h"
#include "backends/fakefs/profile_json.h"
#include "backends/fakefs/profile_load.h"
#include "core/base/base.h"
#include "core/json/json.h"

int ctk_pj_oom(struct ctk_pj *c)
{
        return ctk_error_set(c->err, ENOMEM, "out of memory");
}

int ctk_pj_dup_str(struct ctk_pj *c, const char *s, char **out)
{
        if (s == NULL)
                return 0;
        if ((*out = strdup(s)) == NULL)
                return ctk_pj_oom(c);
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

/* A KFD property object: key -> non-negative integer or string of digits. */
int ctk_pj_load_props(struct ctk_pj *c, json_t *obj, const char *where, enum props_kind kind,
                      struct ctk_fakefs_props *out)
{
        if (ctk_pj_object(c, obj, where) < 0)
                return -1;
        size_t n = json_object_size(obj);
        out->v = calloc(n ? n : 1, sizeof(*out->v));
        if (out->v == NULL)
                return ctk_pj_oom(c);
        const char *key;
        json_t *v;
        json_object_foreach(obj, key, v)
        {
                struct ctk_fakefs_prop *p = &out->v[out->n];
                if (!valid_prop_key(key))
                        return ctk_pj_fail(c, where, "\"%s\" is not a KFD property name (a-z, 0-9, _)", CTK_CUT(key));
                bool identity = ctk_fakefs_prop_is_identity(key);
                if (identity && kind == PROPS_GPU_OVERRIDE)
                        return ctk_pj_fail(c, where, "\"%s\" is computed from the GPU; it cannot be overridden",
                                           CTK_CUT(key));
                if (ctk_pj_dup_str(c, key, &p->key) < 0)
                        return -1;
                out->n++;
                if (json_is_null(v)) {
                        if (kind != PROPS_TEMPLATE || !identity)
                                return ctk_pj_fail(c, where,
                                                   "\"%s\": null is only allowed for computed keys in a template",
                                                   CTK_CUT(key));
                } else if (json_is_integer(v) && json_integer_value(v) >= 0) {
                        if (asprintf(&p->value, "%lld", (long long)json_integer_value(v)) < 0) {
                                p->value = NULL;
                                return ctk_pj_oom(c);
                        }
                } else if (json_is_string(v) && json_string_length(v) > 0 &&
                           strspn(json_string_value(v), kind == PROPS_CACHE && strcmp(key, "sibling_map") == 0
                                                            ? "0123456789,"
                                                            : "0123456789") == json_string_length(v)) {
                        if (ctk_pj_dup_str(c, json_string_value(v), &p->value) < 0)
                                return -1;
                } else {
                        return ctk_pj_fail(c, where, "\"%s\" must be a non-negative integer (or a string of digits)",
                                           CTK_CUT(key));
                }
        }
        return 0;
}

int ctk_pj_load_attr(struct ctk_pj *c, json_t *parent, const char *where, const char *key,
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

int ctk_pj_find_template(struct ctk_pj *c, struct ctk_fakefs_profile *p, json_t *obj, const char *where, bool gpu,
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
        return ctk_pj_fail(c, where, "kfd_template \"%s\" is not defined in kfd_templates", CTK_CUT(name));
}

static int load_templates(struct ctk_pj *c, json_t *root, struct ctk_fakefs_profile *p)
{
        json_t *obj = json_object_get(root, "kfd_templates");
        if (obj != NULL && ctk_pj_object(c, obj, "kfd_templates") < 0)
                return -1;
        size_t n = obj != NULL ? json_object_size(obj) : 0;
        p->templates = calloc(n + 2, sizeof(*p->templates));
        if (p->templates == NULL)
                return ctk_pj_oom(c);
        const char *key;
        json_t *v;
        json_object_foreach(obj, key, v)
        {
                AT(w, "kfd_templates", key);
                struct ctk_fakefs_template *t = &p->templates[p->ntemplates++];
                if (ctk_pj_dup_str(c, key, &t->name) < 0 || ctk_pj_load_props(c, v, w, PROPS_TEMPLATE, &t->props) < 0)
                        return -1;
        }
        for (int i = 0; i < 2; i++) {
                struct ctk_fakefs_template *t = &p->templates[p->ntemplates++];
                if (ctk_pj_dup_str(c, "", &t->name) < 0 || ctk_fakefs_builtin_template(i == 0, &t->props) < 0)
                        return ctk_pj_oom(c);
        }
        return 0;
}

static int load_cpus(struct ctk_pj *c, json_t *root, struct ctk_fakefs_profile *p)
{
        static const char *const keys[] = {"node",      "kfd_template", "kfd_properties", "io_links",
                                           "p2p_links", "mem_banks",    "caches",         NULL};
        json_t *arr = json_object_get(root, "cpu_nodes");
        if (arr == NULL) { /* default: one CPU node 0 */
                if ((p->cpus = calloc(1, sizeof(*p->cpus))) == NULL)
                        return ctk_pj_oom(c);
                p->ncpus = 1;
                p->cpus[0].template = &p->templates[p->ntemplates - 1].props;
                return 0;
        }
        if (!json_is_array(arr))
                return ctk_pj_fail(c, "cpu_nodes", "expected an array");
        p->cpus = calloc(json_array_size(arr) + 1, sizeof(*p->cpus));
        if (p->cpus == NULL)
                return ctk_pj_oom(c);
        size_t i;
        json_t *o;
        json_array_foreach(arr, i, o)
        {
                AT_INDEX(w, "cpu_nodes", i);
                struct ctk_fakefs_cpu *cpu = &p->cpus[p->ncpus++];
                uint64_t node = 0;
                if (ctk_pj_object(c, o, w) < 0 || ctk_pj_check_keys(c, o, w, keys) < 0 ||
                    ctk_pj_uint(c, o, w, "node", true, CTK_FAKEFS_MAX_KFD_NODE, &node, NULL) < 0 ||
                    ctk_pj_find_template(c, p, o, w, false, &cpu->template) < 0 ||
                    ctk_pj_load_extra(c, p, o, w, &cpu->extra) < 0)
                        return -1;
                cpu->kfd_node = (int)node;
                json_t *props = json_object_get(o, "kfd_properties");
                if (props != NULL) {
                        AT(pw, w, "kfd_properties");
                        if (ctk_pj_load_props(c, props, pw, PROPS_CPU_OVERRIDE, &cpu->props) < 0)
                                return -1;
                }
        }
        return 0;
}

static int load_host(struct ctk_pj *c, json_t *root, struct ctk_fakefs_profile *p)
{
        static const char *const keys[] = {"name",
                                           "description",
                                           "amdgpu",
                                           "xcp_name",
                                           "kfd",
                                           "dri",
                                           "kfd_templates",
                                           "kfd_link_templates",
                                           "kfd_mem_banks",
                                           "kfd_caches",
                                           "cpu_nodes",
                                           "gpus",
                                           NULL};
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
        if (ctk_pj_dup_str(c, name, &p->name) < 0 || ctk_pj_dup_str(c, desc, &p->description) < 0 ||
            ctk_pj_dup_str(c, xcp, &p->xcp_prefix) < 0)
                return -1;
        json_t *kfd = json_object_get(root, "kfd");
        if (kfd != NULL) {
                if (ctk_pj_object(c, kfd, "kfd") < 0 || ctk_pj_check_keys(c, kfd, "kfd", kfd_keys) < 0 ||
                    ctk_pj_uint(c, kfd, "kfd", "generation_id", false, INT64_MAX, &p->generation_id, NULL) < 0)
                        return -1;
                json_t *dev = json_object_get(kfd, "device");
                if (dev != NULL && json_is_null(dev))
                        p->has_kfd_device = false;
                else if (ctk_pj_load_attr(c, kfd, "kfd", "device", &p->kfd_attr, true, &p->kfd_major, &p->kfd_minor) <
                         0)
                        return -1;
        }
        json_t *dri = json_object_get(root, "dri");
        if (dri != NULL) {
                uint64_t major = p->dri_major;
                if (ctk_pj_object(c, dri, "dri") < 0 || ctk_pj_check_keys(c, dri, "dri", dri_keys) < 0 ||
                    ctk_pj_uint(c, dri, "dri", "major", false, 4095, &major, NULL) < 0 ||
                    ctk_pj_load_attr(c, dri, "dri", "card", &p->card_attr, false, NULL, NULL) < 0 ||
                    ctk_pj_load_attr(c, dri, "dri", "render", &p->render_attr, false, NULL, NULL) < 0)
                        return -1;
                p->dri_major = (unsigned int)major;
        }
        return load_templates(c, root, p) < 0 || ctk_pj_load_topology(c, root, p) < 0 || load_cpus(c, root, p) < 0 ||
                       ctk_pj_load_gpus(c, root, p) < 0
                   ? -1
                   : 0;
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
                return ctk_error_set(err, EINVAL, "%s: %s", CTK_CUT(name), je->text);
        return ctk_error_set(err, EINVAL, "%s:%d:%d: %s", CTK_CUT(name), je->line, je->column, je->text);
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
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        if (ctk_file_read_all(path, &text, &len, err) < 0)
                return ctk_error_prefix(err, "profile");
        json_error_t je;
        _cleanup_json_ json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
        if (root == NULL)
                return json_fail(path, &je, err);
        return load_json(root, path, out, err);
}
