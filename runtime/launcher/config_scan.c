#include "config_scan.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/base.h"

/* A cursor over the text. */
struct scan {
        const char *p, *end;
};

static void skip_ws(struct scan *s)
{
        while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
                s->p++;
}

/* Consumes word when the text continues with it. */
static bool eat(struct scan *s, const char *word)
{
        size_t n = strlen(word);
        if ((size_t)(s->end - s->p) < n || memcmp(s->p, word, n) != 0)
                return false;
        s->p += n;
        return true;
}

/* A string at s->p (which is '"'), decoded; NULL outside the subset. */
static char *string(struct scan *s)
{
        if (!eat(s, "\""))
                return NULL;
        char *out = malloc((size_t)(s->end - s->p) + 1), *o = out;
        if (out == NULL)
                return NULL;
        while (s->p < s->end) {
                unsigned char c = (unsigned char)*s->p++;
                if (c == '"') {
                        *o = '\0';
                        return out;
                }
                if (c < 0x20 || c > 0x7e)
                        break; /* control characters (invalid JSON) and non-ASCII */
                if (c == '\\') {
                        if (s->p == s->end)
                                break;
                        static const char decoded[] = {['"'] = '"',  ['\\'] = '\\', ['/'] = '/',  ['b'] = '\b',
                                                       ['f'] = '\f', ['n'] = '\n',  ['r'] = '\r', ['t'] = '\t'};
                        unsigned char e = (unsigned char)*s->p++;
                        if (e >= sizeof(decoded) || decoded[e] == 0)
                                break; /* \u, or not JSON */
                        c = (unsigned char)decoded[e];
                }
                *o++ = (char)c;
        }
        free(out);
        return NULL;
}

/* One member value into *v (strings owned by *strings). */
static bool value(struct scan *s, struct ctk_config_value *v, struct ctk_strv *strings)
{
        *v = (struct ctk_config_value){0};
        if (eat(s, "null")) {
                v->kind = CTK_CONFIG_V_NULL;
                v->type = "null";
        } else if (eat(s, "true") || eat(s, "false")) {
                v->kind = CTK_CONFIG_V_BOOL;
                v->type = "a boolean";
                v->b = s->p[-1] == 'e' && s->p[-2] == 'u'; /* "true", not "false" */
        } else if (s->p < s->end && *s->p == '"') {
                _cleanup_free_ char *str = string(s);
                if (str == NULL || ctk_strv_push(strings, str) < 0)
                        return false;
                v->kind = CTK_CONFIG_V_STRING;
                v->type = "a string";
                v->s = strings->v[strings->n - 1];
        } else if (eat(s, "[")) {
                size_t first = strings->n;
                skip_ws(s);
                if (!eat(s, "]")) {
                        for (;;) {
                                skip_ws(s);
                                _cleanup_free_ char *str = s->p < s->end && *s->p == '"' ? string(s) : NULL;
                                if (str == NULL || ctk_strv_push(strings, str) < 0)
                                        return false;
                                skip_ws(s);
                                if (eat(s, "]"))
                                        break;
                                if (!eat(s, ","))
                                        return false;
                        }
                }
                v->kind = CTK_CONFIG_V_ARRAY;
                v->type = "an array";
                v->n = strings->n - first;
                /* stable: nothing is pushed after */
                v->elems = strings->v != NULL ? (const char *const *)strings->v + first : NULL;
        } else {
                return false;
        }
        return true;
}

/* The members of the object at s->p, set one by one into *c. */
static bool members(struct scan *s, struct ctk_config *c)
{
        _cleanup_strv_ struct ctk_strv keys = {0};
        skip_ws(s);
        if (!eat(s, "{"))
                return false;
        skip_ws(s);
        if (eat(s, "}"))
                return true;
        for (;;) {
                skip_ws(s);
                _cleanup_free_ char *key = s->p < s->end && *s->p == '"' ? string(s) : NULL;
                if (key == NULL)
                        return false;
                for (size_t i = 0; i < keys.n; i++)
                        if (strcmp(keys.v[i], key) == 0)
                                return false; /* jansson rejects duplicate keys */
                if (ctk_strv_push(&keys, key) < 0)
                        return false;
                skip_ws(s);
                if (!eat(s, ":"))
                        return false;
                skip_ws(s);
                _cleanup_strv_ struct ctk_strv strings = {0};
                struct ctk_config_value v;
                if (!value(s, &v, &strings))
                        return false;
                _cleanup_error_ struct ctk_error *err = NULL;
                size_t at;
                if (ctk_config_set(c, key, &v, &at, &err) < 0)
                        return false;
                skip_ws(s);
                if (eat(s, "}"))
                        return true;
                if (!eat(s, ","))
                        return false;
        }
}

int rt_config_scan(const char *text, size_t len, struct ctk_config *out)
{
        _cleanup_config_ struct ctk_config c = {0};
        *out = (struct ctk_config){0};
        if (ctk_config_defaults(&c, NULL) < 0)
                return -1;
        struct scan s = {text, text + len};
        skip_ws(&s);
        if (s.p < s.end) {
                if (!members(&s, &c))
                        return -1;
                skip_ws(&s);
                if (s.p != s.end)
                        return -1;
        }
        _cleanup_error_ struct ctk_error *err = NULL;
        const char *key;
        if (ctk_config_finish(&c, &key, &err) < 0)
                return -1;
        *out = c;
        c = (struct ctk_config){0};
        return 0;
}
