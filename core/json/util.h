/* Small helpers for JSON documents we read with jansson. */
#ifndef CTK_JSON_UTIL_H
#define CTK_JSON_UTIL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

static inline void ctk_json_decrefp(json_t **j)
{
        json_decref(*j);
}
#define _cleanup_json_ __attribute__((cleanup(ctk_json_decrefp)))

/* The name of a JSON type for messages: "an object", "an array", "a
 * string", "an integer", "a number" (real), "a boolean" or "null". */
const char *ctk_json_kind_name(json_type t);

/* "an object", "an array", "a string", "a number", "a boolean" or "null". */
const char *ctk_json_type_name(const json_t *v);

/* The same, but "an integer" or "a number with a fraction or exponent" for
 * numbers (for messages about a field that wants an integer). */
const char *ctk_json_type_name_exact(const json_t *v);

/* s as a JSON string, bytes that are not part of valid UTF-8 each written
 * as U+FFFD (json_string refuses them); NULL on ENOMEM. */
json_t *ctk_json_string_lossy(const char *s);

/* True if text holds only JSON whitespace (an empty file). */
bool ctk_json_text_is_blank(const char *text, size_t len);

#endif
