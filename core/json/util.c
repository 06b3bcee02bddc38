#include "util.h"

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
