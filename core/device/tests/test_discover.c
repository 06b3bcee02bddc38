/* Discovery over a small in-memory mock backend: index order and grouping
 * (spec §1.4 and the §1.8 worked example), partitions via amdgpu_xcp_N and
 * amdgpu_xcp.N, dropped devices, errors, each file read once; devnode stat. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/base/base.h"
#include "core/device/devnode.h"
#include "core/device/gpu.h"
#include "core/device/pci_display.h"

/* ---- the mock: a flat list of paths (files, links, char nodes) ---------- */

struct mock_entry {
        char *path;
        char type;     /* 'f' file, 'l' link, 'c' char node */
        char *content; /* file content or link target */
        unsigned major, minor;
        int fail; /* errno returned on access, 0 = none */
        int reads;
};

struct mock {
        struct mock_entry e[512];
        size_t n;
};

static struct mock_entry *mock_add(struct mock *m, const char *path, char type, const char *content)
{
        assert_true(m->n < sizeof(m->e) / sizeof(m->e[0]));
        struct mock_entry *e = &m->e[m->n++];
        *e = (struct mock_entry){.path = strdup(path), .type = type, .content = strdup(content ? content : "")};
        return e;
}

static void mfile(struct mock *m, const char *path, const char *content)
{
        mock_add(m, path, 'f', content);
}
static void mlink(struct mock *m, const char *path, const char *target)
{
        mock_add(m, path, 'l', target);
}

static struct mock_entry *mock_exact(struct mock *m, const char *path)
{
        for (size_t i = 0; i < m->n; i++)
                if (strcmp(m->e[i].path, path) == 0)
                        return &m->e[i];
        return NULL;
}

static bool mock_is_dir(struct mock *m, const char *path)
{
        size_t len = strlen(path);
        if (len == 1)
                return true;
        for (size_t i = 0; i < m->n; i++)
                if (strncmp(m->e[i].path, path, len) == 0 && m->e[i].path[len] == '/')
                        return true;
        return false;
}

/* Resolves links (absolute or relative) in path; returns a malloc'd
 * canonical path, or NULL with *code set. */
static char *mock_resolve(struct mock *m, const char *path, bool follow_last, int *code)
{
        char *cur = strdup("");
        char *rest = strdup(path);
        int links = 0;
        char *p = rest;
        for (;;) {
                while (*p == '/')
                        p++;
                if (*p == '\0')
                        break;
                char *comp = p;
                p += strcspn(p, "/");
                bool last = true;
                for (char *q = p; *q; q++)
                        if (*q != '/')
                                last = false;
                if (*p)
                        *p++ = '\0';
                if (strcmp(comp, ".") == 0)
                        continue;
                if (strcmp(comp, "..") == 0) {
                        char *slash = strrchr(cur, '/');
                        if (slash != NULL)
                                *slash = '\0';
                        continue;
                }
                char *next = NULL;
                assert_true(asprintf(&next, "%s/%s", cur, comp) > 0);
                struct mock_entry *e = mock_exact(m, next);
                if (e != NULL && e->fail) {
                        *code = e->fail;
                        free(next);
                        free(cur);
                        free(rest);
                        return NULL;
                }
                if (e != NULL && e->type == 'l' && (!last || follow_last)) {
                        if (++links > 40) {
                                *code = ELOOP;
                                free(next), free(cur), free(rest);
                                return NULL;
                        }
                        free(next);
                        if (e->content[0] == '/')
                                cur[0] = '\0';
                        char *joined = NULL;
                        assert_true(asprintf(&joined, "%s/%s", e->content, p) > 0);
                        free(rest);
                        rest = p = joined;
                        continue;
                }
                if (e == NULL && !mock_is_dir(m, next)) {
                        *code = ENOENT;
                        free(next), free(cur), free(rest);
                        return NULL;
                }
                free(cur);
                cur = next;
        }
        free(rest);
        if (cur[0] == '\0') {
                free(cur);
                cur = strdup("/");
        }
        return cur;
}

static int mock_read_file(void *ctx, const char *path, char **out, size_t *len, struct ctk_error **err)
{
        struct mock *m = ctx;
        int code = 0;
        _cleanup_free_ char *c = mock_resolve(m, path, true, &code);
        if (c == NULL)
                return ctk_error_errno(err, code, "reading %s", path);
        struct mock_entry *e = mock_exact(m, c);
        if (e == NULL)
                return ctk_error_errno(err, EISDIR, "reading %s", path);
        e->reads++;
        if (e->type != 'f')
                return ctk_error_errno(err, EINVAL, "reading %s", path);
        *out = strdup(e->content);
        if (len)
                *len = strlen(e->content);
        return 0;
}

static int mock_list_dir(void *ctx, const char *path, struct ctk_strv *names, struct ctk_error **err)
{
        struct mock *m = ctx;
        int code = 0;
        _cleanup_free_ char *c = mock_resolve(m, path, true, &code);
        if (c == NULL)
                return ctk_error_errno(err, code, "listing %s", path);
        if (mock_exact(m, c) != NULL)
                return ctk_error_errno(err, ENOTDIR, "listing %s", path);
        size_t len = strcmp(c, "/") == 0 ? 0 : strlen(c);
        struct ctk_strv v = {0};
        for (size_t i = 0; i < m->n; i++) {
                const char *p = m->e[i].path;
                if (strncmp(p, c, len) != 0 || p[len] != '/')
                        continue;
                char *name = strndup(p + len + 1, strcspn(p + len + 1, "/"));
                if (ctk_strv_contains(&v, name))
                        free(name);
                else
                        ctk_strv_push_take(&v, name);
        }
        ctk_strv_sort(&v);
        ctk_strv_clear(names);
        *names = v;
        return 0;
}

static int mock_stat_node(void *ctx, const char *path, struct ctk_node_info *out, struct ctk_error **err)
{
        struct mock *m = ctx;
        int code = 0;
        _cleanup_free_ char *c = mock_resolve(m, path, true, &code);
        if (c == NULL)
                return ctk_error_errno(err, code, "stat %s", path);
        struct mock_entry *e = mock_exact(m, c);
        *out = (struct ctk_node_info){.type = CTK_NODE_DIR, .mode = 0755};
        if (e != NULL && e->type == 'f')
                *out = (struct ctk_node_info){.type = CTK_NODE_FILE, .mode = 0444};
        if (e != NULL && e->type == 'c')
                *out = (struct ctk_node_info){
                    .type = CTK_NODE_CHR, .mode = 0660, .major = e->major, .minor = e->minor, .gid = 109};
        return 0;
}

static int mock_read_link(void *ctx, const char *path, char **target, struct ctk_error **err)
{
        struct mock *m = ctx;
        int code = 0;
        _cleanup_free_ char *c = mock_resolve(m, path, false, &code);
        if (c == NULL)
                return ctk_error_errno(err, code, "reading link %s", path);
        struct mock_entry *e = mock_exact(m, c);
        if (e == NULL || e->type != 'l')
                return ctk_error_errno(err, EINVAL, "reading link %s", path);
        *target = strdup(e->content);
        return 0;
}

static void mock_destroy(void *ctx)
{
        struct mock *m = ctx;
        for (size_t i = 0; i < m->n; i++) {
                free(m->e[i].path);
                free(m->e[i].content);
        }
        free(m);
}

static const struct ctk_backend_ops mock_ops = {
    .read_file = mock_read_file,
    .list_dir = mock_list_dir,
    .stat_node = mock_stat_node,
    .read_link = mock_read_link,
    .destroy = mock_destroy,
};

static struct ctk_backend *mock_backend(struct mock **mp)
{
        struct ctk_backend *b = calloc(1, sizeof(*b));
        struct mock *m = calloc(1, sizeof(*m));
        b->ops = &mock_ops;
        b->ctx = m;
        b->description = strdup("mock");
        *mp = m;
        return b;
}

/* ---- host builders ------------------------------------------------------ */

static void host_driver(struct mock *m)
{
        mlink(m, "/sys/module/amdgpu/drivers/pci:amdgpu", "../../../bus/pci/drivers/amdgpu");
        mfile(m, "/sys/bus/pci/drivers/amdgpu/bind", "");
        mfile(m, "/sys/bus/pci/drivers/amdgpu/new_id", "");
        mlink(m, "/sys/bus/pci/drivers/amdgpu/module", "../../../../module/amdgpu");
        mfile(m, "/sys/devices/platform/serial8250/modalias", "");
}

static void kfd_node(struct mock *m, int id, const char *props)
{
        char path[128];
        snprintf(path, sizeof(path), "/sys/class/kfd/kfd/topology/nodes/%d/properties", id);
        mfile(m, path, props);
        snprintf(path, sizeof(path), "/sys/class/kfd/kfd/topology/nodes/%d/gpu_id", id);
        mfile(m, path, "0\n");
}

static void kfd_gpu(struct mock *m, int id, int minor, unsigned loc, unsigned domain, uint64_t uid)
{
        char props[256];
        snprintf(props, sizeof(props),
                 "vendor_id 4098\ndevice_id 29760\nlocation_id %u\ndomain %u\ndrm_render_minor %d\nunique_id "
                 "%llu\n",
                 loc, domain, minor, (unsigned long long)uid);
        kfd_node(m, id, props);
}

static void kfd_cpu(struct mock *m, int id)
{
        kfd_node(m, id, "cpu_cores_count 64\nlocation_id 0\ndomain 0\ndrm_render_minor 0\n");
}

/* A PCI function bound to amdgpu with card/render nodes; part may be NULL. */
static void pci_gpu(struct mock *m, const char *bdf, int card, int render, const char *cp, const char *mp)
{
        char dev[128], path[256], target[256];
        snprintf(dev, sizeof(dev), "/sys/devices/pci0000:00/%s", bdf);
        snprintf(path, sizeof(path), "/sys/bus/pci/drivers/amdgpu/%s", bdf);
        snprintf(target, sizeof(target), "../../../../devices/pci0000:00/%s", bdf);
        mlink(m, path, target);
        snprintf(path, sizeof(path), "%s/vendor", dev);
        mfile(m, path, "0x1002\n");
        if (card >= 0) {
                snprintf(path, sizeof(path), "%s/drm/card%d/dev", dev, card);
                mfile(m, path, "226:0\n");
        }
        if (render >= 0) {
                snprintf(path, sizeof(path), "%s/drm/renderD%d/dev", dev, render);
                mfile(m, path, "226:128\n");
        }
        if (cp != NULL) {
                snprintf(path, sizeof(path), "%s/current_compute_partition", dev);
                mfile(m, path, cp);
        }
        if (mp != NULL) {
                snprintf(path, sizeof(path), "%s/current_memory_partition", dev);
                mfile(m, path, mp);
        }
}

static void xcp(struct mock *m, const char *name, int card, int render)
{
        char path[256];
        snprintf(path, sizeof(path), "/sys/devices/platform/%s/drm/card%d/dev", name, card);
        mfile(m, path, "226:1\n");
        snprintf(path, sizeof(path), "/sys/devices/platform/%s/drm/renderD%d/dev", name, render);
        mfile(m, path, "226:129\n");
}

static struct ctk_gpu_list discover_ok(struct ctk_backend *b)
{
        struct ctk_gpu_list l;
        struct ctk_error *err = NULL;
        if (ctk_discover_gpus(b, &l, &err) < 0)
                fail_msg("discovery failed: %s", err->msg);
        for (size_t i = 0; i < l.n; i++)
                assert_int_equal(l.v[i].index, i);
        return l;
}

/* ---- tests -------------------------------------------------------------- */

static void test_worked_example(void **state)
{
        (void)state;
        struct mock *m;
        _cleanup_backend_ struct ctk_backend *b = mock_backend(&m);
        host_driver(m);
        kfd_node(m, 0, "drm_render_minor 128\r\nunique_id 1\r\nlocation_id 1280\r\ndomain 0\r\n");
        kfd_node(m, 1, "drm_render_minor 129\r\nunique_id 2\r\nlocation_id 1281\r\ndomain 0\r\n");
        kfd_node(m, 2, "drm_render_minor 130\r\nunique_id 3\r\nlocation_id 18432\r\ndomain 0\r\n");
        pci_gpu(m, "0000:01:00.0", 0, 128, NULL, NULL);
        xcp(m, "amdgpu_xcp_0", 1, 129);
        xcp(m, "amdgpu_xcp_1", 2, 130);
        _cleanup_gpu_list_ struct ctk_gpu_list l = discover_ok(b);
        assert_int_equal(l.n, 3);
        const char *drm[3][2] = {{"/dev/dri/card0", "/dev/dri/renderD128"},
                                 {"/dev/dri/card1", "/dev/dri/renderD129"},
                                 {"/dev/dri/card2", "/dev/dri/renderD130"}};
        const char *keys[3] = {"0000:05:00:0", "0000:05:00:0", "0000:48:00:0"};
        const char *pci[3] = {"0000:01:00.0", "0000:01:00.0", "0000:48:00.0"};
        for (size_t i = 0; i < 3; i++) {
                assert_int_equal(l.v[i].drm.n, 2);
                assert_string_equal(l.v[i].drm.v[0], drm[i][0]);
                assert_string_equal(l.v[i].drm.v[1], drm[i][1]);
                assert_string_equal(l.v[i].group_key, keys[i]);
                assert_string_equal(l.v[i].pci, pci[i]);
                assert_true(l.v[i].has_uuid);
                assert_true(l.v[i].uuid == i + 1);
                assert_int_equal(l.v[i].kfd_node, (int)i);
                assert_int_equal(l.v[i].card_minor, (int)i);
                assert_int_equal(l.v[i].render_minor, 128 + (int)i);
                assert_string_equal(l.v[i].partition, "");
                assert_string_equal(ctk_gpu_render_path(&l.v[i]), drm[i][1]);
                assert_string_equal(ctk_gpu_card_path(&l.v[i]), drm[i][0]);
        }
        assert_string_equal(l.v[0].sysfs_path, "/sys/module/amdgpu/drivers/pci:amdgpu/0000:01:00.0");
        assert_string_equal(l.v[2].sysfs_path, "/sys/devices/platform/amdgpu_xcp_1");
}

/* MI210-like: index order is PCI order, not render-minor order. */
static void test_pci_order_not_render_order(void **state)
{
        (void)state;
        struct mock *m;
        _cleanup_backend_ struct ctk_backend *b = mock_backend(&m);
        host_driver(m);
        kfd_cpu(m, 0);
        kfd_cpu(m, 1);
        kfd_gpu(m, 2, 128, 0x6300, 0, 1801979520617338022ULL);
        kfd_gpu(m, 3, 129, 0x4300, 0, 5847760019078012339ULL);
        kfd_gpu(m, 4, 130, 0x0300, 0, 10645161697164847644ULL);
        kfd_gpu(m, 10, 131, 0x2600, 0, 4847253685048710349ULL); /* "10" sorts before "2" */
        pci_gpu(m, "0000:63:00.0", 1, 128, NULL, NULL);
        pci_gpu(m, "0000:43:00.0", 2, 129, NULL, NULL);
        pci_gpu(m, "0000:03:00.0", 3, 130, NULL, NULL);
        pci_gpu(m, "0000:26:00.0", 4, 131, NULL, NULL);
        _cleanup_gpu_list_ struct ctk_gpu_list l = discover_ok(b);
        assert_int_equal(l.n, 4);
        const char *want[] = {"0000:03:00.0", "0000:26:00.0", "0000:43:00.0", "0000:63:00.0"};
        const int minors[] = {130, 131, 129, 128};
        const int nodes[] = {4, 10, 3, 2};
        for (size_t i = 0; i < 4; i++) {
                assert_string_equal(l.v[i].pci, want[i]);
                assert_int_equal(l.v[i].render_minor, minors[i]);
                assert_int_equal(l.v[i].kfd_node, nodes[i]);
        }
        assert_true(l.v[0].uuid == 10645161697164847644ULL);
}

/* MI300X-like: two GPUs in CPX (8 partitions each) through both xcp
 * spellings; xcp name order (xcp_10 < xcp_2) differs from render order. */
static void test_partitions_contiguous(void **state)
{
        (void)state;
        struct mock *m;
        _cleanup_backend_ struct ctk_backend *b = mock_backend(&m);
        host_driver(m);
        kfd_cpu(m, 0);
        kfd_cpu(m, 1);
        /* GPU A at 0000:9f:00.0 (minors 128..135), GPU B at 0000:05:00.0 (136..143) */
        for (int p = 0; p < 8; p++) {
                kfd_gpu(m, 2 + p, 128 + p, 0x9f00 + (unsigned)p, 0, 0xA000 + (unsigned)p);
                kfd_gpu(m, 10 + p, 136 + p, 0x0500 + (unsigned)p, 0, 0xB000);
        }
        pci_gpu(m, "0000:9f:00.0", 1, 128, "CPX\n", "NPS1\n");
        pci_gpu(m, "0000:05:00.0", 9, 136, "cpx\n", "nps4\n");
        char name[64];
        for (int k = 0; k < 14; k++) {
                /* xcp k: GPU A partitions 1..7 for k < 7, GPU B 1..7 after; mixed spellings */
                int render = k < 7 ? 129 + k : 137 + (k - 7);
                int card = k < 7 ? 2 + k : 10 + (k - 7);
                snprintf(name, sizeof(name), k % 2 ? "amdgpu_xcp.%d" : "amdgpu_xcp_%d", k);
                xcp(m, name, card, render);
        }
        _cleanup_gpu_list_ struct ctk_gpu_list l = discover_ok(b);
        assert_int_equal(l.n, 16);
        for (size_t i = 0; i < 16; i++) {
                bool first_gpu = i < 8; /* 0000:05:00.0 is the first PCI dir */
                assert_int_equal(l.v[i].render_minor, first_gpu ? 136 + (int)i : 128 + (int)i - 8);
                assert_string_equal(l.v[i].pci, first_gpu ? "0000:05:00.0" : "0000:9f:00.0");
                assert_string_equal(l.v[i].group_key, first_gpu ? "0000:05:00:0" : "0000:9f:00:0");
                const char *part = i == 0 ? "cpx_nps4" : i == 8 ? "cpx_nps1" : "";
                assert_string_equal(l.v[i].partition, part);
                assert_true(l.v[i].uuid == (first_gpu ? 0xB000u : 0xA000u + (i - 8)));
        }
        assert_int_equal(l.v[1].kfd_node, 11);
        assert_int_equal(l.v[1].card_minor, 10);
        assert_string_equal(l.v[1].drm.v[0], "/dev/dri/card10");
        /* every sysfs file was read at most once */
        for (size_t i = 0; i < m->n; i++)
                if (m->e[i].reads > 1)
                        fail_msg("%s read %d times", m->e[i].path, m->e[i].reads);
}

/* A GPU seen only through an xcp device comes after every PCI-seen group,
 * even when its PCI address sorts first. */
static void test_group_first_seen_via_xcp(void **state)
{
        (void)state;
        struct mock *m;
        _cleanup_backend_ struct ctk_backend *b = mock_backend(&m);
        host_driver(m);
        kfd_gpu(m, 1, 128, 0x0100, 0, 11);
        kfd_gpu(m, 2, 129, 0x0101, 0, 12);
        kfd_gpu(m, 3, 130, 0x8800, 0, 21);
        kfd_gpu(m, 4, 131, 0x8801, 0, 22);
        pci_gpu(m, "0000:88:00.0", 0, 130, "DPX\n", "NPS1\n");
        xcp(m, "amdgpu_xcp_0", 1, 129);
        xcp(m, "amdgpu_xcp_1", 2, 131);
        xcp(m, "amdgpu_xcp_2", 3, 128);
        _cleanup_gpu_list_ struct ctk_gpu_list l = discover_ok(b);
        assert_int_equal(l.n, 4);
        const int minors[] = {130, 131, 128, 129};
        const char *pci[] = {"0000:88:00.0", "0000:88:00.0", "0000:01:00.0", "0000:01:00.0"};
        for (size_t i = 0; i < 4; i++) {
                assert_int_equal(l.v[i].render_minor, minors[i]);
                assert_string_equal(l.v[i].pci, pci[i]);
        }
        assert_string_equal(l.v[0].partition, "dpx_nps1");
}

static void test_dropped_devices(void **state)
{
        (void)state;
        struct mock *m;
        _cleanup_backend_ struct ctk_backend *b = mock_backend(&m);
        host_driver(m);
        kfd_cpu(m, 0);
        kfd_gpu(m, 1, 129, 0x0300, 0, 7);
        kfd_node(m, 2, "drm_render_minor 130\nunique_id 8\n");                /* no location: dropped */
        kfd_node(m, 3, "drm_render_minor 131\nlocation_id 1792\ndomain 0\n"); /* no unique_id: kept, N/A */
        pci_gpu(m, "0000:01:00.0", 0, 128, NULL, NULL);    /* display-only: renderD128 has no KFD node */
        pci_gpu(m, "0000:03:00.0", 1, 129, "SPX\n", NULL); /* kept */
        pci_gpu(m, "0000:04:00.0", 2, 130, NULL, NULL);    /* node without location */
        pci_gpu(m, "0000:05:00.0", 3, -1, NULL, NULL);     /* no renderD */
        pci_gpu(m, "0000:07:00.0", -1, 131, NULL, "NPS4\n");
        mlink(m, "/sys/bus/pci/drivers/amdgpu/0000:06:00.0", "../../../../devices/pci0000:00/0000:06:00.0");
        mfile(m, "/sys/devices/pci0000:00/0000:06:00.0/vendor", "0x1002\n"); /* no drm dir */
        mfile(m, "/sys/devices/platform/amdgpu_xcp_0/drm/renderDx/dev", ""); /* unparseable minor */
        _cleanup_gpu_list_ struct ctk_gpu_list l = discover_ok(b);
        assert_int_equal(l.n, 2);
        assert_string_equal(l.v[0].pci, "0000:03:00.0");
        assert_string_equal(l.v[0].partition, "spx_");
        assert_true(l.v[0].has_uuid);
        assert_string_equal(l.v[1].pci, "0000:07:00.0");
        assert_string_equal(l.v[1].partition, "_nps4");
        assert_false(l.v[1].has_uuid);
        assert_int_equal(l.v[1].card_minor, -1);
        assert_int_equal(l.v[1].drm.n, 1);
        assert_null(ctk_gpu_card_path(&l.v[1]));
}

static void test_duplicate_render_minor_later_node_wins(void **state)
{
        (void)state;
        struct mock *m;
        _cleanup_backend_ struct ctk_backend *b = mock_backend(&m);
        host_driver(m);
        kfd_gpu(m, 2, 128, 0x0300, 0, 1);
        kfd_gpu(m, 3, 128, 0x0400, 0, 2);
        pci_gpu(m, "0000:03:00.0", 0, 128, NULL, NULL);
        _cleanup_gpu_list_ struct ctk_gpu_list l = discover_ok(b);
        assert_int_equal(l.n, 1);
        assert_string_equal(l.v[0].group_key, "0000:04:00:0");
        assert_true(l.v[0].uuid == 2);
        assert_int_equal(l.v[0].kfd_node, 3);
}

static void test_empty_hosts(void **state)
{
        (void)state;
        struct mock *m;
        /* driver loaded, no KFD topology: every device is dropped */
        struct ctk_backend *b = mock_backend(&m);
        host_driver(m);
        pci_gpu(m, "0000:03:00.0", 0, 128, NULL, NULL);
        struct ctk_gpu_list l = discover_ok(b);
        assert_int_equal(l.n, 0);
        ctk_gpu_list_clear(&l);
        ctk_backend_free(b);
        /* driver module present without pci:amdgpu */
        b = mock_backend(&m);
        mfile(m, "/sys/module/amdgpu/drivers/platform:amdgpu_xcp/x", "");
        l = discover_ok(b);
        assert_int_equal(l.n, 0);
        assert_null(l.v);
        ctk_backend_free(b);
}

static void test_driver_not_loaded(void **state)
{
        (void)state;
        struct mock *m;
        _cleanup_backend_ struct ctk_backend *b = mock_backend(&m);
        mfile(m, "/sys/module/i915/drivers/pci:i915/0000:00:02.0", "");
        kfd_gpu(m, 1, 128, 0x0300, 0, 1);
        struct ctk_gpu_list l = {.n = 99};
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(ctk_discover_gpus(b, &l, &err), -1);
        assert_int_equal(err->code, ENODEV);
        assert_int_equal(l.n, 0);
        assert_non_null(strstr(err->msg, "amdgpu driver is not loaded"));
        assert_non_null(strstr(err->msg, "modprobe amdgpu"));
        assert_null(strchr(err->msg, '\n'));
}

static void test_errors_no_partial_list(void **state)
{
        (void)state;
        struct mock *m;
        struct ctk_backend *b = mock_backend(&m);
        host_driver(m);
        kfd_gpu(m, 1, 128, 0x0300, 0, 1);
        kfd_node(m, 2, "drm_render_minor 129\nlocation_id 0x400\ndomain 0\n");
        pci_gpu(m, "0000:03:00.0", 0, 128, NULL, NULL);
        struct ctk_gpu_list l;
        struct ctk_error *err = NULL;
        assert_int_equal(ctk_discover_gpus(b, &l, &err), -1);
        assert_int_equal(l.n, 0);
        assert_null(l.v);
        assert_non_null(strstr(err->msg, "/sys/class/kfd/kfd/topology/nodes/2/properties"));
        assert_non_null(strstr(err->msg, "location_id"));
        ctk_error_free(err);
        err = NULL;
        ctk_backend_free(b);

        /* an I/O error on a drm directory or a partition file is not "absent" */
        b = mock_backend(&m);
        host_driver(m);
        kfd_gpu(m, 1, 128, 0x0300, 0, 1);
        kfd_gpu(m, 2, 129, 0x0400, 0, 2);
        pci_gpu(m, "0000:03:00.0", 0, 128, "SPX\n", "NPS1\n");
        pci_gpu(m, "0000:04:00.0", 1, 129, NULL, NULL);
        mock_add(m, "/sys/devices/pci0000:00/0000:04:00.0/drm", 'f', "")->fail = EIO;
        assert_int_equal(ctk_discover_gpus(b, &l, &err), -1);
        assert_int_equal(err->code, EIO);
        assert_non_null(strstr(err->msg, "0000:04:00.0"));
        assert_int_equal(l.n, 0);
        ctk_error_free(err);
        err = NULL;
        ctk_backend_free(b);

        b = mock_backend(&m);
        host_driver(m);
        kfd_gpu(m, 1, 128, 0x0300, 0, 1);
        pci_gpu(m, "0000:03:00.0", 0, 128, "SPX\n", NULL);
        mock_add(m, "/sys/devices/pci0000:00/0000:03:00.0/current_memory_partition", 'f', "")->fail = EIO;
        assert_int_equal(ctk_discover_gpus(b, &l, &err), -1);
        assert_int_equal(err->code, EIO);
        assert_non_null(strstr(err->msg, "current_memory_partition"));
        ctk_error_free(err);
        err = NULL;
        ctk_backend_free(b);

        b = mock_backend(&m);
        mock_add(m, "/sys/module/amdgpu/drivers", 'f', "")->fail = EIO;
        assert_int_equal(ctk_discover_gpus(b, &l, &err), -1);
        assert_int_equal(err->code, EIO);
        assert_non_null(strstr(err->msg, "amdgpu driver"));
        ctk_error_free(err);
        ctk_backend_free(b);
}

static void test_devnode(void **state)
{
        (void)state;
        struct mock *m;
        _cleanup_backend_ struct ctk_backend *b = mock_backend(&m);
        struct mock_entry *e = mock_add(m, "/dev/kfd", 'c', "");
        e->major = 238;
        e->minor = 0;
        e = mock_add(m, "/dev/dri/renderD128", 'c', "");
        e->major = 226;
        e->minor = 128;
        mlink(m, "/dev/dri/by-path/pci-0000:03:00.0-render", "../renderD128");
        mfile(m, "/dev/dri/notadevice", "");
        struct ctk_devnode d;
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(ctk_devnode_stat(b, "/dev/kfd", &d, &err), 0);
        assert_string_equal(d.path, "/dev/kfd");
        assert_int_equal(d.type, 'c');
        assert_int_equal(d.major, 238);
        assert_int_equal(d.mode, 0660);
        assert_int_equal(d.gid, 109);
        ctk_devnode_clear(&d);
        assert_int_equal(ctk_devnode_stat(b, "/dev/dri/by-path/pci-0000:03:00.0-render", &d, &err), 0);
        assert_int_equal(d.minor, 128);
        ctk_devnode_clear(&d);
        assert_int_equal(ctk_devnode_stat(b, "/dev/dri/renderD129", &d, &err), -1);
        assert_int_equal(err->code, ENOENT);
        assert_string_equal(err->msg, "device node /dev/dri/renderD129 does not exist");
        ctk_error_free(err);
        err = NULL;
        assert_int_equal(ctk_devnode_stat(b, "/dev/dri/notadevice", &d, &err), -1);
        assert_non_null(strstr(err->msg, "/dev/dri/notadevice"));
        ctk_error_free(err);
        err = NULL;
        assert_int_equal(ctk_devnode_stat(b, "/dev/dri", &d, &err), -1);
        assert_int_equal(err->code, ENODEV);
}

static void pci_dev(struct mock *m, const char *bdf, const char *vendor, const char *cls, const char *driver)
{
        char path[256], target[256];
        snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s", bdf);
        snprintf(target, sizeof(target), "../../../devices/pci0000:00/%s", bdf);
        mlink(m, path, target);
        snprintf(path, sizeof(path), "/sys/devices/pci0000:00/%s/vendor", bdf);
        mfile(m, path, vendor);
        snprintf(path, sizeof(path), "/sys/devices/pci0000:00/%s/device", bdf);
        mfile(m, path, "0x1234\n");
        snprintf(path, sizeof(path), "/sys/devices/pci0000:00/%s/class", bdf);
        mfile(m, path, cls);
        if (driver != NULL) {
                snprintf(path, sizeof(path), "/sys/devices/pci0000:00/%s/driver", bdf);
                snprintf(target, sizeof(target), "../../../bus/pci/drivers/%s", driver);
                mlink(m, path, target);
        }
}

static void test_pci_display_scan(void **state)
{
        (void)state;
        struct mock *m;
        _cleanup_backend_ struct ctk_backend *b = mock_backend(&m);
        pci_dev(m, "0000:00:02.0", "0x8086\n", "0x030000\n", "i915");
        pci_dev(m, "0000:00:1f.6", "0x8086\n", "0x020000\n", "e1000e"); /* network: skipped */
        pci_dev(m, "0000:03:00.0", "0x1002\n", "0x038000\n", "amdgpu");
        pci_dev(m, "0000:41:00.0", "0x10de\n", "0x030200\n", "nvidia");
        pci_dev(m, "0000:42:00.0", "0x1e52\r\n", "0x120000\n", NULL); /* accelerator, no driver */
        mfile(m, "/sys/bus/pci/devices/0000:ff:00.0", "not a device dir");
        mlink(m, "/dev/dri/by-path/pci-0000:00:02.0-card", "../card0");
        mlink(m, "/dev/dri/by-path/pci-0000:00:02.0-render", "../renderD128");
        mlink(m, "/dev/dri/by-path/pci-0000:03:00.0-card", "../card1");
        mlink(m, "/dev/dri/by-path/pci-0000:03:00.0-render", "../renderD129");
        mlink(m, "/dev/dri/by-path/pci-0000:03:00.0-render.bak", "../renderD1");
        mlink(m, "/dev/dri/by-path/pci-0000:41:00.0-card", "../card2");
        mlink(m, "/dev/dri/by-path/platform-simple-framebuffer.0-card", "../card9");
        struct ctk_pci_display_list l;
        _cleanup_error_ struct ctk_error *err = NULL;
        if (ctk_pci_display_scan(b, &l, &err) < 0)
                fail_msg("%s", err->msg);
        assert_int_equal(l.n, 4);
        assert_string_equal(l.v[0].bdf, "0000:00:02.0");
        assert_int_equal(l.v[0].vendor, 0x8086);
        assert_int_equal(l.v[0].pci_class, 0x030000);
        assert_string_equal(l.v[0].driver, "i915");
        assert_int_equal(l.v[0].drm.n, 2);
        assert_string_equal(l.v[0].drm.v[0], "/dev/dri/card0");
        assert_string_equal(l.v[0].drm.v[1], "/dev/dri/renderD128");
        assert_string_equal(l.v[1].bdf, "0000:03:00.0");
        assert_string_equal(l.v[1].driver, "amdgpu");
        assert_int_equal(l.v[1].drm.n, 2);
        assert_string_equal(l.v[1].drm.v[1], "/dev/dri/renderD129");
        assert_string_equal(l.v[2].driver, "nvidia");
        assert_int_equal(l.v[2].drm.n, 1);
        assert_int_equal(l.v[3].vendor, 0x1e52);
        assert_int_equal(l.v[3].device, 0x1234);
        assert_null(l.v[3].driver);
        assert_int_equal(l.v[3].drm.n, 0);
        assert_string_equal(ctk_pci_vendor_name(0x10de), "NVIDIA");
        assert_null(ctk_pci_vendor_name(0x1e52));
        ctk_pci_display_list_clear(&l);

        /* a malformed attribute names the file */
        pci_dev(m, "0000:50:00.0", "0x10de\n", "display\n", NULL);
        assert_int_equal(ctk_pci_display_scan(b, &l, &err), -1);
        assert_non_null(strstr(err->msg, "/sys/bus/pci/devices/0000:50:00.0/class"));
        assert_int_equal(l.n, 0);
}

static void test_pci_display_empty_host(void **state)
{
        (void)state;
        struct mock *m;
        _cleanup_backend_ struct ctk_backend *b = mock_backend(&m);
        mfile(m, "/sys/kernel/x", "");
        struct ctk_pci_display_list l;
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(ctk_pci_display_scan(b, &l, &err), 0);
        assert_int_equal(l.n, 0);
        ctk_pci_display_list_clear(&l);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_worked_example),
            cmocka_unit_test(test_pci_order_not_render_order),
            cmocka_unit_test(test_partitions_contiguous),
            cmocka_unit_test(test_group_first_seen_via_xcp),
            cmocka_unit_test(test_dropped_devices),
            cmocka_unit_test(test_duplicate_render_minor_later_node_wins),
            cmocka_unit_test(test_empty_hosts),
            cmocka_unit_test(test_driver_not_loaded),
            cmocka_unit_test(test_errors_no_partial_list),
            cmocka_unit_test(test_devnode),
            cmocka_unit_test(test_pci_display_scan),
            cmocka_unit_test(test_pci_display_empty_host),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
