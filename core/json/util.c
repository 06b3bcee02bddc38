#include "util.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/base.h"

const char *ctk_json_kind_name(json_type t)
{
        switch (t) {
        case JSON_OBJECT:
                return "an object";
        case JSON_ARRAY:
                return "an array";
        case JSON_STRING:
                return "a string";
        case JSON_INTEGER:
                return "an integer";
        case JSON_REAL:
                return "a number";
        case JSON_TRUE:
        case JSON_FALSE:
                return "a boolean";
        case JSON_NULL:
                return "null";
        }
        return "a value";
}

const char *ctk_json_type_name(const json_t *v)
{
        if (v == NULL)
                return "nothing";
        return json_is_integer(v) ? "a number" : ctk_json_kind_name(json_typeof(v));
}

const char *ctk_json_type_name_exact(const json_t *v)
{
        if (json_is_integer(v))
                return "an integer";
        if (json_is_real(v))
                return "a number with a fraction or exponent";
        return ctk_json_type_name(v);
}

bool ctk_json_text_is_blank(const char *text, size_t len)
{
        for (size_t i = 0; i < len; i++)
                if (text[i] != ' ' && text[i] != '\t' && text[i] != '\n' && text[i] != '\r')
                        return false;
        return true;
}

json_t *ctk_json_string_lossy(const char *s)
{
        size_t len = strlen(s), at = ctk_utf8_invalid_at(s, len);
        if (at == len)
                return json_stringn_nocheck(s, len);
        _cleanup_free_ char *fixed = malloc(3 * len + 1); /* a byte becomes 3 at most */
        if (fixed == NULL)
                return NULL;
        const unsigned char *u = (const unsigned char *)s;
        size_t n = 0;
        for (size_t i = 0; i < len;) {
                size_t k = u[i] < 0x80 ? 1 : ctk_utf8_len(u + i, len - i);
                if (k == 0) { /* U+FFFD */
                        fixed[n++] = '\xef';
                        fixed[n++] = '\xbf';
                        fixed[n++] = '\xbd';
                        i++;
                        continue;
                }
                memcpy(fixed + n, s + i, k);
                n += k;
                i += k;
        }
        return json_stringn_nocheck(fixed, n);
}
