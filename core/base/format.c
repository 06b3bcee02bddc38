#include "format.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

struct buf {
        char *p;
        size_t n, cap;
        bool failed;
};

static void put(struct buf *b, const char *s, size_t len)
{
        if (b->failed)
                return;
        if (b->n + len + 1 > b->cap) {
                size_t cap = b->cap > 0 ? b->cap : 128;
                while (cap < b->n + len + 1)
                        cap *= 2;
                char *p = realloc(b->p, cap);
                if (p == NULL) {
                        b->failed = true;
                        return;
                }
                b->p = p;
                b->cap = cap;
        }
        memcpy(b->p + b->n, s, len);
        b->n += len;
        b->p[b->n] = '\0';
}

static void pad(struct buf *b, size_t n)
{
        while (n-- > 0)
                put(b, " ", 1);
}

size_t ctk_value_shown(const char *s, size_t len)
{
        if (len <= CTK_VALUE_MAX)
                return len;
        size_t n = CTK_VALUE_MAX;
        /* back to the first byte of the character the cut falls in */
        while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
                n--;
        return n;
}

/* A string conversion: s (precision prec when >= 0), cut, padded to width. */
static void put_value(struct buf *b, const char *s, int prec, int width, bool left)
{
        if (s == NULL)
                s = "(null)";
        size_t len = prec >= 0 ? strnlen(s, (size_t)prec) : strlen(s);
        size_t shown = ctk_value_shown(s, len);
        char tail[48] = "";
        if (shown < len)
                (void)snprintf(tail, sizeof(tail), "... (%zu bytes)", len);
        size_t total = shown + strlen(tail);
        size_t fill = width > 0 && (size_t)width > total ? (size_t)width - total : 0;
        if (!left)
                pad(b, fill);
        put(b, s, shown);
        put(b, tail, strlen(tail));
        if (left)
                pad(b, fill);
}

/* One conversion other than %s, by printf itself (spec: its text with
 * every '*' replaced by the number, built from a checked format). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
__attribute__((format(printf, 2, 3))) static void put_printf(struct buf *b, const char *spec, ...)
{
        va_list ap;
        va_start(ap, spec);
        char *s = NULL;
        int n = vasprintf(&s, spec, ap);
        va_end(ap);
        if (n < 0) {
                b->failed = true;
                return;
        }
        put(b, s, (size_t)n);
        free(s);
}

enum length { LEN_NONE, LEN_HH, LEN_H, LEN_L, LEN_LL, LEN_J, LEN_Z, LEN_T, LEN_BIG_L };

static enum length parse_length(const char **p)
{
        const char *s = *p;
        enum length l = LEN_NONE;
        if (s[0] == 'h' && s[1] == 'h')
                l = LEN_HH, s += 2;
        else if (s[0] == 'l' && s[1] == 'l')
                l = LEN_LL, s += 2;
        else if (s[0] == 'h')
                l = LEN_H, s++;
        else if (s[0] == 'l')
                l = LEN_L, s++;
        else if (s[0] == 'q')
                l = LEN_LL, s++;
        else if (s[0] == 'j')
                l = LEN_J, s++;
        else if (s[0] == 'z')
                l = LEN_Z, s++;
        else if (s[0] == 't')
                l = LEN_T, s++;
        else if (s[0] == 'L')
                l = LEN_BIG_L, s++;
        *p = s;
        return l;
}

/* An integer argument of length l, as the widest type (the types differ
 * on other ABIs than LP64, where some are the same). */
static intmax_t signed_arg(va_list *ap, enum length l)
{
        // NOLINTBEGIN(bugprone-branch-clone): long, intmax_t, ssize_t and ptrdiff_t are one type on LP64 only
        switch (l) {
        case LEN_LL:
                return va_arg(*ap, long long);
        case LEN_L:
                return va_arg(*ap, long);
        case LEN_J:
                return va_arg(*ap, intmax_t);
        case LEN_Z:
                return va_arg(*ap, ssize_t);
        case LEN_T:
                return va_arg(*ap, ptrdiff_t);
        default: /* int, and what hh and h promote to */
                return va_arg(*ap, int);
        }
        // NOLINTEND(bugprone-branch-clone)
}

static uintmax_t unsigned_arg(va_list *ap, enum length l)
{
        // NOLINTBEGIN(bugprone-branch-clone): as signed_arg's
        switch (l) {
        case LEN_LL:
                return va_arg(*ap, unsigned long long);
        case LEN_L:
                return va_arg(*ap, unsigned long);
        case LEN_J:
                return va_arg(*ap, uintmax_t);
        case LEN_Z:
                return va_arg(*ap, size_t);
        case LEN_T:
                return (uintmax_t)va_arg(*ap, ptrdiff_t);
        default:
                return va_arg(*ap, unsigned int);
        }
        // NOLINTEND(bugprone-branch-clone)
}

/* The number after a '*' or a run of digits at *p; -1 for none. */
static int number_at(const char **p, va_list *ap, bool *given)
{
        *given = false;
        if (**p == '*') {
                (*p)++;
                *given = true;
                return va_arg(*ap, int);
        }
        if (**p < '0' || **p > '9')
                return -1;
        long v = 0;
        while (**p >= '0' && **p <= '9') {
                if (v < 1000000)
                        v = v * 10 + (**p - '0');
                (*p)++;
        }
        *given = true;
        return (int)v;
}

char *ctk_format_values(const char *fmt, va_list ap_in)
{
        struct buf b = {0};
        va_list ap;
        va_copy(ap, ap_in);
        put(&b, "", 0);
        for (const char *p = fmt; *p != '\0' && !b.failed;) {
                const char *pct = strchr(p, '%');
                if (pct == NULL) {
                        put(&b, p, strlen(p));
                        break;
                }
                put(&b, p, (size_t)(pct - p));
                p = pct + 1;
                if (*p == '%') {
                        put(&b, "%", 1);
                        p++;
                        continue;
                }
                char flags[8];
                size_t nflags = 0;
                bool left = false;
                while (*p != '\0' && strchr("-+ #0'", *p) != NULL) {
                        left = left || *p == '-';
                        if (nflags < sizeof(flags) - 1)
                                flags[nflags++] = *p;
                        p++;
                }
                flags[nflags] = '\0';
                bool has_width, has_prec = false;
                int width = number_at(&p, &ap, &has_width), prec = -1;
                if (width < 0 && has_width) { /* printf: a negative '*' width is '-' */
                        left = true;
                        width = -width;
                }
                if (*p == '.') {
                        p++;
                        bool given;
                        prec = number_at(&p, &ap, &given);
                        has_prec = true;
                        if (!given)
                                prec = 0;
                }
                const char *len_at = p;
                enum length l = parse_length(&p);
                char conv = *p;
                if (conv == '\0')
                        break;
                p++;
                /* the conversion for printf, numbers written out */
                char spec[64], wbuf[16] = "", pbuf[16] = "";
                if (has_width && width >= 0)
                        (void)snprintf(wbuf, sizeof(wbuf), "%d", width);
                if (has_prec)
                        (void)snprintf(pbuf, sizeof(pbuf), ".%d", prec < 0 ? 0 : prec);
                bool integer = strchr("diuoxX", conv) != NULL && l != LEN_HH && l != LEN_H;
                (void)snprintf(spec, sizeof(spec), "%%%s%s%s%s%.*s%c", left && strchr(flags, '-') == NULL ? "-" : "",
                               flags, wbuf, pbuf, integer ? 1 : (int)(p - 1 - len_at), integer ? "j" : len_at, conv);
                switch (conv) {
                case 's':
                        put_value(&b, va_arg(ap, const char *), has_prec ? prec : -1, width, left);
                        break;
                case 'c':
                        put_printf(&b, spec, va_arg(ap, int));
                        break;
                case 'd':
                case 'i':
                        if (integer)
                                put_printf(&b, spec, signed_arg(&ap, l));
                        else
                                put_printf(&b, spec, va_arg(ap, int)); /* hh, h: narrowed by printf */
                        break;
                case 'u':
                case 'o':
                case 'x':
                case 'X':
                        if (integer)
                                put_printf(&b, spec, unsigned_arg(&ap, l));
                        else
                                put_printf(&b, spec, va_arg(ap, unsigned int));
                        break;
                case 'e':
                case 'E':
                case 'f':
                case 'F':
                case 'g':
                case 'G':
                case 'a':
                case 'A':
                        if (l == LEN_BIG_L) // NOLINT(bugprone-branch-clone): the branches take arguments of two types
                                put_printf(&b, spec, va_arg(ap, long double));
                        else
                                put_printf(&b, spec, va_arg(ap, double));
                        break;
                case 'p':
                        put_printf(&b, spec, va_arg(ap, void *));
                        break;
                default: /* %n and what printf does not know: refused */
                        b.failed = true;
                        break;
                }
        }
        va_end(ap);
        if (b.failed) {
                free(b.p);
                return NULL;
        }
        return b.p;
}
#pragma GCC diagnostic pop

char *ctk_format_ranges(const size_t *v, size_t n)
{
        char *s = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&s, &len);
        if (f == NULL)
                return NULL;
        for (size_t i = 0; i < n;) {
                size_t j = i;
                while (j + 1 < n && v[j + 1] == v[j] + 1)
                        j++;
                fprintf(f, "%s%zu", i > 0 ? "," : "", v[i]);
                if (j > i)
                        fprintf(f, "-%zu", v[j]);
                i = j + 1;
        }
        if (fclose(f) != 0) {
                free(s);
                return NULL;
        }
        return s;
}
