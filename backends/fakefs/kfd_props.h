/* KFD topology "properties" files: built-in templates and rendering of a
 * template plus overrides plus the keys computed from the device. */
#ifndef CTK_FAKEFS_KFD_PROPS_H
#define CTK_FAKEFS_KFD_PROPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/fakefs/profile.h"
#include "core/base/base.h"

/* Copies of the built-in templates for GPU and CPU nodes. */
int ctk_fakefs_builtin_template(bool gpu, struct ctk_fakefs_props *out);

/* The computed keys of a GPU node. */
struct ctk_fakefs_identity {
        unsigned int vendor_id, device_id, domain;
        uint32_t location_id;
        int render_minor;
        bool has_unique_id;
        uint64_t unique_id;
};

/* Renders "key value\n" lines: the template in order, each key replaced by
 * the last override that names it (keys missing from the template are
 * appended in override order).  With id != NULL, the computed keys take
 * their values from id (placed where the template puts them, appended
 * otherwise; unique_id is left out when the device has none).  Overrides
 * may be NULL. */
int ctk_fakefs_props_render(const struct ctk_fakefs_props *tmpl, const struct ctk_fakefs_props *ov1,
                            const struct ctk_fakefs_props *ov2, const struct ctk_fakefs_props *ov3,
                            const struct ctk_fakefs_identity *id, char **out, size_t *len, struct ctk_error **err);

/* The value of key in props, or NULL. */
const char *ctk_fakefs_props_get(const struct ctk_fakefs_props *p, const char *key);

#endif
