#include "runc_log.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"

/* s as a JSON string (as jansson writes one: UTF-8 as it is, \" \\ \b \f
 * \n \r \t and \u00XX for the other control characters).  malloc'ed. */
static char *json_quote(const char *s)
{
        size_t len = strlen(s);
        char *out = malloc(len * 6 + 3), *o = out;
        if (out == NULL)
                return NULL;
        *o++ = '"';
        for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
                static const char short_esc[] = {['\b'] = 'b', ['\f'] = 'f', ['\n'] = 'n', ['\r'] = 'r', ['\t'] = 't'};
                if (*p == '"' || *p == '\\') {
                        *o++ = '\\';
                        *o++ = (char)*p;
                } else if (*p < sizeof(short_esc) && short_esc[*p] != 0) {
                        *o++ = '\\';
                        *o++ = short_esc[*p];
                } else if (*p < 0x20) {
                        o += sprintf(o, "\\u%04x", *p);
                } else {
                        *o++ = (char)*p;
                }
        }
        *o++ = '"';
        *o = '\0';
        return out;
}

char *rt_runc_log_line(const char *format, const char *level, const char *msg, const struct timespec *ts)
{
        char when[CTK_RFC3339_MAX];
        ctk_format_rfc3339(ts, false, when);
        char *line = NULL;
        bool json = format != NULL && strcmp(format, "json") == 0;
        char *qmsg = json ? json_quote(msg) : ctk_log_quote(msg);
        if (qmsg == NULL)
                return NULL;
        int r = json ? asprintf(&line, "{\"level\":\"%s\",\"msg\":%s,\"time\":\"%s\"}\n", level, qmsg, when)
                     : asprintf(&line, "time=\"%s\" level=%s msg=%s\n", when, level, qmsg);
        free(qmsg);
        return r < 0 ? NULL : line;
}

void rt_runc_log_error(const struct rt_args *a, const char *msg)
{
        /* Without --log runc logs to stderr, where the message went already. */
        if (a->log == NULL || *a->log == '\0' || strcmp(a->log, "/dev/stderr") == 0)
                return;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        char *line = rt_runc_log_line(a->log_format, "error", msg, &ts);
        if (line == NULL)
                return;
        int fd = open(a->log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOCTTY, 0644);
        if (fd >= 0) {
                (void)!write(fd, line, strlen(line));
                close(fd);
        }
        free(line);
}
