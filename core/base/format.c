#include "format.h"

#include <stdbool.h>
#include <stdio.h>
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
