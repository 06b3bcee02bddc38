/* Output of `amd-ctk gpu-tracker` (ctk/cmd_tracker.c), built whole before
 * printing so that an error never leaves partial output. */
#ifndef CTK_TRACKER_PRINT_H
#define CTK_TRACKER_PRINT_H

#include <stddef.h>

#include "core/tracker/tracker.h"

/* Container ids longer than the table's last column are shown by this many
 * first characters (Docker's short id, as `docker ps` shows it). */
#define CTK_TRACKER_SHORT_ID 12

/* The status table of the GPU tracker document, within 100 columns: its
 * columns (GPU Id, UUID, Accessibility, Container Ids at 0, 10, 35, 55) and
 * words, one line per container of a GPU, "-" for none; rules as long as the
 * longest line, no trailing spaces; container ids that would reach past 100
 * columns shortened to CTK_TRACKER_SHORT_ID characters.  NULL on ENOMEM. */
char *ctk_tracker_status_table(const struct ctk_tracker_state *st);

/* {"enabled": bool, "gpus": [{"index", "uuid" ("0x..." or null),
 * "accessibility" ("shared"|"exclusive"), "containers": [ids]}]}, indented,
 * with a final newline.  A disabled tracker has no GPUs. */
char *ctk_tracker_status_json(const struct ctk_tracker_state *st);

/* "[1 2 3]" (Go's fmt of an int slice). */
char *ctk_tracker_format_indices(const size_t *idx, size_t n);

#endif
