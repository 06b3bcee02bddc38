/* KFD topology capture -> host profile (JSON text).
 *
 * GPU nodes (drm_render_minor > 0) are grouped into physical GPUs by domain
 * and the bus/device bits of location_id; a GPU's PCI address is
 * domain:bus:device.0.  Partitions are kept as captured (KFD node, render
 * minor, gpu_id, differing properties); card minors are render - 128.  The
 * partition mode is inferred from the partitions per GPU and num_xcc of
 * each (XCDs = partitions x num_xcc rounded up to a power of two; one
 * partition = SPX, one per XCD = CPX, else 2 = DPX, 4 = QPX).  gfx 9.4.x
 * GPUs (MI300 family) and every GPU with several partitions get partition
 * support.  Node properties are stored as one template per device plus the
 * differences, so materializing the profile reproduces the captured
 * properties files. */
#ifndef CTK_FAKEFS_IMPORT_H
#define CTK_FAKEFS_IMPORT_H

#include "core/base/base.h"

struct ctk_fakefs_import_opts {
        const char *name;        /* profile name; NULL: the capture directory's base name */
        const char *description; /* NULL: "KFD topology capture <base name>" */
};

/* *json_out: the profile, indented JSON ending in a newline. */
int ctk_fakefs_import_kfd(const char *capture_dir, const struct ctk_fakefs_import_opts *opts, char **json_out,
                          struct ctk_error **err);

#endif
