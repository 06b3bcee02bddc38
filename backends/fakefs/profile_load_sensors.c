/* Profile JSON -> a GPU's PCI attributes (revision, subsystem ids, product
 * and VBIOS strings) and its "sensors": hwmon temperatures, power and fan,
 * DPM clock tables, performance level, memory and busy counters. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/fakefs/profile_load.h"
#include "core/base/base.h"
#include "core/json/json.h"

/* obj[key] as a number in [0, max] (or [-max, max] when negative_ok),
 * times scale, rounded; *present says whether it was given. */
static int load_real(struct ctk_pj *c, json_t *obj, const char *where, const char *key, double max, bool negative_ok,
                     double scale, const char *unit, int64_t *out, bool *present)
{
        json_t *v = json_object_get(obj, key);
        *present = v != NULL;
        if (v == NULL)
                return 0;
        AT(w, where, key);
        if (!json_is_number(v))
                return ctk_pj_fail(c, w, "expected a number (%s)", unit);
        double d = json_number_value(v);
        if (!isfinite(d) || d > max || d < (negative_ok ? -max : 0))
                return ctk_pj_fail(c, w, "%g is out of range (%s, %s%g to %g)", d, unit, negative_ok ? "-" : "",
                                   negative_ok ? max : 0, max);
        d *= scale;
        *out = (int64_t)(d < 0 ? d - 0.5 : d + 0.5);
        return 0;
}

static int load_group(struct ctk_pj *c, json_t *obj, const char *where, const char *key, const char *const *keys,
                      json_t **out)
{
        *out = json_object_get(obj, key);
        if (*out == NULL)
                return 0;
        AT(w, where, key);
        return ctk_pj_object(c, *out, w) < 0 || ctk_pj_check_keys(c, *out, w, keys) < 0 ? -1 : 0;
}

static int load_temps(struct ctk_pj *c, json_t *s, const char *where, struct ctk_fakefs_sensors *out)
{
        static const char *const keys[] = {"edge", "junction", "memory", NULL};
        json_t *o;
        if (load_group(c, s, where, "temperature", keys, &o) < 0)
                return -1;
        if (o == NULL)
                return 0;
        AT(w, where, "temperature");
        const char *unit = "degrees Celsius";
        return load_real(c, o, w, "edge", 500, true, 1000, unit, &out->temp_edge, &out->has_temp_edge) < 0 ||
                       load_real(c, o, w, "junction", 500, true, 1000, unit, &out->temp_junction,
                                 &out->has_temp_junction) < 0 ||
                       load_real(c, o, w, "memory", 500, true, 1000, unit, &out->temp_mem, &out->has_temp_mem) < 0
                   ? -1
                   : 0;
}

static int load_power(struct ctk_pj *c, json_t *s, const char *where, struct ctk_fakefs_sensors *out)
{
        static const char *const keys[] = {"average", "cap", "cap_max", NULL};
        json_t *o;
        if (load_group(c, s, where, "power", keys, &o) < 0)
                return -1;
        if (o == NULL)
                return 0;
        AT(w, where, "power");
        int64_t avg = 0, cap = 0, max = 0;
        bool has_max;
        if (load_real(c, o, w, "average", 1e6, false, 1e6, "watts", &avg, &out->has_power_average) < 0 ||
            load_real(c, o, w, "cap", 1e6, false, 1e6, "watts", &cap, &out->has_power_cap) < 0 ||
            load_real(c, o, w, "cap_max", 1e6, false, 1e6, "watts", &max, &has_max) < 0)
                return -1;
        out->power_average = (uint64_t)avg;
        out->power_cap = (uint64_t)cap;
        out->power_cap_max = has_max ? (uint64_t)max : (uint64_t)cap;
        return 0;
}

static int load_dpm(struct ctk_pj *c, json_t *s, const char *where, const char *key, struct ctk_fakefs_dpm *out)
{
        static const char *const keys[] = {"mhz", "current", NULL};
        json_t *o;
        if (load_group(c, s, where, key, keys, &o) < 0)
                return -1;
        if (o == NULL)
                return 0;
        AT(w, where, key);
        AT(mw, w, "mhz");
        json_t *arr = json_object_get(o, "mhz");
        if (!json_is_array(arr) || json_array_size(arr) == 0 || json_array_size(arr) > 16)
                return ctk_pj_fail(c, mw, "expected 1 to 16 clock levels in MHz, ascending");
        if ((out->mhz = calloc(json_array_size(arr), sizeof(*out->mhz))) == NULL)
                return ctk_pj_oom(c);
        size_t i;
        json_t *v;
        json_array_foreach(arr, i, v)
        {
                if (!json_is_integer(v) || json_integer_value(v) <= 0 || json_integer_value(v) > 100000 ||
                    (i > 0 && (unsigned int)json_integer_value(v) <= out->mhz[i - 1]))
                        return ctk_pj_fail(c, mw, "expected 1 to 16 clock levels in MHz, ascending");
                out->mhz[out->n++] = (unsigned int)json_integer_value(v);
        }
        uint64_t cur = 0;
        if (ctk_pj_uint(c, o, w, "current", true, out->n - 1, &cur, NULL) < 0)
                return -1;
        out->current = (size_t)cur;
        return 0;
}

static int load_memory(struct ctk_pj *c, json_t *s, const char *where, const char *key, uint64_t *total, uint64_t *used,
                       uint64_t *visible, bool *present)
{
        static const char *const keys[] = {"total", "used", "visible", NULL};
        static const char *const gtt_keys[] = {"total", "used", NULL};
        json_t *o;
        if (load_group(c, s, where, key, visible != NULL ? keys : gtt_keys, &o) < 0)
                return -1;
        if (present != NULL)
                *present = o != NULL;
        if (o == NULL)
                return 0;
        AT(w, where, key);
        bool has_vis = false;
        if (ctk_pj_uint(c, o, w, "total", true, INT64_MAX, total, NULL) < 0 ||
            ctk_pj_uint(c, o, w, "used", true, *total, used, NULL) < 0 ||
            (visible != NULL && ctk_pj_uint(c, o, w, "visible", false, *total, visible, &has_vis) < 0))
                return -1;
        if (visible != NULL && !has_vis)
                *visible = *total;
        return 0;
}

static const char *const perf_levels[] = {"auto",
                                          "low",
                                          "high",
                                          "manual",
                                          "profile_standard",
                                          "profile_min_sclk",
                                          "profile_min_mclk",
                                          "profile_peak",
                                          "perf_determinism",
                                          NULL};

static int load_sensor_obj(struct ctk_pj *c, json_t *s, const char *w, struct ctk_fakefs_sensors *out)
{
        static const char *const keys[] = {"temperature", "power", "fan",          "sclk",
                                           "mclk",        "fclk",  "socclk",       "performance_level",
                                           "vram",        "gtt",   "busy_percent", "memory_busy_percent",
                                           NULL};
        if (ctk_pj_object(c, s, w) < 0 || ctk_pj_check_keys(c, s, w, keys) < 0 || load_temps(c, s, w, out) < 0 ||
            load_power(c, s, w, out) < 0 || load_dpm(c, s, w, "sclk", &out->sclk) < 0 ||
            load_dpm(c, s, w, "mclk", &out->mclk) < 0 || load_dpm(c, s, w, "fclk", &out->fclk) < 0 ||
            load_dpm(c, s, w, "socclk", &out->socclk) < 0 ||
            load_memory(c, s, w, "vram", &out->vram_total, &out->vram_used, &out->vis_vram_total, &out->has_vram) < 0 ||
            load_memory(c, s, w, "gtt", &out->gtt_total, &out->gtt_used, NULL, NULL) < 0)
                return -1;
        int64_t fan = 0, busy = 0, mbusy = 0;
        if (load_real(c, s, w, "fan", 100, false, 255.0 / 100.0, "percent", &fan, &out->has_fan) < 0 ||
            load_real(c, s, w, "busy_percent", 100, false, 1, "percent", &busy, &out->has_busy) < 0 ||
            load_real(c, s, w, "memory_busy_percent", 100, false, 1, "percent", &mbusy, &out->has_mem_busy) < 0)
                return -1;
        out->fan_pwm = (unsigned int)fan;
        out->busy_percent = (unsigned int)busy;
        out->mem_busy_percent = (unsigned int)mbusy;
        const char *perf = NULL;
        if (ctk_pj_string(c, s, w, "performance_level", false, &perf) < 0)
                return -1;
        if (perf == NULL)
                return 0;
        for (size_t i = 0; perf_levels[i] != NULL; i++)
                if (strcmp(perf, perf_levels[i]) == 0)
                        return ctk_pj_dup_str(c, perf, &out->perf_level);
        AT(pw, w, "performance_level");
        return ctk_pj_fail(c, pw,
                           "\"%s\" is not a level amdgpu has (auto, low, high, manual, profile_*, "
                           "perf_determinism)",
                           perf);
}

static int load_text(struct ctk_pj *c, json_t *obj, const char *where, const char *key, char **out)
{
        const char *s = NULL;
        if (ctk_pj_string(c, obj, where, key, false, &s) < 0)
                return -1;
        if (s != NULL && (strchr(s, '\n') != NULL || strlen(s) > 200)) {
                AT(w, where, key);
                return ctk_pj_fail(c, w, "expected one line of at most 200 characters");
        }
        return ctk_pj_dup_str(c, s, out);
}

int ctk_pj_load_sensors(struct ctk_pj *c, json_t *obj, const char *where, struct ctk_fakefs_gpu *g)
{
        uint64_t sv = g->vendor_id, sd = 0, rev = 0;
        if (ctk_pj_hex(c, obj, where, "subsystem_vendor", 0xffff, &sv, NULL) < 0 ||
            ctk_pj_hex(c, obj, where, "subsystem_device", 0xffff, &sd, NULL) < 0 ||
            ctk_pj_hex(c, obj, where, "revision", 0xff, &rev, NULL) < 0 ||
            load_text(c, obj, where, "product_name", &g->attrs.product_name) < 0 ||
            load_text(c, obj, where, "product_number", &g->attrs.product_number) < 0 ||
            load_text(c, obj, where, "serial_number", &g->attrs.serial_number) < 0 ||
            load_text(c, obj, where, "vbios_version", &g->attrs.vbios_version) < 0)
                return -1;
        g->attrs.subsystem_vendor = (unsigned int)sv;
        g->attrs.subsystem_device = (unsigned int)sd;
        g->attrs.revision = (unsigned int)rev;
        json_t *s = json_object_get(obj, "sensors");
        if (s == NULL)
                return 0;
        AT(w, where, "sensors");
        return load_sensor_obj(c, s, w, &g->sensors);
}
