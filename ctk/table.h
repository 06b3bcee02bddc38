/* The tables amd-ctk prints (gpu list, gpu list --all-vendors, gpu-tracker
 * status): left-aligned columns at least as wide as asked, a rule above and
 * below the header as long as the longest line, no trailing spaces, and at
 * most CTK_TABLE_WIDTH columns: a last column that would reach further is
 * wrapped at its ", " onto lines of its own. */
#ifndef CTK_TABLE_H
#define CTK_TABLE_H

#include <stddef.h>
#include <stdio.h>

#include "core/base/base.h"

#define CTK_TABLE_WIDTH 100

struct ctk_table {
        size_t ncols;
        const char *const *head; /* the header's cells */
        const size_t *width;     /* the least width of each column but the last, gap included */
        struct ctk_strv cells;   /* the rows' cells, row after row */
};

/* Adds a row of t->ncols cells (copied; NULL is ""); -1 on ENOMEM. */
int ctk_table_add(struct ctk_table *t, const char *const *row);
/* Prints the rule, the header, the rule and the rows; -1 on ENOMEM. */
int ctk_table_print(FILE *f, const struct ctk_table *t);
/* Frees the rows. */
void ctk_table_clear(struct ctk_table *t);

#endif
