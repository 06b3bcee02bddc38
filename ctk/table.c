#include "table.h"

#include <stdlib.h>
#include <string.h>

int ctk_table_add(struct ctk_table *t, const char *const *row)
{
        for (size_t c = 0; c < t->ncols; c++)
                if (ctk_strv_push(&t->cells, row[c] != NULL ? row[c] : "") < 0)
                        return -1;
        return 0;
}

void ctk_table_clear(struct ctk_table *t)
{
        ctk_strv_clear(&t->cells);
}

/* One row: the columns padded, the last wrapped at ", " past the width
 * (the blanks that end a line are taken off by the caller). */
static void row(FILE *f, const struct ctk_table *t, const size_t *width, const char *const *cells)
{
        size_t col = 0;
        for (size_t c = 0; c + 1 < t->ncols; c++) {
                (void)fprintf(f, "%-*s", (int)width[c], cells[c]);
                col += width[c] > strlen(cells[c]) ? width[c] : strlen(cells[c]);
        }
        const char *last = cells[t->ncols - 1];
        size_t room = CTK_TABLE_WIDTH > col ? CTK_TABLE_WIDTH - col : 0;
        while (strlen(last) > room) {
                /* the longest run of ", "-separated items that fits */
                const char *cut = NULL;
                for (const char *p = strstr(last, ", "); p != NULL && (size_t)(p - last) <= room;
                     p = strstr(p + 2, ", "))
                        cut = p;
                if (cut == NULL)
                        break;
                (void)fprintf(f, "%.*s,\n%*s", (int)(cut - last), last, (int)col, "");
                last = cut + 2;
        }
        (void)fprintf(f, "%s\n", last);
}

int ctk_table_print(FILE *out, const struct ctk_table *t)
{
        size_t n = t->cells.n / t->ncols;
        _cleanup_free_ size_t *width = calloc(t->ncols, sizeof(*width));
        if (width == NULL)
                return -1;
        for (size_t c = 0; c + 1 < t->ncols; c++) {
                width[c] = t->width[c];
                for (size_t r = 0; r <= n; r++) {
                        const char *cell = r == 0 ? t->head[c] : t->cells.v[(r - 1) * t->ncols + c];
                        if (strlen(cell) + 2 > width[c])
                                width[c] = strlen(cell) + 2;
                }
        }
        /* the lines, then without trailing blanks, with the rules */
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        if (f == NULL)
                return -1;
        for (size_t r = 0; r <= n; r++)
                row(f, t, width, r == 0 ? t->head : (const char *const *)&t->cells.v[(r - 1) * t->ncols]);
        if (fclose(f) != 0)
                return -1;
        size_t longest = 0;
        for (char *l = text; *l != '\0';) {
                char *nl = strchr(l, '\n');
                char *end = nl;
                while (end > l && end[-1] == ' ')
                        end--;
                memmove(end, nl, strlen(nl) + 1);
                if ((size_t)(end - l) > longest)
                        longest = (size_t)(end - l);
                l = end + 1;
        }
        char rule[CTK_TABLE_WIDTH + 1];
        memset(rule, '-', sizeof(rule) - 1);
        size_t rl = longest < CTK_TABLE_WIDTH ? longest : CTK_TABLE_WIDTH;
        char *first_nl = strchr(text, '\n');
        (void)fprintf(out, "%.*s\n%.*s\n%.*s\n%s", (int)rl, rule, (int)(first_nl - text), text, (int)rl, rule,
                      first_nl + 1);
        return 0;
}
