#include "backends/fakefs/profile_json.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/base.h"

int ctk_pj_fail(struct ctk_pj *c, const char *where, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        _cleanup_free_ char *msg = ctk_vformat(fmt, ap);
        va_end(ap);
        ctk_error_set_msg(c->err, EINVAL, msg != NULL ? msg : "invalid");
        if (where != NULL && where[0] != '\0')
                ctk_error_prefix(c->err, "%s", CTK_CUT(where));
        return ctk_error_prefix(c->err, "%s", CTK_CUT(c->file));
}

char *ctk_pj_at(const char *where, const char *key)
{
        char *s = NULL;
        if (asprintf(&s, "%s%s%s", where, where[0] != '\0' ? "." : "", key) < 0)
                return NULL;
        return s;
}

char *ctk_pj_at_index(const char *where, size_t i)
{
        char *s = NULL;
        if (asprintf(&s, "%s[%zu]", where, i) < 0)
                return NULL;
        return s;
}

int ctk_pj_object(struct ctk_pj *c, json_t *v, const char *where)
{
        if (!json_is_object(v))
                return ctk_pj_fail(c, where, "expected an object");
        return 0;
}

int ctk_pj_check_keys(struct ctk_pj *c, json_t *obj, const char *where, const char *const *known)
{
        const char *key;
        json_t *v;
        json_object_foreach(obj, key, v)
        {
                bool ok = false;
                for (size_t i = 0; known[i] != NULL && !ok; i++)
                        ok = strcmp(key, known[i]) == 0;
                if (ok)
                        continue;
                _cleanup_free_ char *list = NULL;
                size_t size = 0;
                FILE *f = open_memstream(&list, &size);
                if (f != NULL) {
                        for (size_t i = 0; known[i] != NULL; i++)
                                fprintf(f, "%s%s", i ? ", " : "", known[i]);
                        if (fclose(f) != 0) {
                                free(list);
                                list = NULL;
                        }
                }
                return ctk_pj_fail(c, where, "unknown key \"%s\" (known keys: %s)", key,
                                   CTK_CUT(list != NULL ? list : "?"));
        }
        return 0;
}

static json_t *get(json_t *obj, const char *key, bool *present)
{
        json_t *v = json_object_get(obj, key);
        if (v != NULL && json_is_null(v))
                v = NULL;
        if (present != NULL)
                *present = v != NULL;
        return v;
}

static int missing(struct ctk_pj *c, const char *where, const char *key)
{
        return ctk_pj_fail(c, where, "missing required key \"%s\"", key);
}

int ctk_pj_string(struct ctk_pj *c, json_t *obj, const char *where, const char *key, bool required, const char **out)
{
        json_t *v = get(obj, key, NULL);
        if (v == NULL)
                return required ? missing(c, where, key) : 0;
        if (!json_is_string(v))
                return ctk_pj_fail(c, where, "\"%s\" must be a string", key);
        *out = json_string_value(v);
        return 0;
}

int ctk_pj_bool(struct ctk_pj *c, json_t *obj, const char *where, const char *key, bool *out)
{
        json_t *v = get(obj, key, NULL);
        if (v == NULL)
                return 0;
        if (!json_is_boolean(v))
                return ctk_pj_fail(c, where, "\"%s\" must be true or false", key);
        *out = json_is_true(v);
        return 0;
}

int ctk_pj_uint(struct ctk_pj *c, json_t *obj, const char *where, const char *key, bool required, uint64_t max,
                uint64_t *out, bool *present)
{
        json_t *v = get(obj, key, present);
        if (v == NULL)
                return required ? missing(c, where, key) : 0;
        if (!json_is_integer(v) || json_integer_value(v) < 0 || (uint64_t)json_integer_value(v) > max)
                return ctk_pj_fail(c, where, "\"%s\" must be an integer from 0 to %" PRIu64, key, max);
        *out = (uint64_t)json_integer_value(v);
        return 0;
}

int ctk_pj_hex(struct ctk_pj *c, json_t *obj, const char *where, const char *key, uint64_t max, uint64_t *out,
               bool *present)
{
        json_t *v = get(obj, key, present);
        if (v == NULL)
                return 0;
        uint64_t n;
        if (json_is_integer(v) && json_integer_value(v) >= 0) {
                n = (uint64_t)json_integer_value(v);
        } else if (json_is_string(v)) {
                const char *s = json_string_value(v);
                if ((s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) ||
                    ctk_parse_u64_hex(s, strlen(s), 1, UINT64_MAX, &n) < 0)
                        return ctk_pj_fail(c, where, "\"%s\" must be a hexadecimal number like \"0x%" PRIx64 "\"", key,
                                           max);
        } else {
                return ctk_pj_fail(c, where, "\"%s\" must be a hexadecimal string", key);
        }
        if (n > max)
                return ctk_pj_fail(c, where, "\"%s\" is larger than 0x%" PRIx64, key, max);
        *out = n;
        return 0;
}

int ctk_pj_u64_id(struct ctk_pj *c, json_t *obj, const char *where, const char *key, uint64_t *out, bool *present)
{
        json_t *v = get(obj, key, present);
        if (v == NULL)
                return 0;
        if (json_is_integer(v) && json_integer_value(v) >= 0) {
                *out = (uint64_t)json_integer_value(v);
                return 0;
        }
        if (json_is_string(v)) {
                const char *s = json_string_value(v);
                bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
                if ((hex ? ctk_parse_u64_hex(s, strlen(s), 1, UINT64_MAX, out)
                         : ctk_parse_u64_dec(s, strlen(s), UINT64_MAX, out)) == 0)
                        return 0;
        }
        return ctk_pj_fail(c, where, "\"%s\" must be a 64-bit id: \"0x\" and up to 16 hex digits, or decimal", key);
}

int ctk_pj_mode(struct ctk_pj *c, json_t *obj, const char *where, const char *key, mode_t *out)
{
        json_t *v = get(obj, key, NULL);
        if (v == NULL)
                return 0;
        const char *s = json_is_string(v) ? json_string_value(v) : "";
        uint64_t m = 0;
        size_t n = strlen(s);
        bool ok = n >= 1 && n <= 5;
        for (size_t i = 0; i < n && ok; i++) {
                ok = s[i] >= '0' && s[i] <= '7';
                m = m * 8 + (uint64_t)(s[i] - '0');
        }
        if (!ok || m > 07777)
                return ctk_pj_fail(c, where, "\"%s\" must be an octal string like \"0660\"", key);
        *out = (mode_t)m;
        return 0;
}
