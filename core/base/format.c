#include "format.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *ctk_value_cut(char buf[CTK_VALUE_BUF], const char *s, size_t len)
{
        if (s == NULL)
                return "(null)";
        bool whole = len == SIZE_MAX;
        len = whole ? strlen(s) : strnlen(s, len);
        if (whole && len <= CTK_VALUE_MAX)
                return s;
        size_t shown = len;
        if (len > CTK_VALUE_MAX) /* back to the first byte of the character the cut falls in */
                for (shown = CTK_VALUE_MAX; shown > 0 && ((unsigned char)s[shown] & 0xc0) == 0x80;)
                        shown--;
        memcpy(buf, s, shown);
        buf[shown] = '\0';
        if (shown < len)
                (void)snprintf(buf + shown, CTK_VALUE_BUF - shown, "... (%zu bytes)", len);
        return buf;
}

char *ctk_vformat(const char *fmt, va_list ap)
{
        char *s = NULL;
        return vasprintf(&s, fmt, ap) < 0 ? NULL : s;
}

char *ctk_format_ranges(const size_t *v, size_t n)
{
        char *s = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&s, &len);
        if (f == NULL)
                return NULL;
        for (size_t i = 0; i < n;) {
                size_t j = i;
                while (j + 1 < n && v[j + 1] == v[j] + 1)
                        j++;
                fprintf(f, "%s%zu", i > 0 ? "," : "", v[i]);
                if (j > i)
                        fprintf(f, "-%zu", v[j]);
                i = j + 1;
        }
        if (fclose(f) != 0) {
                free(s);
                return NULL;
        }
        return s;
}
