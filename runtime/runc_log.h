/* Errors for runc's --log file.  Docker (containerd) reads the last
 * level=error entry of that file when the runtime fails and shows its msg to
 * the user, so our errors go there in runc's own format. */
#ifndef RT_RUNC_LOG_H
#define RT_RUNC_LOG_H

#include <time.h>

#include "args.h"

/* One line in runc's format: with format "json"
 *   {"level":"error","msg":"...","time":"2026-04-28T15:21:37Z"}
 * otherwise logrus text: time="..." level=error msg="...".
 * malloc'ed, ends in '\n'; NULL on ENOMEM. */
char *rt_runc_log_line(const char *format, const char *level, const char *msg, const struct timespec *ts);

/* Appends msg as an error to a->log (when given).  Best effort. */
void rt_runc_log_error(const struct rt_args *a, const char *msg);

/* The runtime's one error line, "amd-container-runtime: msg", on stderr and
 * in runc's log.  Returns 1, the exit status. */
int rt_report_error(const struct rt_args *a, const char *msg);

#endif
