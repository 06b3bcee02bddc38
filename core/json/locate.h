/* Positions of values inside JSON text.
 *
 * jansson reports positions for syntax errors but keeps none for the values
 * of a parsed document.  ctk_json_locate() rescans the (already valid) text
 * to find where a value, named by a path of object keys and array indices,
 * starts, so that checks on the parsed document can report file:line:column. */
#ifndef CTK_JSON_LOCATE_H
#define CTK_JSON_LOCATE_H

#include <stddef.h>

/* One step of a path: an object member (key != NULL) or an array element. */
struct ctk_json_step {
        const char *key;
        size_t index;
};

struct ctk_json_pos {
        int line;   /* 1-based */
        int column; /* 1-based, in bytes */
};

/* Finds the position of the value at `path` (depth steps) in text.  For a
 * member the position of its key is returned, for an element that of the
 * element, for depth 0 that of the root value.  Keys are matched exactly,
 * failing that without regard to ASCII case.  Returns 0, or -1 when the path
 * does not exist or the text is not valid JSON. */
int ctk_json_locate(const char *text, size_t len, const struct ctk_json_step *path, size_t depth,
                    struct ctk_json_pos *out);

#endif
