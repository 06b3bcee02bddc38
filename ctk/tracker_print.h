/* Output of `amd-ctk gpu-tracker` (ctk/cmd_tracker.c), built whole before
 * printing so that an error never leaves partial output. */
#ifndef CTK_TRACKER_PRINT_H
#define CTK_TRACKER_PRINT_H

#include <stddef.h>

#include "core/tracker/tracker.h"

/* The status table exactly as the Go toolkit prints it (column widths 10,
 * 25, 20, 65 with trailing spaces; one line per container of a GPU; "-" for
 * none).  NULL on ENOMEM. */
char *ctk_tracker_status_table(const struct ctk_tracker_state *st);

/* {"enabled": bool, "gpus": [{"index", "uuid" ("0x..." or null),
 * "accessibility" ("shared"|"exclusive"), "containers": [ids]}]}, indented,
 * with a final newline.  A disabled tracker has no GPUs. */
char *ctk_tracker_status_json(const struct ctk_tracker_state *st);

/* "[1 2 3]" (Go's fmt of an int slice). */
char *ctk_tracker_format_indices(const size_t *idx, size_t n);

#endif
