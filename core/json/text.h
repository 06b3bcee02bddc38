/* Writing JSON text by hand: a growable output buffer and JSON string
 * escaping. */
#ifndef CTK_JSON_TEXT_H
#define CTK_JSON_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* A growing text buffer; failed is set (and stays set) when memory runs
 * out, later writes are then dropped.  Start it zeroed; free(p) when done
 * (or take it with ctk_json_out_finish). */
struct ctk_json_out {
        char *p;
        size_t n, cap;
        bool failed;
};

/* Makes room for more bytes and a final NUL; false after ENOMEM. */
bool ctk_json_out_reserve(struct ctk_json_out *o, size_t more);

/* Room for more bytes and a final NUL, the buffer grown when needed. */
static inline bool ctk_json_out_room(struct ctk_json_out *o, size_t more)
{
        return (o->p != NULL && o->cap - o->n > more) || ctk_json_out_reserve(o, more);
}

static inline void ctk_json_out_put(struct ctk_json_out *o, const char *s, size_t len)
{
        if (!ctk_json_out_room(o, len))
                return;
        memcpy(o->p + o->n, s, len);
        o->n += len;
}

static inline void ctk_json_out_putc(struct ctk_json_out *o, char c)
{
        if (!ctk_json_out_room(o, 1))
                return;
        o->p[o->n++] = c;
}

static inline void ctk_json_out_puts(struct ctk_json_out *o, const char *s)
{
        ctk_json_out_put(o, s, strlen(s));
}

/* Decimal digits of v. */
static inline void ctk_json_out_uint(struct ctk_json_out *o, unsigned long long v)
{
        char buf[24], *e = buf + sizeof(buf), *p = e;
        do {
                *--p = (char)('0' + v % 10);
                v /= 10;
        } while (v != 0);
        ctk_json_out_put(o, p, (size_t)(e - p));
}

/* How ctk_json_out_quote writes what needs more than the byte itself.
 * Always: '"' and '\\' with a backslash, the other bytes below 0x20 as
 * \u00xx, everything else (DEL and '/' included) as it is. */
enum {
        /* \b \f \n \r \t rather than \u00xx */
        CTK_JSON_ESC_SHORT = 1 << 0,
        /* \u001B rather than \u001b */
        CTK_JSON_ESC_UPPER_HEX = 1 << 1,
        /* as json_dumps writes strings */
        CTK_JSON_ESC_JANSSON = CTK_JSON_ESC_SHORT | CTK_JSON_ESC_UPPER_HEX,
};

/* Bytes written as they are: all but '"', '\\' and controls. */
extern const bool ctk_json_out_plain[256];

/* From at, the first byte of str to escape, to end (NULL: str's NUL). */
void ctk_json_out_quote_rest(struct ctk_json_out *o, const char *str, const char *at, const char *end,
                             unsigned int flags);

/* The first byte from s on that is not written as it is. */
static inline const char *ctk_json_out_plain_end(const char *s)
{
        const unsigned char *p = (const unsigned char *)s;
        while (ctk_json_out_plain[*p]) /* stops at the NUL at the latest */
                p++;
        return (const char *)p;
}

/* "s" for len bytes that need no escaping: one copy (most strings). */
static inline void ctk_json_out_quote_plain(struct ctk_json_out *o, const char *s, size_t len)
{
        if (!ctk_json_out_room(o, len + 2))
                return;
        char *d = o->p + o->n;
        d[0] = '"';
        memcpy(d + 1, s, len);
        d[len + 1] = '"';
        o->n += len + 2;
}

/* The len bytes at s as a JSON string, quotes included.  s[len] must be
 * '\0' (as in C strings and jansson's; NULs before it are escaped). */
static inline void ctk_json_out_quote(struct ctk_json_out *o, const char *s, size_t len, unsigned int flags)
{
        const char *at = ctk_json_out_plain_end(s);
        if (at == s + len)
                ctk_json_out_quote_plain(o, s, len);
        else
                ctk_json_out_quote_rest(o, s, at, s + len, flags);
}

/* The same for the C string s. */
static inline void ctk_json_out_quote_str(struct ctk_json_out *o, const char *s, unsigned int flags)
{
        const char *at = ctk_json_out_plain_end(s);
        if (*at == '\0')
                ctk_json_out_quote_plain(o, s, (size_t)(at - s));
        else
                ctk_json_out_quote_rest(o, s, at, NULL, flags);
}

/* The text, NUL-terminated (*len, if not NULL, without the NUL); NULL
 * after ENOMEM, the buffer freed either way. */
char *ctk_json_out_finish(struct ctk_json_out *o, size_t *len);

#endif
