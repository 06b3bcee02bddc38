/* GPU UUIDs: the KFD unique_id, shown as "0x" + upper-case hex. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "gpu.h"
#include "core/base/base.h"

int ctk_uuid_parse(const char *s, uint64_t *out)
{
        if (s == NULL)
                return -1;
        size_t len = strlen(s);
        if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
                s += 2;
                len -= 2;
        }
        if (len == 0)
                return -1;
        /* Leading zeros are padding; at most 16 significant digits remain. */
        while (len > 1 && s[0] == '0') {
                s++;
                len--;
        }
        if (len > 16)
                return -1;
        return ctk_parse_u64_hex(s, len, 0, UINT64_MAX, out) < 0 ? -1 : 0;
}

void ctk_uuid_format(uint64_t uuid, char buf[CTK_UUID_STRLEN])
{
        (void)snprintf(buf, CTK_UUID_STRLEN, "0x%" PRIX64, uuid);
}
