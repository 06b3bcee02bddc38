/* UTF-8: how long a valid sequence is, where text stops being UTF-8. */
#ifndef CTK_UTF8_H
#define CTK_UTF8_H

#include <stddef.h>

/* Length of the valid UTF-8 sequence at s (avail bytes there, at least 1)
 * of a character above U+007F, or 0 (an ASCII byte, a stray continuation
 * byte, an overlong form, a surrogate, beyond U+10FFFF, cut short). */
size_t ctk_utf8_len(const unsigned char *s, size_t avail);

/* The offset of the first byte of s[0..len) that is not part of valid
 * UTF-8 (ASCII included), or len. */
size_t ctk_utf8_invalid_at(const char *s, size_t len);

#endif
