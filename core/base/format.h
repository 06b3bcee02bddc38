/* Values quoted in messages (errors, log lines), cut short: a value longer
 * than CTK_VALUE_MAX bytes is shown as its first CTK_VALUE_MAX bytes
 * (never half a UTF-8 character), then "... (N bytes)".  A hostile input
 * (a 1 MiB AMD_VISIBLE_DEVICES) thus makes a short line wherever it is
 * quoted.  Every message that quotes a value passes it through CTK_CUT
 * (or CTK_CUTN for len bytes that need not end with a NUL) for a "%s":
 *
 *     ctk_error_set(err, EINVAL, "'%s' is not a GPU index", CTK_CUT(token));
 *
 * A message that is to go into another one whole is not a value: it is
 * quoted as it is (ctk_error_set_msg, ctk_error_prefix's "%s"). */
#ifndef CTK_FORMAT_H
#define CTK_FORMAT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#define CTK_VALUE_MAX 200
/* Room for a cut value: CTK_VALUE_MAX bytes, "... (N bytes)", the NUL. */
#define CTK_VALUE_BUF (CTK_VALUE_MAX + 40)

/* s as a message shows it: s itself when it is a string of at most
 * CTK_VALUE_MAX bytes, else its shown part written into buf ("(null)" for
 * NULL).  len: the bytes of s to quote (up to a NUL), SIZE_MAX for all. */
const char *ctk_value_cut(char buf[CTK_VALUE_BUF], const char *s, size_t len);
/* The same with a buffer that lives as long as the enclosing block (the
 * call's statement, for an argument). */
#define CTK_CUT(s)     ctk_value_cut((char[CTK_VALUE_BUF]){""}, (s), SIZE_MAX)
#define CTK_CUTN(s, n) ctk_value_cut((char[CTK_VALUE_BUF]){""}, (s), (n))

/* fmt with its arguments, as vasprintf; malloc'ed, NULL on ENOMEM. */
char *ctk_vformat(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* Ascending numbers as "0-3,5,7-8" (runs of consecutive ones as ranges);
 * malloc'ed, NULL on ENOMEM. */
char *ctk_format_ranges(const size_t *v, size_t n);

#endif
