#include "utf8.h"

size_t ctk_utf8_len(const unsigned char *s, size_t avail)
{
        size_t n;
        unsigned int min;
        if (s[0] >= 0xc2 && s[0] <= 0xdf) {
                n = 2;
                min = 0x80;
        } else if (s[0] >= 0xe0 && s[0] <= 0xef) {
                n = 3;
                min = 0x800;
        } else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
                n = 4;
                min = 0x10000;
        } else {
                return 0;
        }
        if (n > avail)
                return 0;
        unsigned int cp = s[0] & (0x7f >> n);
        for (size_t i = 1; i < n; i++) {
                if ((s[i] & 0xc0) != 0x80)
                        return 0;
                cp = (cp << 6) | (s[i] & 0x3f);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
                return 0;
        return n;
}

size_t ctk_utf8_invalid_at(const char *s, size_t len)
{
        const unsigned char *u = (const unsigned char *)s;
        for (size_t i = 0; i < len;) {
                if (u[i] < 0x80) {
                        i++;
                        continue;
                }
                size_t n = ctk_utf8_len(u + i, len - i);
                if (n == 0)
                        return i;
                i += n;
        }
        return len;
}
