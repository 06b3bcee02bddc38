/* A leveled log file shared by the programs of the toolkit (the runtime's
 * /var/log/amd-container-runtime.log).  Logging never fails a caller: when
 * the file cannot be opened, messages are dropped.  One write(2) per line
 * on an O_APPEND descriptor, so concurrent processes do not interleave. */
#ifndef CTK_LOG_H
#define CTK_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

enum ctk_log_level {
        CTK_LOG_ERROR,
        CTK_LOG_WARNING,
        CTK_LOG_INFO,
        CTK_LOG_DEBUG,
};

/* "error", "warning" (or "warn"), "info", "debug".  -1 for anything else. */
int ctk_log_level_parse(const char *s, enum ctk_log_level *out);
const char *ctk_log_level_name(enum ctk_log_level level); /* "ERROR", "WARNING", ... */
/* The level s names (as ctk_log_level_parse), or dflt (s NULL or no level). */
enum ctk_log_level ctk_log_level_or(const char *s, enum ctk_log_level dflt);

/* Logs to path (created 0640, O_APPEND | O_CLOEXEC) the messages at `level`
 * or more severe; ident starts every message.  The file is opened (and
 * created) at the first message logged, never when there is none, as
 * ctk_file_open_append opens it: a FIFO, a device, a link there is one
 * warning line on stderr ("IDENT: warning: PATH is a FIFO, not a regular
 * file: not written (config key log-file); going on without the log"),
 * then no log.  NULL, "" or CTK_LOG_NONE: no log. */
#define CTK_LOG_NONE "/dev/null"
void ctk_log_open(const char *ident, const char *path, enum ctk_log_level level);
void ctk_log_close(void);
bool ctk_log_enabled(enum ctk_log_level level);
/* Logs the formatted message (the values it quotes through CTK_CUT,
 * format.h). */
void ctk_log(enum ctk_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Logs msg, a message already formed (an error's), taken whole; after
 * "context: " when fmt is not NULL. */
void ctk_log_msg(enum ctk_log_level level, const char *msg, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* One log line: time=... level=INFO pid=N msg="IDENT message" (msg quoted
 * and escaped).  Returns a malloc'ed string ending in '\n', NULL on ENOMEM. */
char *ctk_log_format_line(const struct timespec *ts, enum ctk_log_level level, long pid, const char *ident,
                          const char *msg);

/* RFC 3339 local time, "2026-04-28T15:21:37+05:30" ("Z" for UTC), with
 * milliseconds when millis is set.  buf must hold CTK_RFC3339_MAX bytes. */
#define CTK_RFC3339_MAX 40
void ctk_format_rfc3339(const struct timespec *ts, bool millis, char buf[CTK_RFC3339_MAX]);

/* s as a double-quoted string with \" \\ \n \r \t and \xNN escapes (logfmt and
 * logrus text style).  malloc'ed; NULL on ENOMEM. */
char *ctk_log_quote(const char *s);

#endif
