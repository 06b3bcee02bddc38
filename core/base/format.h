/* Formatting of messages (errors, log lines): printf, except that every
 * value a message quotes through a string conversion (%s, %.*s) is cut
 * when it is longer than CTK_VALUE_MAX bytes: its first CTK_VALUE_MAX
 * bytes (never half a UTF-8 character), then "... (N bytes)".  A hostile
 * input (a 1 MiB AMD_VISIBLE_DEVICES) thus makes a short line wherever it
 * is quoted.  A message that is to go into another one whole is not a
 * value: ctk_error_prefix, ctk_error_suffix and ctk_error_set_msg (error.h)
 * and ctk_log_msg (log.h) take it as it is. */
#ifndef CTK_FORMAT_H
#define CTK_FORMAT_H

#include <stdarg.h>
#include <stddef.h>

#define CTK_VALUE_MAX 200

/* fmt with its arguments, string values cut; malloc'ed, NULL on ENOMEM
 * (or for a conversion printf would not take, such as %n). */
char *ctk_format_values(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* The part of s[0..len) a message shows: *shown bytes (len when it is at
 * most CTK_VALUE_MAX, else CTK_VALUE_MAX less a cut UTF-8 character). */
size_t ctk_value_shown(const char *s, size_t len);

/* Ascending numbers as "0-3,5,7-8" (runs of consecutive ones as ranges);
 * malloc'ed, NULL on ENOMEM. */
char *ctk_format_ranges(const size_t *v, size_t n);

#endif
