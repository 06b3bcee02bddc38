#include "backends/fakefs/build_sysfs.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/base.h"

struct sb {
        struct ctk_fakefs_tree *t;
        const char *dir;
        struct ctk_error **err;
};

static int attr(struct sb *b, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int attr(struct sb *b, const char *name, const char *fmt, ...)
{
        _cleanup_free_ char *path = NULL, *text = NULL;
        va_list ap;
        va_start(ap, fmt);
        int n = vasprintf(&text, fmt, ap);
        va_end(ap);
        if (n < 0 || asprintf(&path, "%s/%s", b->dir, name) < 0) {
                text = NULL;
                path = NULL;
                return ctk_error_set(b->err, ENOMEM, "out of memory");
        }
        return ctk_fakefs_tree_add_file(b->t, path, text, (size_t)n, 0444, NULL, b->err);
}

/* "0: 500Mhz\n1: 800Mhz *\n", as pp_dpm_* reads. */
static int dpm(struct sb *b, const char *name, const struct ctk_fakefs_dpm *d)
{
        if (d->n == 0)
                return 0;
        char text[16 * 24] = "";
        size_t len = 0;
        for (size_t i = 0; i < d->n; i++)
                len += (size_t)snprintf(text + len, sizeof(text) - len, "%zu: %uMhz%s\n", i, d->mhz[i],
                                        i == d->current ? " *" : "");
        return attr(b, name, "%s", text);
}

static int hwmon(struct sb *b, const struct ctk_fakefs_sensors *s, unsigned int n)
{
        _cleanup_free_ char *dir = NULL, *cls = NULL, *target = NULL;
        if (asprintf(&dir, "%s/hwmon/hwmon%u", b->dir, n) < 0 || asprintf(&cls, "/sys/class/hwmon/hwmon%u", n) < 0 ||
            asprintf(&target, "../../%s/hwmon/hwmon%u", b->dir + strlen("/sys/"), n) < 0)
                return ctk_error_set(b->err, ENOMEM, "out of memory");
        if (ctk_fakefs_tree_add_link(b->t, cls, target, b->err) < 0)
                return -1;
        struct sb h = {b->t, dir, b->err};
        if (attr(&h, "name", "amdgpu\n") < 0)
                return -1;
        const struct {
                bool has;
                int64_t v;
                const char *label;
        } temps[] = {{s->has_temp_edge, s->temp_edge, "edge"},
                     {s->has_temp_junction, s->temp_junction, "junction"},
                     {s->has_temp_mem, s->temp_mem, "mem"}};
        for (int i = 0; i < 3; i++) {
                char in[16], label[16];
                (void)snprintf(in, sizeof(in), "temp%d_input", i + 1);
                (void)snprintf(label, sizeof(label), "temp%d_label", i + 1);
                if (temps[i].has &&
                    (attr(&h, in, "%" PRId64 "\n", temps[i].v) < 0 || attr(&h, label, "%s\n", temps[i].label) < 0))
                        return -1;
        }
        if (s->has_power_average && attr(&h, "power1_average", "%" PRIu64 "\n", s->power_average) < 0)
                return -1;
        if (s->has_power_cap && (attr(&h, "power1_cap", "%" PRIu64 "\n", s->power_cap) < 0 ||
                                 attr(&h, "power1_cap_max", "%" PRIu64 "\n", s->power_cap_max) < 0 ||
                                 attr(&h, "power1_cap_min", "0\n") < 0 ||
                                 attr(&h, "power1_cap_default", "%" PRIu64 "\n", s->power_cap) < 0))
                return -1;
        if (s->has_fan && (attr(&h, "pwm1", "%u\n", s->fan_pwm) < 0 || attr(&h, "pwm1_max", "255\n") < 0 ||
                           attr(&h, "pwm1_min", "0\n") < 0 || attr(&h, "pwm1_enable", "2\n") < 0))
                return -1;
        return 0;
}

static int amdgpu_attrs(struct sb *b, const struct ctk_fakefs_gpu *g, unsigned int *n)
{
        const struct ctk_fakefs_pci_attrs *a = &g->attrs;
        const struct ctk_fakefs_sensors *s = &g->sensors;
        if (g->has_unique_id && attr(b, "unique_id", "%016" PRIx64 "\n", g->unique_id) < 0)
                return -1;
        const struct {
                const char *name, *value;
        } text[] = {{"product_name", a->product_name},
                    {"product_number", a->product_number},
                    {"serial_number", a->serial_number},
                    {"vbios_version", a->vbios_version},
                    {"power_dpm_force_performance_level", s->perf_level}};
        for (size_t i = 0; i < sizeof(text) / sizeof(text[0]); i++)
                if (text[i].value != NULL && attr(b, text[i].name, "%s\n", text[i].value) < 0)
                        return -1;
        if (s->has_vram && (attr(b, "mem_info_vram_total", "%" PRIu64 "\n", s->vram_total) < 0 ||
                            attr(b, "mem_info_vram_used", "%" PRIu64 "\n", s->vram_used) < 0 ||
                            attr(b, "mem_info_vis_vram_total", "%" PRIu64 "\n", s->vis_vram_total) < 0 ||
                            attr(b, "mem_info_vis_vram_used", "%" PRIu64 "\n",
                                 s->vram_used < s->vis_vram_total ? s->vram_used : s->vis_vram_total) < 0))
                return -1;
        if (s->gtt_total > 0 && (attr(b, "mem_info_gtt_total", "%" PRIu64 "\n", s->gtt_total) < 0 ||
                                 attr(b, "mem_info_gtt_used", "%" PRIu64 "\n", s->gtt_used) < 0))
                return -1;
        if ((s->has_busy && attr(b, "gpu_busy_percent", "%u\n", s->busy_percent) < 0) ||
            (s->has_mem_busy && attr(b, "mem_busy_percent", "%u\n", s->mem_busy_percent) < 0))
                return -1;
        if (dpm(b, "pp_dpm_sclk", &s->sclk) < 0 || dpm(b, "pp_dpm_mclk", &s->mclk) < 0 ||
            dpm(b, "pp_dpm_fclk", &s->fclk) < 0 || dpm(b, "pp_dpm_socclk", &s->socclk) < 0)
                return -1;
        bool any = s->has_temp_edge || s->has_temp_junction || s->has_temp_mem || s->has_power_average ||
                   s->has_power_cap || s->has_fan;
        if (!any)
                return 0;
        return hwmon(b, s, (*n)++);
}

int ctk_fakefs_build_gpu_sysfs(const struct ctk_fakefs_profile *p, const struct ctk_fakefs_plan_gpu *pg,
                               const char *dir, unsigned int *hwmon_n, struct ctk_fakefs_tree *t,
                               struct ctk_error **err)
{
        const struct ctk_fakefs_gpu *g = pg->gpu;
        struct sb b = {t, dir, err};
        int numa = g->numa_node;
        for (size_t i = 0; numa < 0 && i < p->ncpus; i++)
                if (i == 0 || p->cpus[i].kfd_node < numa)
                        numa = p->cpus[i].kfd_node;
        if (attr(&b, "subsystem_vendor", "0x%04x\n", g->attrs.subsystem_vendor) < 0 ||
            attr(&b, "subsystem_device", "0x%04x\n", g->attrs.subsystem_device) < 0 ||
            attr(&b, "revision", "0x%02x\n", g->attrs.revision) < 0 || attr(&b, "numa_node", "%d\n", numa) < 0)
                return -1;
        if (!pg->kfd)
                return 0;
        return amdgpu_attrs(&b, g, hwmon_n);
}
