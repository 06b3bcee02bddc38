#include "pci_display.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/base.h"

#define PCI_DEVICES_DIR "/sys/bus/pci/devices"
#define BY_PATH_DIR     "/dev/dri/by-path"

const char *ctk_pci_vendor_name(uint16_t vendor)
{
        switch (vendor) {
        case 0x1002:
                return "AMD";
        case 0x8086:
                return "Intel";
        case 0x10de:
                return "NVIDIA";
        case 0x1a03:
                return "ASPEED";
        case 0x102b:
                return "Matrox";
        case 0x15ad:
                return "VMware";
        case 0x1af4:
                return "Red Hat (virtio)";
        case 0x1234:
                return "QEMU";
        default:
                return NULL;
        }
}

static bool absent(const struct ctk_error *e)
{
        return e->code == ENOENT || e->code == ENOTDIR;
}

/* Reads a sysfs hex attribute ("0x1002\n"). */
static int read_hex(struct ctk_backend *b, const char *bdf, const char *attr, uint64_t max, uint64_t *out,
                    struct ctk_error **err)
{
        _cleanup_free_ char *path = NULL;
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        if (asprintf(&path, PCI_DEVICES_DIR "/%s/%s", bdf, attr) < 0)
                return ctk_error_set(err, ENOMEM, "out of memory");
        if (ctk_read_file(b, path, &text, &len, err) < 0)
                return -1;
        while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r' || text[len - 1] == ' '))
                len--;
        if (ctk_parse_u64_hex(text, len, 1, max, out) < 0)
                return ctk_error_set(err, EINVAL, "%s: '%.*s' is not a hexadecimal number up to 0x%llx", CTK_CUT(path),
                                     len > 20 ? 20 : (int)len, text, (unsigned long long)max);
        return 0;
}

static int read_driver(struct ctk_backend *b, const char *bdf, char **out, struct ctk_error **err)
{
        _cleanup_free_ char *path = NULL;
        _cleanup_free_ char *target = NULL;
        _cleanup_error_ struct ctk_error *e = NULL;
        *out = NULL;
        if (asprintf(&path, PCI_DEVICES_DIR "/%s/driver", bdf) < 0)
                return ctk_error_set(err, ENOMEM, "out of memory");
        if (ctk_read_link(b, path, &target, &e) < 0) {
                if (absent(e))
                        return 0; /* no driver bound */
                *err = ctk_steal(&e);
                return -1;
        }
        const char *slash = strrchr(target, '/');
        *out = strdup(slash != NULL ? slash + 1 : target);
        return *out != NULL ? 0 : ctk_error_set(err, ENOMEM, "out of memory");
}

/* Adds the by-path nodes "pci-<bdf>-card" and "pci-<bdf>-render" of one device. */
static int add_nodes(struct ctk_backend *b, const struct ctk_strv *by_path, struct ctk_pci_display *d,
                     struct ctk_error **err)
{
        size_t blen = strlen(d->bdf);
        for (size_t i = 0; i < by_path->n; i++) {
                const char *n = by_path->v[i];
                if (strncmp(n, "pci-", 4) != 0 || strncmp(n + 4, d->bdf, blen) != 0)
                        continue;
                const char *kind = n + 4 + blen;
                if (strcmp(kind, "-card") != 0 && strcmp(kind, "-render") != 0)
                        continue;
                _cleanup_free_ char *path = NULL;
                _cleanup_free_ char *target = NULL;
                if (asprintf(&path, BY_PATH_DIR "/%s", n) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
                if (ctk_read_link(b, path, &target, err) < 0)
                        return -1;
                const char *slash = strrchr(target, '/');
                char *node = NULL;
                if (asprintf(&node, "/dev/dri/%s", slash != NULL ? slash + 1 : target) < 0 ||
                    ctk_strv_push_take(&d->drm, node) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
        }
        return 0;
}

static void display_clear(struct ctk_pci_display *d)
{
        free(d->bdf);
        free(d->driver);
        ctk_strv_clear(&d->drm);
}

/* Fills *d for one PCI device; *keep is false for other classes. */
static int scan_one(struct ctk_backend *b, const char *bdf, const struct ctk_strv *by_path, struct ctk_pci_display *d,
                    bool *keep, struct ctk_error **err)
{
        uint64_t cls, vendor, device;
        *keep = false;
        _cleanup_error_ struct ctk_error *e = NULL;
        if (read_hex(b, bdf, "class", 0xffffff, &cls, &e) < 0) {
                if (absent(e))
                        return 0; /* not a PCI function directory */
                *err = ctk_steal(&e);
                return -1;
        }
        if ((cls >> 16) != 0x03 && (cls >> 16) != 0x12)
                return 0;
        if (read_hex(b, bdf, "vendor", 0xffff, &vendor, err) < 0 ||
            read_hex(b, bdf, "device", 0xffff, &device, err) < 0)
                return -1;
        *d = (struct ctk_pci_display){
            .bdf = strdup(bdf), .vendor = (uint16_t)vendor, .device = (uint16_t)device, .pci_class = (uint32_t)cls};
        if (d->bdf == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        if (read_driver(b, bdf, &d->driver, err) < 0 || add_nodes(b, by_path, d, err) < 0) {
                display_clear(d);
                return -1;
        }
        *keep = true;
        return 0;
}

static int list_optional(struct ctk_backend *b, const char *path, struct ctk_strv *names, struct ctk_error **err)
{
        _cleanup_error_ struct ctk_error *e = NULL;
        if (ctk_list_dir(b, path, names, &e) == 0 || absent(e))
                return 0;
        *err = ctk_steal(&e);
        return -1;
}

int ctk_pci_display_scan(struct ctk_backend *b, struct ctk_pci_display_list *out, struct ctk_error **err)
{
        *out = (struct ctk_pci_display_list){0};
        _cleanup_strv_ struct ctk_strv devices = {0}, by_path = {0};
        if (list_optional(b, PCI_DEVICES_DIR, &devices, err) < 0 || list_optional(b, BY_PATH_DIR, &by_path, err) < 0)
                return -1;
        struct ctk_pci_display_list l = {.v = calloc(devices.n + 1, sizeof(*l.v))};
        if (l.v == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < devices.n; i++) {
                bool keep = false;
                if (scan_one(b, devices.v[i], &by_path, &l.v[l.n], &keep, err) < 0) {
                        ctk_pci_display_list_clear(&l);
                        return -1;
                }
                if (keep)
                        l.n++;
        }
        *out = l;
        return 0;
}

void ctk_pci_display_list_clear(struct ctk_pci_display_list *l)
{
        for (size_t i = 0; i < l->n; i++)
                display_clear(&l->v[i]);
        free(l->v);
        *l = (struct ctk_pci_display_list){0};
}
