#include "error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#undef ctk_error_set /* the functions themselves (error.h) */
#undef ctk_error_errno
#undef ctk_error_prefix

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
        char *s = NULL;
        if (vasprintf(&s, fmt, ap) < 0)
                return NULL;
        return ctk_one_line(s);
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

int ctk_error_prefix(struct ctk_error **err, const char *fmt, ...)
{
        if (err == NULL || *err == NULL)
                return -1;
        va_list ap;
        va_start(ap, fmt);
        char *head = vformat(fmt, ap);
        va_end(ap);
        char *msg = NULL;
        if (head != NULL && asprintf(&msg, "%s: %s", head, (*err)->msg) >= 0) {
                free((*err)->msg);
                (*err)->msg = msg;
        }
        free(head);
        return -1;
}

void ctk_error_free(struct ctk_error *err)
{
        if (err == NULL)
                return;
        free(err->msg);
        free(err);
}
