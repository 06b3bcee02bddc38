/* Strict number parsing: no sign, no whitespace, no trailing garbage, range
 * checked.  Used for sysfs attributes, topology properties and CLI values. */
#ifndef CTK_NUMBER_H
#define CTK_NUMBER_H

#include <stddef.h>
#include <stdint.h>

/* Parses s[0..len) as unsigned decimal digits (leading zeros are decimal,
 * "0123" == 123) with value <= max.
 * Returns 0, -EINVAL when it is not a decimal number, -ERANGE when > max. */
int ctk_parse_u64_dec(const char *s, size_t len, uint64_t max, uint64_t *out);

/* Same for hexadecimal digits (any case), with an optional 0x/0X prefix when
 * allow_prefix is set. */
int ctk_parse_u64_hex(const char *s, size_t len, int allow_prefix, uint64_t max, uint64_t *out);

#endif
