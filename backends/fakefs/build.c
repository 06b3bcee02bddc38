#include "backends/fakefs/build.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/fakefs/build_kfd.h"
#include "backends/fakefs/build_sysfs.h"
#include "core/base/base.h"

struct builder {
        const struct ctk_fakefs_profile *p;
        struct ctk_fakefs_tree *t;
        struct ctk_error **err;
        unsigned int hwmon; /* the next hwmon<N> */
};

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
        char *s = NULL;
        va_list ap;
        va_start(ap, f);
        if (vasprintf(&s, f, ap) < 0)
                s = NULL;
        va_end(ap);
        return s;
}

static int oom(struct builder *b)
{
        return ctk_error_set(b->err, ENOMEM, "out of memory");
}

const char *ctk_fakefs_kfd_name(const struct ctk_fakefs_gpu *g)
{
        if (g->kfd_name != NULL)
                return g->kfd_name;
        switch (g->device_id) {
        case 0x738c:
        case 0x738e:
                return "arcturus";
        case 0x7408:
        case 0x740c:
        case 0x740f:
        case 0x7410:
                return "aldebaran";
        default:
                return "ip discovery";
        }
}

static int link_to(struct builder *b, const char *path, const char *target)
{
        if (path == NULL || target == NULL)
                return oom(b);
        return ctk_fakefs_tree_add_link(b->t, path, target, b->err);
}

static int add_drivers(struct builder *b)
{
        const struct ctk_fakefs_profile *p = b->p;
        for (size_t i = 0; i < p->ngpus + 1; i++) {
                const char *d = i < p->ngpus ? p->gpus[i].driver : (p->amdgpu_loaded ? "amdgpu" : NULL);
                if (d == NULL || (strcmp(d, "amdgpu") == 0 && !p->amdgpu_loaded))
                        continue;
                _cleanup_free_ char *dir = fmt("/sys/bus/pci/drivers/%s", d);
                _cleanup_free_ char *mod = fmt("/sys/module/%s/drivers/pci:%s", d, d);
                _cleanup_free_ char *target = fmt("../../../bus/pci/drivers/%s", d);
                const struct ctk_fakefs_node *n;
                if (dir == NULL || mod == NULL)
                        return oom(b);
                if (ctk_fakefs_tree_lookup(b->t, mod, false, &n) == 0)
                        continue;
                if (ctk_fakefs_tree_mkdir(b->t, dir, b->err) < 0 || link_to(b, mod, target) < 0)
                        return -1;
        }
        /* what amd-smi looks for before it believes the driver is loaded */
        if (p->amdgpu_loaded && ctk_fakefs_tree_add_filef(b->t, "/sys/module/amdgpu/initstate", b->err, "live\n") < 0)
                return -1;
        return 0;
}

/* DRM node `name` ("card3") of the device directory `devdir`. */
static int add_drm_node(struct builder *b, const char *devdir, const char *name, unsigned int minor,
                        const struct ctk_fakefs_node_attr *a)
{
        _cleanup_free_ char *dev = fmt("%s/drm/%s/dev", devdir, name);
        _cleanup_free_ char *cls = fmt("/sys/class/drm/%s", name);
        _cleanup_free_ char *target = fmt("../..%s/drm/%s", devdir + strlen("/sys"), name);
        _cleanup_free_ char *node = fmt("/dev/dri/%s", name);
        _cleanup_free_ char *devl = fmt("%s/drm/%s/device", devdir, name);
        _cleanup_free_ char *devt = fmt("../../../%s", strrchr(devdir, '/') + 1);
        if (dev == NULL || node == NULL)
                return oom(b);
        /* device: the PCI function, or the partition's platform device */
        if (ctk_fakefs_tree_add_filef(b->t, dev, b->err, "%u:%u\n", b->p->dri_major, minor) < 0 ||
            link_to(b, cls, target) < 0 || link_to(b, devl, devt) < 0)
                return -1;
        return ctk_fakefs_tree_add_chr(b->t, node, b->p->dri_major, minor, a->mode, a->uid, a->gid, b->err);
}

/* card<N> and renderD<M> of one PCI function or partition; by-path links
 * for PCI functions only. */
static int add_drm(struct builder *b, const struct ctk_fakefs_gpu *g, const char *devdir, int card, int render,
                   bool pci)
{
        _cleanup_free_ char *cname = fmt("card%d", card);
        _cleanup_free_ char *rname = fmt("renderD%d", render);
        if (cname == NULL || rname == NULL)
                return oom(b);
        if (card >= 0 && add_drm_node(b, devdir, cname, (unsigned int)card, &g->card_attr) < 0)
                return -1;
        if (render >= 0 && add_drm_node(b, devdir, rname, (unsigned int)render, &g->render_attr) < 0)
                return -1;
        if (!pci)
                return 0;
        _cleanup_free_ char *cl = fmt("/dev/dri/by-path/pci-%s-card", g->pci);
        _cleanup_free_ char *ct = fmt("../%s", cname);
        _cleanup_free_ char *rl = fmt("/dev/dri/by-path/pci-%s-render", g->pci);
        _cleanup_free_ char *rt = fmt("../%s", rname);
        if (card >= 0 && link_to(b, cl, ct) < 0)
                return -1;
        if (render >= 0 && link_to(b, rl, rt) < 0)
                return -1;
        return 0;
}

/* "SPX, DPX, QPX, CPX\n", as available_*_partition reads. */
static char *mode_list(const struct ctk_strv *modes)
{
        _cleanup_free_ char *list = ctk_strv_join(modes, ", ");
        return list != NULL ? fmt("%s\n", list) : NULL;
}

static int add_partition_files(struct builder *b, const struct ctk_fakefs_plan_gpu *pg, const char *devdir)
{
        const struct ctk_fakefs_partitioning *pt = &pg->gpu->partition;
        static const char *const what[] = {"compute", "memory"};
        for (int i = 0; i < 2; i++) {
                _cleanup_free_ char *cur = fmt("%s/current_%s_partition", devdir, what[i]);
                _cleanup_free_ char *avail = fmt("%s/available_%s_partition", devdir, what[i]);
                _cleanup_free_ char *value = fmt("%s\n", i == 0 ? pg->compute : pg->memory);
                _cleanup_free_ char *list = mode_list(i == 0 ? &pt->available_compute : &pt->available_memory);
                struct ctk_fakefs_node *n;
                if (cur == NULL || avail == NULL || value == NULL || list == NULL)
                        return oom(b);
                if (ctk_fakefs_tree_add_file(b->t, cur, value, strlen(value), 0644, &n, b->err) < 0 ||
                    ctk_fakefs_tree_add_file(b->t, avail, list, strlen(list), 0444, NULL, b->err) < 0)
                        return -1;
                n->write_kind = i == 0 ? CTK_FAKEFS_WRITE_COMPUTE_PARTITION : CTK_FAKEFS_WRITE_MEMORY_PARTITION;
                if ((n->write_arg = strdup(pg->gpu->pci)) == NULL)
                        return oom(b);
        }
        return 0;
}

static int add_partition(struct builder *b, const struct ctk_fakefs_plan_gpu *pg, const struct ctk_fakefs_plan_part *pp,
                         const char *pcidir)
{
        const struct ctk_fakefs_gpu *g = pg->gpu;
        _cleanup_free_ char *platdir = pp->k > 0 ? fmt("/sys/devices/platform/%s", pp->platform) : NULL;
        if (pp->k > 0 && platdir == NULL)
                return oom(b);
        const char *devdir = pp->k > 0 ? platdir : pcidir;
        return add_drm(b, g, devdir, pp->card_minor, pp->render_minor, pp->k == 0);
}

static int add_gpu(struct builder *b, const struct ctk_fakefs_plan_gpu *pg)
{
        const struct ctk_fakefs_gpu *g = pg->gpu;
        _cleanup_free_ char *rel = fmt("devices/pci%04x:00/%s", g->domain, g->pci);
        _cleanup_free_ char *dir = fmt("/sys/%s", rel);
        _cleanup_free_ char *busl = fmt("/sys/bus/pci/devices/%s", g->pci);
        _cleanup_free_ char *bust = fmt("../../../%s", rel);
        if (rel == NULL || dir == NULL || busl == NULL || bust == NULL)
                return oom(b);
        static const char *const attrs[] = {"vendor", "device", "class"};
        unsigned int values[] = {g->vendor_id, g->device_id, g->pci_class};
        for (int i = 0; i < 3; i++) {
                _cleanup_free_ char *f = fmt("%s/%s", dir, attrs[i]);
                if (f == NULL)
                        return oom(b);
                if (ctk_fakefs_tree_add_filef(b->t, f, b->err, i == 2 ? "0x%06x\n" : "0x%04x\n", values[i]) < 0)
                        return -1;
        }
        if (link_to(b, busl, bust) < 0 || ctk_fakefs_build_gpu_sysfs(b->p, pg, dir, &b->hwmon, b->t, b->err) < 0)
                return -1;
        if (!pg->bound)
                return 0;
        _cleanup_free_ char *drvl = fmt("%s/driver", dir);
        _cleanup_free_ char *drvt = fmt("../../../bus/pci/drivers/%s", g->driver);
        _cleanup_free_ char *bdl = fmt("/sys/bus/pci/drivers/%s/%s", g->driver, g->pci);
        _cleanup_free_ char *bdt = fmt("../../../../%s", rel);
        if (link_to(b, drvl, drvt) < 0 || link_to(b, bdl, bdt) < 0)
                return -1;
        if (!pg->kfd)
                return add_drm(b, g, dir, g->card_minor, g->render_minor, true);
        if (pg->compute != NULL && add_partition_files(b, pg, dir) < 0)
                return -1;
        for (size_t k = 0; k < pg->nparts; k++)
                if (add_partition(b, pg, &pg->parts[k], dir) < 0)
                        return -1;
        return 0;
}

int ctk_fakefs_build(const struct ctk_fakefs_profile *p, const struct ctk_fakefs_state *s, struct ctk_fakefs_tree **out,
                     struct ctk_error **err)
{
        struct ctk_fakefs_plan plan = {0};
        if (ctk_fakefs_plan_make(p, s, &plan, err) < 0)
                return -1;
        _cleanup_fakefs_tree_ struct ctk_fakefs_tree *t = NULL;
        struct builder b = {.p = p, .err = err};
        int rc = ctk_fakefs_tree_new(&t, err);
        b.t = t;
        /* (net, scsi_host, hwmon: what amd-smi and rocm-smi open on any host) */
        static const char *const dirs[] = {"/dev",           "/sys/bus/pci/devices", "/sys/bus/pci/drivers",
                                           "/sys/devices",   "/sys/module",          "/sys/class",
                                           "/sys/class/net", "/sys/class/scsi_host", "/sys/class/hwmon"};
        for (size_t i = 0; rc == 0 && i < sizeof(dirs) / sizeof(dirs[0]); i++)
                rc = ctk_fakefs_tree_mkdir(t, dirs[i], err);
        if (rc == 0)
                rc = add_drivers(&b);
        if (rc == 0 && p->amdgpu_loaded)
                rc = ctk_fakefs_build_kfd(p, &plan, t, err);
        for (size_t i = 0; rc == 0 && i < plan.ngpus; i++)
                rc = add_gpu(&b, &plan.gpus[i]);
        ctk_fakefs_plan_clear(&plan);
        if (rc < 0)
                return ctk_error_prefix(err, "building the tree of %s", CTK_CUT(p->path));
        *out = ctk_steal(&t);
        return 0;
}
