/* A fast compact JSON encoder for jansson documents.  Its output is byte for
 * byte what json_dumps(j, JSON_COMPACT) gives (object members in their
 * order, UTF-8 kept, control characters escaped), at a fraction of the cost:
 * the runtime encodes a whole container spec on the container start path. */
#ifndef CTK_JSON_COMPACT_H
#define CTK_JSON_COMPACT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "json_text.h"

/* NUL-terminated, malloc'ed; *len (if not NULL) excludes the NUL.  NULL on
 * ENOMEM or for a document nesting deeper than jansson would accept. */
char *ctk_json_compact(const json_t *j, size_t *len);

/* Elements to add to an array of the document as it is encoded: text is
 * compact JSON of one or more elements separated by commas ("{..},{..}"),
 * written after the array's own elements.  Lets a caller add hundreds of
 * entries without building (and freeing) a jansson value for each. */
struct ctk_json_extra {
        const json_t *array;
        const char *text;
        size_t len;
};

/* ctk_json_compact with extra elements; NULL also when the array of an
 * extra with text is not reached in j (the text would be lost). */
char *ctk_json_compact_extra(const json_t *j, const struct ctk_json_extra *extra, size_t nextra, size_t *len);

/* Writing such extras into a struct ctk_json_out (json_text.h) with the
 * encoder's own rules for strings (escaped as jansson does; s[len] must be
 * '\0', as ctk_json_out_quote says) and integers. */
void ctk_json_out_raw(struct ctk_json_out *b, const char *s, size_t len);
void ctk_json_out_string(struct ctk_json_out *b, const char *s, size_t len);
void ctk_json_out_integer(struct ctk_json_out *b, json_int_t v);

#endif
