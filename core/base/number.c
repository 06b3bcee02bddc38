#include "number.h"

#include <errno.h>

int ctk_parse_u64_dec(const char *s, size_t len, uint64_t max, uint64_t *out)
{
        if (len == 0)
                return -EINVAL;
        uint64_t v = 0;
        int overflow = 0;
        for (size_t i = 0; i < len; i++) {
                if (s[i] < '0' || s[i] > '9')
                        return -EINVAL;
                unsigned d = (unsigned)(s[i] - '0');
                if (v > (UINT64_MAX - d) / 10)
                        overflow = 1;
                else
                        v = v * 10 + d;
        }
        if (overflow || v > max)
                return -ERANGE;
        *out = v;
        return 0;
}

static int hexval(char c)
{
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
                return c - 'A' + 10;
        return -1;
}

int ctk_parse_u64_hex(const char *s, size_t len, int allow_prefix, uint64_t max, uint64_t *out)
{
        if (allow_prefix && len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
                s += 2;
                len -= 2;
        }
        if (len == 0)
                return -EINVAL;
        uint64_t v = 0;
        int overflow = 0;
        for (size_t i = 0; i < len; i++) {
                int d = hexval(s[i]);
                if (d < 0)
                        return -EINVAL;
                if (v >> 60)
                        overflow = 1;
                else
                        v = (v << 4) | (uint64_t)d;
        }
        if (overflow || v > max)
                return -ERANGE;
        *out = v;
        return 0;
}
