/* Every display/accelerator-class PCI device of the host, whatever its
 * vendor or driver (`amd-ctk gpu list --all-vendors`): PCI class 0x03xxxx
 * (display controller) or 0x12xxxx (processing accelerator), from
 * /sys/bus/pci/devices, with the DRM nodes that /dev/dri/by-path links to
 * its PCI address. */
#ifndef CTK_PCI_DISPLAY_H
#define CTK_PCI_DISPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "core/base/base.h"

#define CTK_PCI_VENDOR_AMD 0x1002

struct ctk_pci_display {
        char *bdf; /* "0000:03:00.0" */
        uint16_t vendor, device;
        uint32_t pci_class;  /* 0x038000 */
        char *driver;        /* "amdgpu", "i915", "nvidia"; NULL when no driver is bound */
        struct ctk_strv drm; /* "/dev/dri/card1", "/dev/dri/renderD128" (by-path order: card, render) */
};

struct ctk_pci_display_list {
        struct ctk_pci_display *v;
        size_t n;
};

/* In PCI address order.  A host without /sys/bus/pci/devices or
 * /dev/dri/by-path is not an error (no devices, no nodes). */
int ctk_pci_display_scan(struct ctk_backend *b, struct ctk_pci_display_list *out, struct ctk_error **err);
void ctk_pci_display_list_clear(struct ctk_pci_display_list *l);

/* "AMD", "Intel", "NVIDIA", ... or NULL for vendors we do not name. */
const char *ctk_pci_vendor_name(uint16_t vendor);

#endif
