#include "error.h"
#include "format.h"

#include <errno.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#undef ctk_error_set /* the functions themselves (error.h) */
#undef ctk_error_errno
#undef ctk_error_prefix
#undef ctk_error_suffix
#undef ctk_error_prepend
#undef ctk_error_set_msg

char *ctk_one_line(char *s)
{
        if (s == NULL)
                return NULL;
        size_t extra = 0;
        for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++)
                if (*p < 0x20 || *p == 0x7f)
                        extra += 3;
        if (extra == 0)
                return s;
        char *out = malloc(strlen(s) + extra + 1), *o = out;
        if (out != NULL) {
                for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
                        if (*p >= 0x20 && *p != 0x7f)
                                *o++ = (char)*p;
                        else if (*p == '\n' || *p == '\t' || *p == '\r')
                                o += sprintf(o, "\\%c", *p == '\n' ? 'n' : *p == '\t' ? 't' : 'r');
                        else
                                o += sprintf(o, "\\x%02x", *p);
                }
                *o = '\0';
        }
        free(s);
        return out;
}

__attribute__((format(printf, 1, 0))) static char *vformat(const char *fmt, va_list ap)
{
        return ctk_one_line(ctk_vformat(fmt, ap));
}

static int set_msg(struct ctk_error **err, int code, char *msg)
{
        if (err == NULL || *err != NULL) {
                free(msg);
                return -1;
        }
        struct ctk_error *e = calloc(1, sizeof(*e));
        if (e == NULL) {
                free(msg);
                return -1;
        }
        e->code = code;
        e->msg = msg != NULL ? msg : strdup("out of memory");
        *err = e;
        return -1;
}

int ctk_error_set(struct ctk_error **err, int code, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        char *msg = vformat(fmt, ap);
        va_end(ap);
        return set_msg(err, code, msg);
}

int ctk_error_errno(struct ctk_error **err, int errnum, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        char *head = vformat(fmt, ap);
        va_end(ap);
        char *msg = NULL;
        if (head != NULL && asprintf(&msg, "%s: %s", head, strerror(errnum)) < 0)
                msg = NULL;
        free(head);
        return set_msg(err, errnum, msg);
}

/* Adds the formatted text before (sep between them) or after the message. */
__attribute__((format(printf, 4, 0))) static int affix(struct ctk_error **err, bool before, const char *sep,
                                                       const char *fmt, va_list ap)
{
        if (err == NULL || *err == NULL)
                return -1;
        char *text = vformat(fmt, ap);
        char *msg = NULL;
        if (text != NULL &&
            asprintf(&msg, "%s%s%s", before ? text : (*err)->msg, sep, before ? (*err)->msg : text) >= 0) {
                free((*err)->msg);
                (*err)->msg = msg;
        }
        free(text);
        return -1;
}

int ctk_error_prefix(struct ctk_error **err, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        affix(err, true, ": ", fmt, ap);
        va_end(ap);
        return -1;
}

int ctk_error_prepend(struct ctk_error **err, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        affix(err, true, "", fmt, ap);
        va_end(ap);
        return -1;
}

int ctk_error_suffix(struct ctk_error **err, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        affix(err, false, "", fmt, ap);
        va_end(ap);
        return -1;
}

int ctk_error_set_msg(struct ctk_error **err, int code, const char *msg)
{
        return set_msg(err, code, ctk_one_line(strdup(msg)));
}

void ctk_error_free(struct ctk_error *err)
{
        if (err == NULL)
                return;
        free(err->msg);
        free(err);
}
