/* AMD GPU discovery with the Go toolkit's indexing (spec §1.4):
 *
 *   candidates = PCI functions bound to amdgpu (BDF order), then the
 *                amdgpu_xcp_N / amdgpu_xcp.N platform devices (name order)
 *   a candidate is kept when its drm/ directory has card/renderD entries and
 *   the (last) renderD minor has a KFD topology node with a location;
 *   candidates are grouped by the node's PCI location (domain/bus/device),
 *   groups in first-seen order, devices of a group by ascending render minor
 *   (discover_order.c).
 *
 * Each sysfs file is read once. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/base.h"
#include "discover_order.h"
#include "gpu.h"
#include "kfd_topology.h"

#define AMDGPU_DRIVERS_DIR "/sys/module/amdgpu/drivers"
#define AMDGPU_PCI_DIR     AMDGPU_DRIVERS_DIR "/pci:amdgpu"
#define PLATFORM_DIR       "/sys/devices/platform"

static int check_driver(struct ctk_backend *b, struct ctk_error **err)
{
        struct ctk_node_info info;
        _cleanup_error_ struct ctk_error *e = NULL;
        if (ctk_stat_node(b, AMDGPU_DRIVERS_DIR, &info, &e) == 0 && info.type == CTK_NODE_DIR)
                return 0;
        if (e == NULL || e->code == ENOENT || e->code == ENOTDIR)
                return ctk_error_set(err, ENODEV,
                                     "amdgpu driver is not loaded (no " AMDGPU_DRIVERS_DIR "): load it with "
                                     "'modprobe amdgpu' and check 'dmesg | grep -i amdgpu' for errors");
        *err = ctk_steal(&e);
        return ctk_error_prefix(err, "checking for the amdgpu driver");
}

/* Go's pattern [0-9a-fA-F]{4}:* on the driver directory. */
static bool looks_like_bdf(const char *name)
{
        for (int i = 0; i < 4; i++) {
                char c = name[i];
                if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
                        return false;
        }
        return name[4] == ':';
}

static bool is_xcp_name(const char *name)
{
        return strncmp(name, "amdgpu_xcp_", 11) == 0 || strncmp(name, "amdgpu_xcp.", 11) == 0;
}

/* Lists a directory; a missing one is empty. */
static int list_optional(struct ctk_backend *b, const char *path, struct ctk_strv *names, struct ctk_error **err)
{
        _cleanup_error_ struct ctk_error *e = NULL;
        if (ctk_list_dir(b, path, names, &e) == 0)
                return 0;
        if (e->code == ENOENT || e->code == ENOTDIR)
                return 0;
        *err = ctk_steal(&e);
        return -1;
}

static int minor_suffix(const char *s)
{
        uint64_t v;
        if (ctk_parse_u64_dec(s, strlen(s), INT32_MAX, &v) < 0)
                return -1;
        return (int)v;
}

/* Reads <dir>/current_{compute,memory}_partition: "cpx_nps1", "spx_", "". */
static int read_partition(struct ctk_backend *b, const char *dir, char **out, struct ctk_error **err)
{
        static const char *const files[2] = {"current_compute_partition", "current_memory_partition"};
        _cleanup_free_ char *compute = NULL;
        _cleanup_free_ char *memory = NULL;
        char **parts[2] = {&compute, &memory};
        for (int i = 0; i < 2; i++) {
                _cleanup_free_ char *path = ctk_str_concat(dir, "/", files[i]);
                _cleanup_error_ struct ctk_error *e = NULL;
                if (path == NULL)
                        return ctk_error_set(err, ENOMEM, "out of memory");
                char *text = NULL;
                if (ctk_read_file(b, path, &text, NULL, &e) < 0) {
                        if (e->code == ENOENT || e->code == ENODEV || e->code == EINVAL || e->code == EOPNOTSUPP)
                                text = strdup(""); /* not partition-capable */
                        else {
                                *err = ctk_steal(&e);
                                return -1;
                        }
                }
                if (text == NULL)
                        return ctk_error_set(err, ENOMEM, "out of memory");
                /* trim and lower-case */
                char *s = text;
                while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
                        s++;
                size_t len = strlen(s);
                while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\n' || s[len - 1] == '\r'))
                        len--;
                for (size_t j = 0; j < len; j++)
                        if (s[j] >= 'A' && s[j] <= 'Z')
                                s[j] = (char)(s[j] - 'A' + 'a');
                *parts[i] = strndup(s, len);
                free(text);
                if (*parts[i] == NULL)
                        return ctk_error_set(err, ENOMEM, "out of memory");
        }
        char *p = NULL;
        if (compute[0] == '\0' && memory[0] == '\0')
                p = strdup("");
        else
                p = ctk_str_concat(compute, "_", memory);
        if (p == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        *out = p;
        return 0;
}

/* Examines one candidate directory; *kept says whether it is an AMD GPU
 * device (drm nodes, render minor known to the topology). */
static int probe(struct ctk_backend *b, const char *dir, bool is_pci, const struct ctk_kfd_topology *topo,
                 struct ctk_discover_candidate *c, bool *kept, struct ctk_error **err)
{
        *kept = false;
        _cleanup_free_ char *drm_dir = ctk_str_concat(dir, "/drm", NULL);
        if (drm_dir == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        _cleanup_strv_ struct ctk_strv names = {0};
        if (list_optional(b, drm_dir, &names, err) < 0)
                return ctk_error_prefix(err, "finding drm directories in %s", CTK_CUT(dir));
        _cleanup_strv_ struct ctk_strv drm = {0};
        int render_minor = 0, card_minor = -1;
        for (size_t i = 0; i < names.n; i++) {
                const char *n = names.v[i];
                bool card = strncmp(n, "card", 4) == 0, render = strncmp(n, "renderD", 7) == 0;
                if (!card && !render)
                        continue;
                char *path = ctk_str_concat("/dev/dri/", n, NULL);
                if (path == NULL || ctk_strv_push_take(&drm, path) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
                if (render) {
                        int m = minor_suffix(n + 7);
                        render_minor = m > 0 ? m : 0; /* the last renderD decides, as in the Go toolkit */
                } else if (card_minor < 0) {
                        card_minor = minor_suffix(n + 4);
                }
        }
        if (drm.n == 0 || render_minor <= 0)
                return 0;
        const struct ctk_kfd_node *node = ctk_kfd_topology_find(topo, (uint32_t)render_minor);
        if (node == NULL || !node->has_location)
                return 0; /* no KFD node: display-only GPU or KFD not loaded */
        *c = (struct ctk_discover_candidate){.node = node, .is_pci = is_pci};
        c->gpu.render_minor = render_minor;
        c->gpu.card_minor = card_minor;
        c->gpu.has_uuid = node->has_unique_id;
        c->gpu.uuid = node->unique_id;
        c->gpu.kfd_node = node->id;
        c->gpu.drm = drm;
        drm = (struct ctk_strv){0};
        c->gpu.sysfs_path = strdup(dir);
        if (c->gpu.sysfs_path == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        if (is_pci) {
                if (read_partition(b, dir, &c->gpu.partition, err) < 0)
                        return -1;
        } else {
                /* Partitions other than 0 carry no partition files (Go reports ""). */
                c->gpu.partition = strdup("");
                if (c->gpu.partition == NULL)
                        return ctk_error_set(err, ENOMEM, "out of memory");
        }
        *kept = true;
        return 0;
}

/* The candidate directories in Go's order: PCI functions, then xcp devices. */
static int list_candidates(struct ctk_backend *b, struct ctk_strv *dirs, size_t *npci, struct ctk_error **err)
{
        _cleanup_strv_ struct ctk_strv pci = {0}, platform = {0};
        if (list_optional(b, AMDGPU_PCI_DIR, &pci, err) < 0 || list_optional(b, PLATFORM_DIR, &platform, err) < 0)
                return -1;
        *npci = 0;
        for (size_t i = 0; i < pci.n; i++) {
                if (!looks_like_bdf(pci.v[i]))
                        continue;
                char *p = ctk_str_concat(AMDGPU_PCI_DIR "/", pci.v[i], NULL);
                if (p == NULL || ctk_strv_push_take(dirs, p) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
                (*npci)++;
        }
        for (size_t i = 0; i < platform.n; i++) {
                if (!is_xcp_name(platform.v[i]))
                        continue;
                char *p = ctk_str_concat(PLATFORM_DIR "/", platform.v[i], NULL);
                if (p == NULL || ctk_strv_push_take(dirs, p) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
        }
        return 0;
}

static int discover(struct ctk_backend *b, const struct ctk_kfd_topology *topo, struct ctk_discover_groups *g,
                    struct ctk_gpu_list *out, struct ctk_error **err)
{
        _cleanup_strv_ struct ctk_strv dirs = {0};
        size_t npci = 0;
        if (list_candidates(b, &dirs, &npci, err) < 0)
                return -1;
        struct ctk_discover_candidate *c = calloc(dirs.n + 1, sizeof(*c));
        if (c == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        size_t n = 0;
        int rc = 0;
        for (size_t i = 0; i < dirs.n && rc == 0; i++) {
                bool kept = false;
                rc = probe(b, dirs.v[i], i < npci, topo, &c[n], &kept, err);
                if (rc < 0 || !kept)
                        continue;
                ctk_discover_groups_add(g, &c[n], n, strrchr(dirs.v[i], '/') + 1);
                n++;
        }
        if (rc == 0)
                rc = ctk_discover_order(c, n, g, err);
        if (rc < 0) {
                ctk_discover_candidates_free(c, n + 1); /* c[n] may hold a half-probed candidate */
                return -1;
        }
        if (n == 0) {
                free(c);
                return 0;
        }
        struct ctk_gpu *v = calloc(n, sizeof(*v));
        if (v == NULL) {
                ctk_discover_candidates_free(c, n);
                return ctk_error_set(err, ENOMEM, "out of memory");
        }
        for (size_t i = 0; i < n; i++)
                v[i] = c[i].gpu;
        free(c);
        out->v = v;
        out->n = n;
        return 0;
}

static int discover_once(struct ctk_backend *b, struct ctk_gpu_list *out, struct ctk_error **err)
{
        *out = (struct ctk_gpu_list){0};
        if (check_driver(b, err) < 0)
                return -1;
        struct ctk_kfd_topology topo = {0};
        if (ctk_kfd_topology_read(b, &topo, err) < 0)
                return -1;
        struct ctk_discover_groups g;
        int rc;
        if (ctk_discover_groups_init(&g, &topo) < 0)
                rc = ctk_error_set(err, ENOMEM, "out of memory");
        else
                rc = discover(b, &topo, &g, out, err);
        ctk_discover_groups_clear(&g);
        ctk_kfd_topology_clear(&topo);
        return rc;
}

#define GENERATION_FILE "/sys/class/kfd/kfd/topology/generation_id"
#define MAX_ATTEMPTS    100

/* The KFD topology generation; 0 when it cannot be read. */
static uint64_t generation(struct ctk_backend *b)
{
        _cleanup_error_ struct ctk_error *e = NULL;
        _cleanup_free_ char *s = NULL;
        size_t len = 0;
        uint64_t v = 0;
        if (ctk_read_file(b, GENERATION_FILE, &s, &len, &e) < 0)
                return 0;
        while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == '\r'))
                len--;
        if (ctk_parse_u64_dec(s, len, UINT64_MAX, &v) < 0)
                return 0;
        return v;
}

/* The driver bumps the KFD generation_id whenever the topology changes (a
 * repartition, a hot-unplug); a discovery that saw the generation change
 * may have mixed files of both topologies, so it is repeated (like the
 * ROCm runtime does). */
int ctk_discover_gpus(struct ctk_backend *b, struct ctk_gpu_list *out, struct ctk_error **err)
{
        for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
                uint64_t before = generation(b);
                struct ctk_error *e = NULL;
                int rc = discover_once(b, out, &e);
                if (generation(b) == before) {
                        if (rc < 0 && err != NULL && *err == NULL)
                                *err = ctk_steal(&e);
                        ctk_error_free(e);
                        return rc;
                }
                ctk_error_free(e);
                ctk_gpu_list_clear(out);
        }
        return ctk_error_set(err, EAGAIN,
                             "the KFD topology changed during each of %d discoveries (" GENERATION_FILE
                             " kept changing); is a GPU being repartitioned or reset in a loop?",
                             MAX_ATTEMPTS);
}
