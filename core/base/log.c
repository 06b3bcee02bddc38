#include "log.h"
#include "fileio.h"
#include "format.h"
#include "trust.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static struct {
        int fd;
        enum ctk_log_level level;
        const char *ident;
        char *path; /* opened at the first message: NULL once tried, or none */
} logger = {.fd = -1};

static const char *const level_names[] = {"ERROR", "WARNING", "INFO", "DEBUG"};

int ctk_log_level_parse(const char *s, enum ctk_log_level *out)
{
        static const struct {
                const char *name;
                enum ctk_log_level level;
        } names[] = {{"error", CTK_LOG_ERROR},
                     {"warning", CTK_LOG_WARNING},
                     {"warn", CTK_LOG_WARNING},
                     {"info", CTK_LOG_INFO},
                     {"debug", CTK_LOG_DEBUG}};
        for (size_t i = 0; s != NULL && i < sizeof(names) / sizeof(names[0]); i++) {
                if (strcasecmp(s, names[i].name) == 0) {
                        *out = names[i].level;
                        return 0;
                }
        }
        return -1;
}

enum ctk_log_level ctk_log_level_or(const char *s, enum ctk_log_level dflt)
{
        enum ctk_log_level level = dflt;
        return ctk_log_level_parse(s, &level) == 0 ? level : dflt;
}

const char *ctk_log_level_name(enum ctk_log_level level)
{
        return (unsigned)level < sizeof(level_names) / sizeof(level_names[0]) ? level_names[level] : "UNKNOWN";
}

void ctk_log_open(const char *ident, const char *path, enum ctk_log_level level)
{
        ctk_log_close();
        logger.ident = ident;
        logger.level = level;
        if (path != NULL && *path != '\0' && strcmp(path, CTK_LOG_NONE) != 0)
                logger.path = strdup(path); /* out of memory: no log */
}

void ctk_log_close(void)
{
        if (logger.fd >= 0)
                close(logger.fd);
        logger.fd = -1;
        free(logger.path);
        logger.path = NULL;
}

bool ctk_log_enabled(enum ctk_log_level level)
{
        return (logger.fd >= 0 || logger.path != NULL) && level <= logger.level;
}

/* The file, opened (created) at the first message that is logged.  One
 * that cannot be opened is one line on stderr, and no log: logging never
 * fails the caller (nor waits: a FIFO there is refused at once).  A
 * program that is not root of the host says nothing of a log it may not
 * write (a rootless runtime, root in its own user namespace, and root's
 * /var/log). */
static int log_fd(void)
{
        if (logger.fd < 0 && logger.path != NULL) {
                struct ctk_error *err = NULL;
                logger.fd = ctk_file_open_append(logger.path, 0640, &err);
                if (logger.fd < 0 && err != NULL &&
                    (ctk_trust_host_root() ||
                     (err->code != EACCES && err->code != EPERM && err->code != EROFS && err->code != ENOENT)))
                        fprintf(stderr, "%s%swarning: %s (config key log-file); going on without the log\n",
                                logger.ident != NULL ? logger.ident : "", logger.ident != NULL ? ": " : "", err->msg);
                ctk_error_free(err);
                free(logger.path);
                logger.path = NULL;
        }
        return logger.fd;
}

void ctk_format_rfc3339(const struct timespec *ts, bool millis, char buf[CTK_RFC3339_MAX])
{
        struct tm tm;
        time_t t = ts->tv_sec;
        if (localtime_r(&t, &tm) == NULL) {
                (void)snprintf(buf, CTK_RFC3339_MAX, "1970-01-01T00:00:00Z");
                return;
        }
        size_t n = strftime(buf, CTK_RFC3339_MAX, "%Y-%m-%dT%H:%M:%S", &tm);
        if (millis)
                n += (size_t)snprintf(buf + n, CTK_RFC3339_MAX - n, ".%03ld", ts->tv_nsec / 1000000);
        long off = tm.tm_gmtoff;
        if (off == 0) {
                (void)snprintf(buf + n, CTK_RFC3339_MAX - n, "Z");
                return;
        }
        char sign = off < 0 ? '-' : '+';
        off = off < 0 ? -off : off;
        (void)snprintf(buf + n, CTK_RFC3339_MAX - n, "%c%02ld:%02ld", sign, off / 3600, off / 60 % 60);
}

char *ctk_log_quote(const char *s)
{
        size_t len = strlen(s);
        char *out = malloc(len * 4 + 3), *p = out;
        if (out == NULL)
                return NULL;
        *p++ = '"';
        for (; *s != '\0'; s++) {
                unsigned char c = (unsigned char)*s;
                if (c == '"' || c == '\\') {
                        *p++ = '\\';
                        *p++ = (char)c;
                } else if (c == '\n') {
                        p = stpcpy(p, "\\n");
                } else if (c == '\r') {
                        p = stpcpy(p, "\\r");
                } else if (c == '\t') {
                        p = stpcpy(p, "\\t");
                } else if (c < 0x20 || c == 0x7f) {
                        p += sprintf(p, "\\x%02x", c);
                } else {
                        *p++ = (char)c;
                }
        }
        *p++ = '"';
        *p = '\0';
        return out;
}

char *ctk_log_format_line(const struct timespec *ts, enum ctk_log_level level, long pid, const char *ident,
                          const char *msg)
{
        char when[CTK_RFC3339_MAX];
        ctk_format_rfc3339(ts, true, when);
        char *full = NULL;
        if (asprintf(&full, "%s%s%s", ident != NULL ? ident : "", ident != NULL ? " " : "", msg) < 0)
                return NULL;
        char *quoted = ctk_log_quote(full);
        free(full);
        if (quoted == NULL)
                return NULL;
        char *line = NULL;
        if (asprintf(&line, "time=%s level=%s pid=%ld msg=%s\n", when, ctk_log_level_name(level), pid, quoted) < 0)
                line = NULL;
        free(quoted);
        return line;
}

static void write_line(enum ctk_log_level level, const char *msg)
{
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        char *line = ctk_log_format_line(&ts, level, (long)getpid(), logger.ident, msg);
        int fd = line != NULL ? log_fd() : -1;
        if (fd >= 0)
                (void)!write(fd, line, strlen(line));
        free(line);
}

void ctk_log(enum ctk_log_level level, const char *fmt, ...)
{
        if (!ctk_log_enabled(level))
                return;
        int saved = errno;
        va_list ap;
        va_start(ap, fmt);
        char *msg = ctk_vformat(fmt, ap);
        va_end(ap);
        if (msg != NULL)
                write_line(level, msg);
        free(msg);
        errno = saved;
}

void ctk_log_msg(enum ctk_log_level level, const char *msg, const char *fmt, ...)
{
        if (!ctk_log_enabled(level))
                return;
        int saved = errno;
        char *head = NULL, *line = NULL;
        if (fmt != NULL) {
                va_list ap;
                va_start(ap, fmt);
                head = ctk_vformat(fmt, ap);
                va_end(ap);
        }
        if (fmt == NULL)
                write_line(level, msg);
        else if (head != NULL && asprintf(&line, "%s: %s", head, msg) >= 0)
                write_line(level, line);
        free(line);
        free(head);
        errno = saved;
}
