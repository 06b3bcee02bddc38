#include "backends/fakefs/kfd_props.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/base.h"

/* Key order and typical values of a discrete Instinct GPU node; the NULL
 * values are computed from the device. */
static const char *const gpu_template[][2] = {
    {"cpu_cores_count", "0"},
    {"simd_count", "416"},
    {"mem_banks_count", "1"},
    {"caches_count", "0"},
    {"io_links_count", "1"},
    {"p2p_links_count", "0"},
    {"cpu_core_id_base", "0"},
    {"simd_id_base", "2147487744"},
    {"max_waves_per_simd", "8"},
    {"lds_size_in_kb", "64"},
    {"gds_size_in_kb", "0"},
    {"num_gws", "64"},
    {"wave_front_size", "64"},
    {"array_count", "8"},
    {"simd_arrays_per_engine", "1"},
    {"cu_per_simd_array", "13"},
    {"simd_per_cu", "4"},
    {"max_slots_scratch_cu", "32"},
    {"gfx_target_version", "90010"},
    {"vendor_id", NULL},
    {"device_id", NULL},
    {"location_id", NULL},
    {"domain", NULL},
    {"drm_render_minor", NULL},
    {"hive_id", "0"},
    {"num_sdma_engines", "2"},
    {"num_sdma_xgmi_engines", "6"},
    {"num_sdma_queues_per_engine", "8"},
    {"num_cp_queues", "24"},
    {"max_engine_clk_fcompute", "1700"},
    {"local_mem_size", "0"},
    {"fw_version", "78"},
    {"capability", "746685056"},
    {"debug_prop", "1495"},
    {"sdma_fw_version", "8"},
    {"unique_id", NULL},
    {"num_xcc", "1"},
    {"max_engine_clk_ccompute", "2000"},
};

static const char *const cpu_template[][2] = {
    {"cpu_cores_count", "64"},
    {"simd_count", "0"},
    {"mem_banks_count", "1"},
    {"caches_count", "0"},
    {"io_links_count", "1"},
    {"p2p_links_count", "0"},
    {"cpu_core_id_base", "0"},
    {"simd_id_base", "0"},
    {"max_waves_per_simd", "0"},
    {"lds_size_in_kb", "0"},
    {"gds_size_in_kb", "0"},
    {"num_gws", "0"},
    {"wave_front_size", "0"},
    {"array_count", "0"},
    {"simd_arrays_per_engine", "0"},
    {"cu_per_simd_array", "0"},
    {"simd_per_cu", "0"},
    {"max_slots_scratch_cu", "0"},
    {"gfx_target_version", "0"},
    {"vendor_id", "0"},
    {"device_id", "0"},
    {"location_id", "0"},
    {"domain", "0"},
    {"drm_render_minor", "0"},
    {"hive_id", "0"},
    {"num_sdma_engines", "0"},
    {"num_sdma_xgmi_engines", "0"},
    {"num_sdma_queues_per_engine", "0"},
    {"num_cp_queues", "0"},
    {"max_engine_clk_ccompute", "2000"},
};

int ctk_fakefs_builtin_template(bool gpu, struct ctk_fakefs_props *out)
{
        const char *const(*t)[2] = gpu ? gpu_template : cpu_template;
        size_t n =
            gpu ? sizeof(gpu_template) / sizeof(gpu_template[0]) : sizeof(cpu_template) / sizeof(cpu_template[0]);
        out->v = calloc(n, sizeof(*out->v));
        if (out->v == NULL)
                return -1;
        out->n = n;
        for (size_t i = 0; i < n; i++) {
                out->v[i].key = strdup(t[i][0]);
                out->v[i].value = t[i][1] != NULL ? strdup(t[i][1]) : NULL;
                if (out->v[i].key == NULL || (t[i][1] != NULL && out->v[i].value == NULL)) {
                        ctk_fakefs_props_clear(out);
                        return -1;
                }
        }
        return 0;
}

const char *ctk_fakefs_props_get(const struct ctk_fakefs_props *p, const char *key)
{
        if (p == NULL)
                return NULL;
        for (size_t i = p->n; i-- > 0;)
                if (strcmp(p->v[i].key, key) == 0)
                        return p->v[i].value;
        return NULL;
}

static bool props_has(const struct ctk_fakefs_props *p, const char *key)
{
        if (p == NULL)
                return false;
        for (size_t i = 0; i < p->n; i++)
                if (strcmp(p->v[i].key, key) == 0)
                        return true;
        return false;
}

/* Writes the computed value of an identity key; false if the line is left out. */
static bool put_identity(FILE *f, const char *key, const struct ctk_fakefs_identity *id)
{
        if (strcmp(key, "vendor_id") == 0)
                fprintf(f, "%s %u\n", key, id->vendor_id);
        else if (strcmp(key, "device_id") == 0)
                fprintf(f, "%s %u\n", key, id->device_id);
        else if (strcmp(key, "location_id") == 0)
                fprintf(f, "%s %" PRIu32 "\n", key, id->location_id);
        else if (strcmp(key, "domain") == 0)
                fprintf(f, "%s %u\n", key, id->domain);
        else if (strcmp(key, "drm_render_minor") == 0)
                fprintf(f, "%s %d\n", key, id->render_minor);
        else if (strcmp(key, "unique_id") == 0 && id->has_unique_id)
                fprintf(f, "%s %" PRIu64 "\n", key, id->unique_id);
        else
                return false;
        return true;
}

static const char *override_of(const struct ctk_fakefs_props *const ov[3], const char *key)
{
        for (int i = 2; i >= 0; i--) {
                const char *v = ctk_fakefs_props_get(ov[i], key);
                if (v != NULL)
                        return v;
        }
        return NULL;
}

int ctk_fakefs_props_render(const struct ctk_fakefs_props *tmpl, const struct ctk_fakefs_props *ov1,
                            const struct ctk_fakefs_props *ov2, const struct ctk_fakefs_props *ov3,
                            const struct ctk_fakefs_identity *id, char **out, size_t *len, struct ctk_error **err)
{
        const struct ctk_fakefs_props *ov[3] = {ov1, ov2, ov3};
        _cleanup_free_ char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);
        if (f == NULL)
                return ctk_error_errno(err, errno, "rendering KFD properties");
        for (size_t i = 0; i < tmpl->n; i++) {
                const char *key = tmpl->v[i].key;
                if (id != NULL && ctk_fakefs_prop_is_identity(key)) {
                        put_identity(f, key, id);
                        continue;
                }
                const char *v = override_of(ov, key);
                if (v == NULL)
                        v = tmpl->v[i].value;
                if (v != NULL)
                        fprintf(f, "%s %s\n", key, v);
        }
        for (int o = 0; o < 3; o++) {
                if (ov[o] == NULL)
                        continue;
                for (size_t i = 0; i < ov[o]->n; i++) {
                        const char *key = ov[o]->v[i].key;
                        bool seen = props_has(tmpl, key);
                        for (int p = 0; p < o && !seen; p++)
                                seen = props_has(ov[p], key);
                        for (size_t j = 0; j < i && !seen; j++)
                                seen = strcmp(ov[o]->v[j].key, key) == 0;
                        if (seen || (id != NULL && ctk_fakefs_prop_is_identity(key)))
                                continue;
                        fprintf(f, "%s %s\n", key, override_of(ov, key));
                }
        }
        if (id != NULL) {
                static const char *const keys[] = {"vendor_id", "device_id",        "location_id",
                                                   "domain",    "drm_render_minor", "unique_id"};
                for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
                        if (!props_has(tmpl, keys[i]))
                                put_identity(f, keys[i], id);
        }
        if (fclose(f) != 0)
                return ctk_error_set(err, ENOMEM, "out of memory");
        *len = size;
        *out = ctk_steal(&buf);
        return 0;
}
