#include "spec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int ctk_oci_spec_parse(const char *data, size_t len, const char *name, json_t **out, struct ctk_error **err)
{
        json_error_t jerr;
        json_t *doc = json_loadb(data, len, JSON_DECODE_ANY, &jerr);
        *out = NULL;
        if (doc == NULL)
                return ctk_error_set(err, EINVAL, "%s:%d:%d: %s", name, jerr.line, jerr.column, jerr.text);
        if (!json_is_object(doc)) {
                json_decref(doc);
                return ctk_error_set(err, EINVAL, "%s: the spec is not a JSON object", name);
        }
        *out = doc;
        return 0;
}

char *ctk_oci_spec_encode(const json_t *spec, size_t *len)
{
        char *s = json_dumps(spec, JSON_COMPACT);
        if (s == NULL)
                return NULL;
        size_t n = strlen(s);
        char *t = realloc(s, n + 2);
        if (t == NULL) {
                free(s);
                return NULL;
        }
        t[n] = '\n';
        t[n + 1] = '\0';
        if (len != NULL)
                *len = n + 1;
        return t;
}
