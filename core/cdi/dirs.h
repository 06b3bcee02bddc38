/* What the CDI spec directories offer, resolved the way CDI runtimes do:
 * directories are read in order (a later one has higher priority), only
 * *.json and *.yaml files directly inside them count, an invalid file is
 * skipped, a device defined at a higher priority replaces one of lower
 * priority, and a device defined twice at the same priority is a conflict
 * that makes it unusable. */
#ifndef CTK_CDI_DIRS_H
#define CTK_CDI_DIRS_H

#include <stddef.h>

#include "core/base/base.h"

#define CTK_CDI_STATIC_DIR  "/etc/cdi"
#define CTK_CDI_DYNAMIC_DIR "/var/run/cdi"

struct ctk_cdi_offer {
        char *name;                /* qualified, "amd.com/gpu=0" */
        char *spec;                /* the file that provides it */
        size_t priority;           /* index of its directory */
        struct ctk_strv overrides; /* files of lower priority that define it too */
};

struct ctk_cdi_conflict {
        char *name;
        struct ctk_strv specs; /* every file that defines it at the conflicting priority */
};

struct ctk_cdi_catalog {
        struct ctk_cdi_offer *offers; /* usable devices, in ctk_cdi_name_cmp order */
        size_t n;
        struct ctk_cdi_conflict *conflicts;
        size_t nconflicts;
        struct ctk_strv problems; /* "path: why it was skipped" */
        struct ctk_strv specs;    /* spec files that were read, in order */
};

/* Reads every spec of dirs (later dirs win) into *out; a spec that cannot be used is a problem line, not an error. */
int ctk_cdi_catalog_scan(const char *const *dirs, size_t ndirs, struct ctk_cdi_catalog *out, struct ctk_error **err);
/* Frees the catalog and zeroes it. */
void ctk_cdi_catalog_clear(struct ctk_cdi_catalog *c);

/* Orders qualified names by kind, then numeric device names by value, then
 * other names by strcmp. */
int ctk_cdi_name_cmp(const char *a, const char *b);

#endif
