/* Profile structs: freeing, partition-mode tables, PCI addresses. */
#include "backends/fakefs/profile.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void ctk_fakefs_props_clear(struct ctk_fakefs_props *p)
{
        for (size_t i = 0; i < p->n; i++) {
                free(p->v[i].key);
                free(p->v[i].value);
        }
        free(p->v);
        p->v = NULL;
        p->n = 0;
}

static void extra_clear(struct ctk_fakefs_node_extra *x)
{
        free(x->io.v);
        free(x->p2p.v);
}

static void dpm_clear(struct ctk_fakefs_dpm *d)
{
        free(d->mhz);
}

static void templates_free(struct ctk_fakefs_template *t, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                free(t[i].name);
                ctk_fakefs_props_clear(&t[i].props);
        }
        free(t);
}

static void sets_free(struct ctk_fakefs_set *s, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                free(s[i].name);
                for (size_t j = 0; j < s[i].n; j++)
                        ctk_fakefs_props_clear(&s[i].items[j]);
                free(s[i].items);
        }
        free(s);
}

static void gpu_clear(struct ctk_fakefs_gpu *g)
{
        extra_clear(&g->extra);
        free(g->attrs.product_name);
        free(g->attrs.product_number);
        free(g->attrs.serial_number);
        free(g->attrs.vbios_version);
        dpm_clear(&g->sensors.sclk);
        dpm_clear(&g->sensors.mclk);
        dpm_clear(&g->sensors.fclk);
        dpm_clear(&g->sensors.socclk);
        free(g->sensors.perf_level);
        free(g->pci);
        free(g->driver);
        free(g->kfd_name);
        ctk_fakefs_props_clear(&g->props);
        free(g->partition.compute);
        free(g->partition.memory);
        ctk_strv_clear(&g->partition.available_compute);
        ctk_strv_clear(&g->partition.available_memory);
        for (size_t i = 0; i < g->nparts; i++) {
                ctk_fakefs_props_clear(&g->parts[i].props);
                extra_clear(&g->parts[i].extra);
        }
        free(g->parts);
}

void ctk_fakefs_profile_free(struct ctk_fakefs_profile *p)
{
        if (p == NULL)
                return;
        for (size_t i = 0; i < p->ngpus; i++)
                gpu_clear(&p->gpus[i]);
        free(p->gpus);
        for (size_t i = 0; i < p->ncpus; i++) {
                ctk_fakefs_props_clear(&p->cpus[i].props);
                extra_clear(&p->cpus[i].extra);
        }
        free(p->cpus);
        templates_free(p->templates, p->ntemplates);
        templates_free(p->link_templates, p->nlink_templates);
        sets_free(p->bank_sets, p->nbank_sets);
        sets_free(p->cache_sets, p->ncache_sets);
        free(p->path);
        free(p->name);
        free(p->description);
        free(p->xcp_prefix);
        free(p);
}

const struct ctk_fakefs_gpu *ctk_fakefs_profile_find_gpu(const struct ctk_fakefs_profile *p, const char *pci,
                                                         size_t *index)
{
        unsigned int d, b, v, f;
        if (ctk_fakefs_parse_bdf(pci, &d, &b, &v, &f) < 0)
                return NULL;
        for (size_t i = 0; i < p->ngpus; i++) {
                const struct ctk_fakefs_gpu *g = &p->gpus[i];
                if (g->domain == d && g->bus == b && g->dev == v && g->fn == f) {
                        if (index != NULL)
                                *index = i;
                        return g;
                }
        }
        return NULL;
}

int ctk_fakefs_compute_partitions(const char *mode, unsigned int xcds)
{
        if (strcasecmp(mode, "SPX") == 0)
                return 1;
        if (strcasecmp(mode, "DPX") == 0)
                return 2;
        if (strcasecmp(mode, "TPX") == 0)
                return 3;
        if (strcasecmp(mode, "QPX") == 0)
                return 4;
        if (strcasecmp(mode, "CPX") == 0)
                return (int)xcds;
        return -1;
}

bool ctk_fakefs_memory_mode_known(const char *mode)
{
        static const char *const known[] = {"NPS1", "NPS2", "NPS4", "NPS8"};
        for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
                if (strcasecmp(mode, known[i]) == 0)
                        return true;
        return false;
}

int ctk_fakefs_default_compute_modes(unsigned int xcds, struct ctk_strv *out)
{
        if (ctk_strv_push(out, "SPX") < 0)
                return -1;
        if (xcds >= 2 && xcds % 2 == 0 && xcds != 2 && ctk_strv_push(out, "DPX") < 0)
                return -1;
        if (xcds >= 8 && xcds % 4 == 0 && ctk_strv_push(out, "QPX") < 0)
                return -1;
        if (xcds >= 2 && ctk_strv_push(out, "CPX") < 0)
                return -1;
        return 0;
}

static int parse_hex(const char **s, size_t ndigits_max, unsigned int *out)
{
        unsigned int v = 0;
        size_t n = 0;
        while (isxdigit((unsigned char)**s) && n < ndigits_max) {
                int c = tolower((unsigned char)**s);
                v = v * 16 + (unsigned int)(c <= '9' ? c - '0' : c - 'a' + 10);
                (*s)++;
                n++;
        }
        if (n == 0)
                return -1;
        *out = v;
        return 0;
}

int ctk_fakefs_parse_bdf(const char *s, unsigned int *domain, unsigned int *bus, unsigned int *dev, unsigned int *fn)
{
        /* Either dddd:bb:dd.f or bb:dd.f; count the colons to tell. */
        const char *c1 = strchr(s, ':');
        bool has_domain = c1 != NULL && strchr(c1 + 1, ':') != NULL;
        const char *p = s;
        *domain = 0;
        if (has_domain && (parse_hex(&p, 4, domain) < 0 || *p++ != ':'))
                return -1;
        if (parse_hex(&p, 2, bus) < 0 || *p++ != ':' || parse_hex(&p, 2, dev) < 0 || *p++ != '.' ||
            parse_hex(&p, 1, fn) < 0 || *p != '\0')
                return -1;
        if (*dev > 0x1f || *fn > 7)
                return -1;
        return 0;
}

bool ctk_fakefs_prop_is_identity(const char *key)
{
        static const char *const keys[] = {"vendor_id", "device_id",        "location_id",
                                           "domain",    "drm_render_minor", "unique_id"};
        for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
                if (strcmp(key, keys[i]) == 0)
                        return true;
        return false;
}

int ctk_fakefs_parse_node_list(const char *s, int **out, size_t *n)
{
        *out = NULL;
        *n = 0;
        size_t cap = 0;
        const char *p = s;
        while (*p != '\0') {
                char *end;
                if (*p < '0' || *p > '9')
                        goto bad;
                unsigned long a = strtoul(p, &end, 10), b = a;
                p = end;
                if (*p == '-') {
                        if (p[1] < '0' || p[1] > '9')
                                goto bad;
                        b = strtoul(p + 1, &end, 10);
                        p = end;
                }
                if (a > CTK_FAKEFS_MAX_KFD_NODE || b > CTK_FAKEFS_MAX_KFD_NODE || b < a || (*p != ',' && *p != '\0'))
                        goto bad;
                if (*p == ',' && *++p == '\0')
                        goto bad;
                for (unsigned long v = a; v <= b; v++) {
                        if (*n == cap) {
                                cap = cap ? 2 * cap : 16;
                                int *nv = realloc(*out, cap * sizeof(*nv));
                                if (nv == NULL)
                                        goto bad;
                                *out = nv;
                        }
                        (*out)[(*n)++] = (int)v;
                }
        }
        return 0;
bad:
        free(*out);
        *out = NULL;
        *n = 0;
        return -1;
}
