#include "text.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/base.h"

bool ctk_json_out_reserve(struct ctk_json_out *o, size_t more)
{
        if (o->failed)
                return false;
        if (o->n + more + 1 <= o->cap)
                return true;
        size_t cap = o->cap != 0 ? o->cap : 4096;
        while (cap < o->n + more + 1)
                cap *= 2;
        char *p = realloc(o->p, cap);
        if (p == NULL) {
                o->failed = true;
                return false;
        }
        o->p = p;
        o->cap = cap;
        return true;
}

/* A control character c (< 0x20). */
static void put_control(struct ctk_json_out *o, unsigned char c, unsigned int flags)
{
        static const char short_esc[0x20] = {['\b'] = 'b', ['\f'] = 'f', ['\n'] = 'n', ['\r'] = 'r', ['\t'] = 't'};
        if ((flags & CTK_JSON_ESC_SHORT) && short_esc[c] != 0) {
                char esc[2] = {'\\', short_esc[c]};
                ctk_json_out_put(o, esc, 2);
                return;
        }
        const char *hex = (flags & CTK_JSON_ESC_UPPER_HEX) ? "0123456789ABCDEF" : "0123456789abcdef";
        char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 0xf]};
        ctk_json_out_put(o, esc, 6);
}

const bool ctk_json_out_plain[256] = {[0x20 ... 0x21] = true, [0x23 ... 0x5b] = true, [0x5d ... 0xff] = true};

void ctk_json_out_quote_rest(struct ctk_json_out *o, const char *str, const char *at, const char *end_,
                             unsigned int flags)
{
        const unsigned char *s = (const unsigned char *)at, *run = (const unsigned char *)str;
        const unsigned char *end = (const unsigned char *)(end_ != NULL ? end_ : at + strlen(at));
        ctk_json_out_putc(o, '"');
        for (;;) {
                ctk_json_out_put(o, (const char *)run, (size_t)(s - run));
                if (s == end)
                        break;
                if (*s == '"' || *s == '\\') {
                        char esc[2] = {'\\', (char)*s++};
                        ctk_json_out_put(o, esc, 2);
                } else {
                        put_control(o, *s++, flags); /* (< 0x20: the only other bytes not plain) */
                }
                run = s;
                while (ctk_json_out_plain[*s]) /* stops at the final NUL */
                        s++;
        }
        ctk_json_out_putc(o, '"');
}

char *ctk_json_out_finish(struct ctk_json_out *o, size_t *len)
{
        if (!ctk_json_out_reserve(o, 0)) {
                free(o->p);
                o->p = NULL;
                return NULL;
        }
        o->p[o->n] = '\0';
        if (len != NULL)
                *len = o->n;
        char *p = o->p;
        o->p = NULL;
        return p;
}
