#include "runc_log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/json/json.h"
#include "core/base/base.h"

/* s as a JSON string (as jansson writes one: UTF-8 as it is, \" \\ \b \f
 * \n \r \t and \u00xx for the other control characters).  malloc'ed. */
static char *json_quote(const char *s)
{
        struct ctk_json_out o = {0};
        ctk_json_out_quote(&o, s, strlen(s), CTK_JSON_ESC_SHORT);
        return ctk_json_out_finish(&o, NULL);
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
        if (a->log == NULL || *a->log == '\0' || strcmp(a->log, "/dev/stderr") == 0 ||
            strcmp(a->log, CTK_LOG_NONE) == 0)
                return;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        char *line = rt_runc_log_line(a->log_format, "error", msg, &ts);
        if (line == NULL)
                return;
        /* (a FIFO there would hold the create for ever: refused, said once) */
        struct ctk_error *err = NULL;
        int fd = ctk_file_open_append(a->log, 0644, &err);
        if (fd >= 0) {
                (void)!write(fd, line, strlen(line));
                close(fd);
        } else if (err != NULL && err->code != ENOENT) {
                fprintf(stderr, "amd-container-runtime: warning: %s (the low-level runtime's --log)\n", err->msg);
        }
        ctk_error_free(err);
        free(line);
}

int rt_report_error(const struct rt_args *a, const char *msg)
{
        char *line = NULL;
        if (asprintf(&line, "amd-container-runtime: %s", msg) < 0)
                line = NULL;
        fprintf(stderr, "%s\n", line != NULL ? line : msg);
        rt_runc_log_error(a, line != NULL ? line : msg);
        free(line);
        return 1;
}
