/* Writing the GPU tracker state file (form in tracker_state.h).
 *
 * Written by hand rather than through a jansson tree: this runs on every
 * container create and delete, and building then dumping a tree of
 * thousands of values costs several times more than printing them. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "tracker_state.h"

/* Length of the valid UTF-8 sequence at s, or 0. */
static size_t utf8_len(const unsigned char *s)
{
        size_t n;
        unsigned int min;
        if (s[0] >= 0xc2 && s[0] <= 0xdf) {
                n = 2;
                min = 0x80;
        } else if (s[0] >= 0xe0 && s[0] <= 0xef) {
                n = 3;
                min = 0x800;
        } else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
                n = 4;
                min = 0x10000;
        } else {
                return 0;
        }
        unsigned int cp = s[0] & (0x7f >> n);
        for (size_t i = 1; i < n; i++) {
                if ((s[i] & 0xc0) != 0x80)
                        return 0;
                cp = (cp << 6) | (s[i] & 0x3f);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
                return 0;
        return n;
}

/* A growable output buffer; `failed` sticks after ENOMEM. */
struct out {
        char *p;
        size_t n, cap;
        bool failed;
};

/* Makes room for n more bytes and the final NUL; false after ENOMEM. */
static bool grow(struct out *o, size_t n)
{
        if (o->failed)
                return false;
        size_t cap = o->cap ? o->cap : 4096;
        while (o->n + n + 1 > cap)
                cap *= 2;
        char *p = realloc(o->p, cap);
        if (p == NULL) {
                o->failed = true;
                return false;
        }
        o->p = p;
        o->cap = cap;
        return true;
}

/* The NUL is written once at the end (ctk_tracker_state_format). */
static inline void put(struct out *o, const char *s, size_t n)
{
        if (o->n + n + 1 > o->cap && !grow(o, n))
                return;
        memcpy(o->p + o->n, s, n);
        o->n += n;
}

static void puts_(struct out *o, const char *s)
{
        put(o, s, strlen(s));
}

static void putf(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(struct out *o, const char *fmt, ...)
{
        char buf[64];
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(buf, sizeof(buf), fmt, ap);
        va_end(ap);
        if (n < 0 || (size_t)n >= sizeof(buf))
                o->failed = true;
        else
                put(o, buf, (size_t)n);
}

/* Decimal digits of v (printf is the bulk of formatting thousands of
 * containers otherwise). */
static void put_uint(struct out *o, unsigned long long v)
{
        char buf[24];
        char *p = buf + sizeof(buf);
        do {
                *--p = (char)('0' + v % 10);
                v /= 10;
        } while (v != 0);
        put(o, p, (size_t)(buf + sizeof(buf) - p));
}

/* A JSON string; bytes that are not UTF-8 become U+FFFD (jansson, which
 * reads the file back, rejects them). */
static void put_string(struct out *o, const char *str)
{
        const unsigned char *s = (const unsigned char *)str;
        put(o, "\"", 1);
        /* (not '"' or '\\') */
        static const bool plain[256] = {[0x20 ... 0x21] = true, [0x23 ... 0x5b] = true, [0x5d ... 0x7f] = true};
        while (*s != '\0') {
                const unsigned char *run = s;
                while (plain[*s])
                        s++;
                put(o, (const char *)run, (size_t)(s - run));
                if (*s == '\0')
                        break;
                if (*s == '"' || *s == '\\') {
                        put(o, "\\", 1);
                        put(o, (const char *)s++, 1);
                } else if (*s < 0x20) {
                        putf(o, "\\u%04x", *s++);
                } else {
                        size_t n = utf8_len(s);
                        if (n == 0) {
                                puts_(o, "\xef\xbf\xbd"); /* U+FFFD */
                                s++;
                        } else {
                                put(o, (const char *)s, n);
                                s += n;
                        }
                }
        }
        put(o, "\"", 1);
}

static void put_gpu(struct out *o, const struct ctk_tracker_gpu *g)
{
        puts_(o, "{\"uuid\":");
        if (g->has_uuid) {
                char uuid[CTK_UUID_STRLEN];
                ctk_uuid_format(g->uuid, uuid);
                put_string(o, uuid);
        } else {
                puts_(o, "null");
        }
        puts_(o, ",\"pci\":");
        put_string(o, g->pci != NULL ? g->pci : "");
        puts_(o, ",\"partition\":");
        put_string(o, g->partition != NULL ? g->partition : "");
        puts_(o, ",\"drm\":[");
        for (size_t k = 0; k < g->drm.n; k++) {
                if (k > 0)
                        put(o, ",", 1);
                put_string(o, g->drm.v[k]);
        }
        puts_(o, g->access == CTK_TRACKER_EXCLUSIVE ? "],\"accessibility\":\"exclusive\"}"
                                                    : "],\"accessibility\":\"shared\"}");
}

/* Index of the container's runtime root in roots (distinct, in order of
 * first use), or -1 when unknown. */
static long root_index(const char **roots, size_t n, const char *root)
{
        if (root == NULL)
                return -1;
        for (size_t i = 0; i < n; i++)
                if (roots[i] == root || strcmp(roots[i], root) == 0) /* read states share them */
                        return (long)i;
        return -1;
}

static void put_container(struct out *o, const struct ctk_tracker_container *c, long root)
{
        put(o, "[", 1);
        put_string(o, c->id);
        put(o, ",[", 2);
        for (size_t k = 0; k < c->ngpus; k++) {
                if (k > 0)
                        put(o, ",", 1);
                put_uint(o, c->gpus[k]);
        }
        if (root >= 0) {
                put(o, "],", 2);
                put_uint(o, (unsigned long long)root);
        } else {
                put(o, "],null", 6);
        }
        put(o, ",", 1);
        if (c->pid < 0) /* never recorded so, but keep the text valid */
                put(o, "-", 1);
        put_uint(o, c->pid < 0 ? -(unsigned long long)c->pid : (unsigned long long)c->pid);
        put(o, ",", 1);
        put_uint(o, c->pid_start);
        put(o, "]", 1);
}

char *ctk_tracker_state_format(const struct ctk_tracker_state *s)
{
        _cleanup_free_ const char **roots = calloc(s->ncontainers + 1, sizeof(*roots));
        _cleanup_free_ long *root_of = calloc(s->ncontainers + 1, sizeof(*root_of));
        if (roots == NULL || root_of == NULL)
                return NULL;
        size_t nroots = 0;
        for (size_t i = 0; i < s->ncontainers; i++) {
                const char *r = s->containers[i].runtime_root;
                root_of[i] = root_index(roots, nroots, r);
                if (r != NULL && root_of[i] < 0) {
                        root_of[i] = (long)nroots;
                        roots[nroots++] = r;
                }
        }
        /* Room for the usual entry sizes at once (it grows if needed). */
        struct out o = {0};
        grow(&o, 4096 + s->ngpus * 256 + s->ncontainers * 160);
        putf(&o, "{\"version\":%d,\"enabled\":%s,\"bootId\":", CTK_TRACKER_STATE_VERSION,
             s->enabled ? "true" : "false");
        if (s->boot_id != NULL)
                put_string(&o, s->boot_id);
        else
                puts_(&o, "null");
        puts_(&o, ",\"gpus\":[");
        for (size_t i = 0; i < s->ngpus; i++) {
                if (i > 0)
                        put(&o, ",", 1);
                put_gpu(&o, &s->gpus[i]);
        }
        puts_(&o, "],\"runtimeRoots\":[");
        for (size_t i = 0; i < nroots; i++) {
                if (i > 0)
                        put(&o, ",", 1);
                put_string(&o, roots[i]);
        }
        puts_(&o, "],\"containers\":[");
        for (size_t i = 0; i < s->ncontainers; i++) {
                if (i > 0)
                        put(&o, ",", 1);
                put_container(&o, &s->containers[i], root_of[i]);
        }
        puts_(&o, "]}\n");
        if (o.failed) {
                free(o.p);
                return NULL;
        }
        o.p[o.n] = '\0'; /* put always leaves room for it */
        return o.p;
}
