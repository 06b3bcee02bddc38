#include "runc_log.h"

#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"

char *rt_runc_log_line(const char *format, const char *level, const char *msg, const struct timespec *ts)
{
        char when[CTK_RFC3339_MAX];
        ctk_format_rfc3339(ts, false, when);
        char *line = NULL;
        if (format != NULL && strcmp(format, "json") == 0) {
                json_t *o = json_pack("{s:s, s:s, s:s}", "level", level, "msg", msg, "time", when);
                char *s = o != NULL ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
                json_decref(o);
                if (s != NULL && asprintf(&line, "%s\n", s) < 0)
                        line = NULL;
                free(s);
                return line;
        }
        char *qmsg = ctk_log_quote(msg);
        if (qmsg != NULL && asprintf(&line, "time=\"%s\" level=%s msg=%s\n", when, level, qmsg) < 0)
                line = NULL;
        free(qmsg);
        return line;
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
