#include "runc_state.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/cleanup.h"
#include "core/fileio.h"
#include "core/number.h"
#include "core/tracker_reconcile.h"
#include "scan.h"

/* A string at s->p; *body and *n are its raw bytes between the quotes
 * (escapes left as they are). */
static bool string(struct scan *s, const char **body, size_t *n)
{
        if (s->p >= s->end || *s->p != '"')
                return false;
        const char *q = ++s->p;
        while (q < s->end && *q != '"') {
                if (*q == '\\' && ++q == s->end)
                        return false;
                q++;
        }
        if (q >= s->end)
                return false;
        *body = s->p;
        *n = (size_t)(q - s->p);
        s->p = q + 1;
        return true;
}

/* Skips one value.  Inside objects and arrays only strings and brackets
 * are checked (each closes, with its kind), not the rest of the grammar;
 * at most 64 levels deep. */
static bool skip_value(struct scan *s)
{
        uint64_t objects = 0; /* bit k: level k+1 is an object */
        unsigned depth = 0;
        do {
                skip_ws(s);
                if (s->p >= s->end)
                        return false;
                const char *body;
                size_t n;
                char c = *s->p;
                if (c == '"') {
                        if (!string(s, &body, &n))
                                return false;
                } else if (c == '{' || c == '[') {
                        if (depth == 64)
                                return false;
                        objects = (objects << 1) | (c == '{');
                        depth++;
                        s->p++;
                } else if (c == '}' || c == ']') {
                        if (depth == 0 || (objects & 1) != (c == '}'))
                                return false;
                        objects >>= 1;
                        depth--;
                        s->p++;
                } else if (c == ',' || c == ':') {
                        if (depth == 0)
                                return false;
                        s->p++;
                } else {
                        const char *start = s->p;
                        while (s->p < s->end && strchr(" \t\r\n,:]}[{\"", *s->p) == NULL)
                                s->p++;
                        if (s->p == start)
                                return false;
                }
        } while (depth > 0);
        return true;
}

/* A plain non-negative integer (digits, no leading zero) <= max. */
static bool integer(struct scan *s, uint64_t max, unsigned long long *out)
{
        const char *start = s->p;
        while (s->p < s->end && *s->p >= '0' && *s->p <= '9')
                s->p++;
        size_t n = (size_t)(s->p - start);
        if (n == 0 || (n > 1 && start[0] == '0'))
                return false;
        if (s->p < s->end && strchr(".eE", *s->p) != NULL)
                return false;
        uint64_t v;
        if (ctk_parse_u64_dec(start, n, max, &v) < 0)
                return false;
        *out = v;
        return true;
}

static bool key_is(const char *body, size_t n, const char *want)
{
        return strlen(want) == n && memcmp(body, want, n) == 0;
}

int rt_runc_state_init_process(const char *text, size_t len, pid_t *pid, unsigned long long *start)
{
        struct scan s = {text, text + len};
        unsigned long long p = 0, t = 0;
        bool have_pid = false, have_start = false;
        skip_ws(&s);
        if (!eat(&s, "{"))
                return -1;
        skip_ws(&s);
        if (s.p < s.end && *s.p == '}')
                return -1; /* empty: neither member */
        for (;;) {
                const char *key;
                size_t n;
                skip_ws(&s);
                if (!string(&s, &key, &n))
                        return -1;
                skip_ws(&s);
                if (!eat(&s, ":"))
                        return -1;
                skip_ws(&s);
                bool ok;
                if (key_is(key, n, "init_process_pid"))
                        ok = have_pid = integer(&s, INT32_MAX, &p) && p > 0;
                else if (key_is(key, n, "init_process_start"))
                        ok = have_start = integer(&s, UINT64_MAX, &t);
                else
                        ok = skip_value(&s);
                if (!ok)
                        return -1;
                skip_ws(&s);
                if (s.p >= s.end)
                        return -1;
                if (*s.p == '}')
                        break;
                if (*s.p++ != ',')
                        return -1;
        }
        s.p++;
        skip_ws(&s);
        if (s.p != s.end || !have_pid || !have_start)
                return -1;
        *pid = (pid_t)p;
        *start = t;
        return 0;
}

enum rt_runc_status rt_runc_status(const char *root, const char *id, const char *proc_dir)
{
        _cleanup_free_ char *dir = NULL, *path = NULL, *text = NULL;
        if (asprintf(&dir, "%s/%s", root, id) < 0) {
                dir = NULL; /* (asprintf leaves it undefined) */
                return RT_RUNC_UNKNOWN;
        }
        if (asprintf(&path, "%s/state.json", dir) < 0) {
                path = NULL;
                return RT_RUNC_UNKNOWN;
        }
        size_t len = 0;
        _cleanup_error_ struct ctk_error *err = NULL;
        if (ctk_file_read_all(path, &text, &len, &err) < 0) {
                struct stat st;
                if (err->code == ENOENT && stat(dir, &st) < 0 && errno == ENOENT)
                        return RT_RUNC_GONE;
                return RT_RUNC_UNKNOWN;
        }
        pid_t pid;
        unsigned long long start, now;
        if (rt_runc_state_init_process(text, len, &pid, &start) < 0)
                return RT_RUNC_UNKNOWN;
        if (ctk_proc_start_time(proc_dir, pid, &now) < 0 || now != start)
                return RT_RUNC_STOPPED;
        return RT_RUNC_ACTIVE;
}
