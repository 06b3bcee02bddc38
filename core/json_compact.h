/* A fast compact JSON encoder for jansson documents.  Its output is byte for
 * byte what json_dumps(j, JSON_COMPACT) gives (object members in their
 * order, UTF-8 kept, control characters escaped), at a fraction of the cost:
 * the runtime encodes a whole container spec on the container start path. */
#ifndef CTK_JSON_COMPACT_H
#define CTK_JSON_COMPACT_H

#include <jansson.h>
#include <stddef.h>

/* NUL-terminated, malloc'ed; *len (if not NULL) excludes the NUL.  NULL on
 * ENOMEM or for a document nesting deeper than jansson would accept. */
char *ctk_json_compact(const json_t *j, size_t *len);

#endif
