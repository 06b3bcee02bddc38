/* Reading a KFD topology capture: a copy of /sys/class/kfd/kfd/topology
 * (nodes/<n>/properties, optional nodes/<n>/{gpu_id,name}, optional
 * generation_id). */
#ifndef CTK_FAKEFS_KFD_CAPTURE_H
#define CTK_FAKEFS_KFD_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/fakefs/profile.h"
#include "core/base/base.h"

struct ctk_kfd_capture_node {
        int id;
        struct ctk_fakefs_props props; /* in file order; values are decimal digits */
        bool has_gpu_id;
        uint64_t gpu_id;
        char *name; /* NULL without a name file; trailing newline removed */
};

struct ctk_kfd_capture {
        struct ctk_kfd_capture_node *nodes; /* ascending node id */
        size_t n;
        bool has_generation_id;
        uint64_t generation_id;
};

/* Lines are "key value" (CRLF accepted); a malformed line is an error
 * naming file and line. */
int ctk_kfd_capture_read(const char *dir, struct ctk_kfd_capture *out, struct ctk_error **err);
void ctk_kfd_capture_clear(struct ctk_kfd_capture *c);

/* A property as a number; -1 if absent or not a number. */
int ctk_kfd_capture_u64(const struct ctk_kfd_capture_node *n, const char *key, uint64_t *out);

#endif
