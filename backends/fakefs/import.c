/* KFD topology capture -> host profile: the profile's JSON document (name,
 * templates, CPU nodes, GPUs and their partitions as differences from the
 * templates), written from the grouped capture (import_group.c) and checked
 * to load. */
#include "backends/fakefs/import.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/fakefs/build.h"
#include "backends/fakefs/import_group.h"
#include "backends/fakefs/kfd_capture.h"
#include "backends/fakefs/kfd_props.h"
#include "backends/fakefs/profile.h"
#include "core/base/base.h"
#include "core/json/json.h"

static json_t *prop_value(const char *v)
{
        uint64_t n;
        if (ctk_parse_u64_dec(v, strlen(v), INT64_MAX, &n) == 0)
                return json_integer((json_int_t)n);
        return json_string(v);
}

static void put(struct ctk_fakefs_importer *im, json_t *obj, const char *key, json_t *v)
{
        if (v == NULL || json_object_set_new(obj, key, v) < 0)
                im->oom = true;
}

/* "0x" + hex digits: zero-padded to 4 lower-case digits (PCI ids), or
 * unpadded upper case (unique ids). */
static json_t *hexstr(bool pci_id, uint64_t v)
{
        char buf[32];
        if (pci_id)
                (void)snprintf(buf, sizeof(buf), "0x%04" PRIx64, v);
        else
                (void)snprintf(buf, sizeof(buf), "0x%" PRIX64, v);
        return json_string(buf);
}

/* Properties of n that differ from the template (and the overrides so far). */
static json_t *diff_props(struct ctk_fakefs_importer *im, const struct ctk_kfd_capture_node *n,
                          const struct ctk_kfd_capture_node *tmpl, json_t *ov, bool gpu)
{
        json_t *d = json_object();
        if (d == NULL) {
                im->oom = true;
                return NULL;
        }
        for (size_t i = 0; i < tmpl->props.n; i++)
                if (ctk_fakefs_props_get(&n->props, tmpl->props.v[i].key) == NULL) {
                        ctk_error_set(im->err, EINVAL,
                                      "%s/nodes/%d/properties lacks %s, which nodes/%d has; a profile cannot "
                                      "express that",
                                      CTK_CUT(im->dir), n->id, CTK_CUT(tmpl->props.v[i].key), tmpl->id);
                        json_decref(d);
                        return NULL;
                }
        for (size_t i = 0; i < n->props.n; i++) {
                const char *key = n->props.v[i].key, *v = n->props.v[i].value;
                if (gpu && ctk_fakefs_prop_is_identity(key))
                        continue;
                json_t *o = ov != NULL ? json_object_get(ov, key) : NULL;
                char buf[32];
                const char *b = ctk_fakefs_props_get(&tmpl->props, key);
                if (json_is_integer(o)) {
                        (void)snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(o));
                        b = buf;
                } else if (json_is_string(o)) {
                        b = json_string_value(o);
                }
                if (b == NULL || strcmp(b, v) != 0)
                        put(im, d, key, prop_value(v));
        }
        return d;
}

/* Appends the node object o to arr with d (from diff_props) as its
 * "kfd_properties", unless d is empty.  -1 (o dropped) if d is NULL. */
static int append_node(struct ctk_fakefs_importer *im, json_t *arr, json_t *o, json_t *d)
{
        if (d == NULL) {
                json_decref(o);
                return -1;
        }
        if (json_object_size(d) > 0)
                put(im, o, "kfd_properties", d);
        else
                json_decref(d);
        if (o == NULL || json_array_append_new(arr, o) < 0)
                im->oom = true;
        return 0;
}

static json_t *template_json(struct ctk_fakefs_importer *im, const struct ctk_kfd_capture_node *n, bool gpu)
{
        json_t *t = json_object();
        if (t == NULL) {
                im->oom = true;
                return NULL;
        }
        // NOLINTNEXTLINE(clang-analyzer-core.NullDereference): every template made has its node (import_group.c)
        for (size_t i = 0; i < n->props.n; i++) {
                const char *key = n->props.v[i].key;
                put(im, t, key,
                    gpu && ctk_fakefs_prop_is_identity(key) ? json_null() : prop_value(n->props.v[i].value));
        }
        return t;
}

static json_t *partitions_json(struct ctk_fakefs_importer *im, const struct ctk_fakefs_import_gpu *g, json_t *gpu_ov,
                               const struct ctk_fakefs_import_template *t)
{
        json_t *arr = json_array();
        const struct ctk_kfd_capture_node *p0 = g->parts[0];
        uint64_t render0 = ctk_fakefs_import_num(p0, "drm_render_minor");
        for (size_t k = 0; arr != NULL && k < g->n; k++) {
                const struct ctk_kfd_capture_node *n = g->parts[k];
                json_t *o = json_object();
                uint64_t render = ctk_fakefs_import_num(n, "drm_render_minor"),
                         loc = ctk_fakefs_import_num(n, "location_id"), uid;
                put(im, o, "kfd_node", json_integer(n->id));
                put(im, o, "render_minor", json_integer((json_int_t)render));
                if (render - 128 != render0 - 128 + k)
                        put(im, o, "card_minor", json_integer((json_int_t)(render - 128)));
                if (loc != ((uint64_t)g->bus << 8 | (uint64_t)g->dev << 3 | k))
                        put(im, o, "location_id", json_integer((json_int_t)loc));
                if (ctk_kfd_capture_u64(n, "unique_id", &uid) == 0 &&
                    ctk_fakefs_props_get(&p0->props, "unique_id") != NULL &&
                    uid != ctk_fakefs_import_num(p0, "unique_id"))
                        put(im, o, "unique_id", hexstr(false, uid));
                if (n->has_gpu_id)
                        put(im, o, "gpu_id", json_integer((json_int_t)n->gpu_id));
                ctk_fakefs_import_topo_node(im, n, o);
                if (append_node(im, arr, o, diff_props(im, n, t->node, gpu_ov, true)) < 0) {
                        json_decref(arr);
                        return NULL;
                }
        }
        if (arr == NULL)
                im->oom = true;
        return arr;
}

static json_t *gpu_json(struct ctk_fakefs_importer *im, const struct ctk_fakefs_import_gpu *g)
{
        const struct ctk_kfd_capture_node *p0 = g->parts[0];
        const struct ctk_fakefs_import_template *t = ctk_fakefs_import_template_of(im, p0);
        uint64_t gfx = ctk_fakefs_import_num(p0, "gfx_target_version"),
                 render0 = ctk_fakefs_import_num(p0, "drm_render_minor"), uid;
        bool mi300 = gfx >= 90400 && gfx < 100000;
        json_t *o = json_object();
        if (o == NULL) {
                im->oom = true;
                return NULL;
        }
        char pci[16];
        (void)snprintf(pci, sizeof(pci), "%04x:%02x:%02x.0", g->domain, g->bus, g->dev); /* domain <= 0xffff */
        put(im, o, "pci", json_string(pci));
        put(im, o, "vendor_id", hexstr(true, ctk_fakefs_import_num(p0, "vendor_id")));
        put(im, o, "device_id", hexstr(true, ctk_fakefs_import_num(p0, "device_id")));
        if (mi300)
                put(im, o, "class", json_string("0x120000"));
        if (ctk_kfd_capture_u64(p0, "unique_id", &uid) == 0)
                put(im, o, "unique_id", hexstr(false, uid));
        if (g->n == 1)
                put(im, o, "kfd_node", json_integer(p0->id));
        put(im, o, "card_minor", json_integer((json_int_t)(render0 - 128)));
        put(im, o, "render_minor", json_integer((json_int_t)render0));
        if (g->n == 1 && p0->has_gpu_id)
                put(im, o, "gpu_id", json_integer((json_int_t)p0->gpu_id));
        struct ctk_fakefs_gpu probe = {.device_id = (unsigned int)ctk_fakefs_import_num(p0, "device_id")};
        if (p0->name != NULL && strcmp(p0->name, ctk_fakefs_kfd_name(&probe)) != 0)
                put(im, o, "kfd_name", json_string(p0->name));
        put(im, o, "kfd_template", json_string(t->name));
        ctk_fakefs_import_topo_numa(im, p0, o);
        if (g->n == 1) {
                ctk_fakefs_import_topo_node(im, p0, o);
        } else { /* the sets of partitions a repartition makes */
                struct ctk_kfd_capture_node sets = {
                    .banks = p0->banks, .caches = p0->caches, .id = p0->id, .props = p0->props};
                ctk_fakefs_import_topo_node(im, &sets, o);
        }
        json_t *ov = diff_props(im, p0, t->node, NULL, true);
        if (ov == NULL) {
                json_decref(o);
                return NULL;
        }
        if (json_object_size(ov) > 0)
                put(im, o, "kfd_properties", json_incref(ov));
        if (mi300 || g->n > 1) {
                unsigned int xcds;
                const char *mode;
                ctk_fakefs_import_partition_mode(g->n, ctk_fakefs_import_num(p0, "num_xcc"), &xcds, &mode);
                json_t *pt = json_object();
                put(im, pt, "compute", json_string(mode));
                put(im, pt, "memory", json_string("NPS1"));
                put(im, pt, "xcds", json_integer(xcds));
                put(im, o, "partition", pt);
        }
        if (g->n > 1) {
                json_t *parts = partitions_json(im, g, ov, t);
                if (parts == NULL) {
                        json_decref(ov);
                        json_decref(o);
                        return NULL;
                }
                put(im, o, "partitions", parts);
        }
        json_decref(ov);
        return o;
}

static json_t *cpus_json(struct ctk_fakefs_importer *im, json_t *templates)
{
        json_t *arr = json_array();
        const struct ctk_kfd_capture_node *first = NULL;
        for (size_t i = 0; arr != NULL && i < im->cap.n; i++) {
                const struct ctk_kfd_capture_node *n = &im->cap.nodes[i];
                if (ctk_fakefs_import_is_gpu(n))
                        continue;
                if (first == NULL) {
                        first = n;
                        put(im, templates, "cpu", template_json(im, n, false));
                }
                json_t *o = json_object();
                put(im, o, "node", json_integer(n->id));
                put(im, o, "kfd_template", json_string("cpu"));
                ctk_fakefs_import_topo_node(im, n, o);
                if (append_node(im, arr, o, diff_props(im, n, first, NULL, false)) < 0) {
                        json_decref(arr);
                        return NULL;
                }
        }
        if (arr == NULL)
                im->oom = true;
        return arr;
}

static json_t *profile_json(struct ctk_fakefs_importer *im, const struct ctk_fakefs_import_opts *opts)
{
        _cleanup_free_ char *copy = strdup(im->dir);
        if (copy == NULL) {
                im->oom = true;
                return NULL;
        }
        size_t len = strlen(copy);
        while (len > 1 && copy[len - 1] == '/')
                copy[--len] = '\0';
        const char *base = basename(copy);
        _cleanup_free_ char *desc = NULL;
        if (opts->description == NULL && asprintf(&desc, "KFD topology capture %s", base) < 0) {
                im->oom = true;
                return NULL;
        }
        _cleanup_json_ json_t *root = json_object();
        json_t *templates = json_object(), *kfd = json_object(), *gpus = json_array();
        put(im, root, "name", json_string(opts->name != NULL ? opts->name : base));
        put(im, root, "description", json_string(opts->description != NULL ? opts->description : desc));
        if (im->cap.has_generation_id)
                put(im, kfd, "generation_id", json_integer((json_int_t)im->cap.generation_id));
        put(im, root, "kfd", kfd);
        put(im, root, "kfd_templates", templates);
        ctk_fakefs_import_topo_sets(im, root);
        json_t *cpus = cpus_json(im, templates);
        if (cpus == NULL) {
                json_decref(gpus);
                return NULL;
        }
        put(im, root, "cpu_nodes", cpus);
        /* GPU templates after the CPU one, in GPU order. */
        for (size_t i = 0; i < im->ngroups; i++) {
                json_t *g = gpu_json(im, &im->groups[i]);
                if (g == NULL) {
                        json_decref(gpus);
                        return NULL;
                }
                if (gpus == NULL || json_array_append_new(gpus, g) < 0)
                        im->oom = true;
        }
        for (size_t i = 0; i < im->ntmpls; i++)
                put(im, templates, im->tmpls[i].name, template_json(im, im->tmpls[i].node, true));
        put(im, root, "gpus", gpus);
        if (im->oom)
                return NULL;
        return ctk_steal(&root);
}

static int run(struct ctk_fakefs_importer *im, const struct ctk_fakefs_import_opts *opts, char **json_out)
{
        struct ctk_error **err = im->err;
        if (ctk_kfd_capture_read(im->dir, &im->cap, err) < 0)
                return -1;
        im->tmpls = calloc(im->cap.n + 1, sizeof(*im->tmpls));
        if (im->tmpls == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        if (ctk_fakefs_import_group(im) < 0 || ctk_fakefs_import_topo_prepare(im) < 0)
                return -1;
        _cleanup_json_ json_t *root = profile_json(im, opts);
        if (root == NULL)
                return *err != NULL ? -1 : ctk_error_set(err, ENOMEM, "out of memory");
        _cleanup_free_ char *text = json_dumps(root, JSON_INDENT(2) | JSON_ENSURE_ASCII);
        _cleanup_free_ char *with_nl = NULL;
        if (text == NULL || asprintf(&with_nl, "%s\n", text) < 0) {
                with_nl = NULL;
                return ctk_error_set(err, ENOMEM, "out of memory");
        }
        /* The result must load as a profile. */
        _cleanup_fakefs_profile_ struct ctk_fakefs_profile *check = NULL;
        if (ctk_fakefs_profile_parse(with_nl, im->dir, &check, err) < 0)
                return ctk_error_prefix(err, "the profile imported from %s does not load", CTK_CUT(im->dir));
        *json_out = ctk_steal(&with_nl);
        return 0;
}

int ctk_fakefs_import_kfd(const char *capture_dir, const struct ctk_fakefs_import_opts *opts, char **json_out,
                          struct ctk_error **err)
{
        struct ctk_fakefs_import_opts none = {0};
        struct ctk_fakefs_importer im = {.dir = capture_dir, .err = err};
        int rc = run(&im, opts != NULL ? opts : &none, json_out);
        ctk_fakefs_import_topo_clear(&im);
        ctk_kfd_capture_clear(&im.cap);
        free(im.groups);
        free(im.tmpls);
        return rc;
}
