/* Reading the GPU tracker state file the quick way: a parser for exactly
 * the text ctk_tracker_state_format writes (tracker_state.h), used on every
 * container create and delete.
 *
 * It accepts only the canonical form: keys in the writer's order, no
 * whitespace, strings of printable ASCII without escapes, integers without
 * sign, fraction or leading zeros, container GPU indices strictly
 * ascending, and only a state that is valid as a whole (known version, UUIDs
 * and accessibilities that parse, GPU and runtime root indices in range,
 * valid and distinct container ids).  Anything else, including every error,
 * is "not canonical": the caller then parses the text with the strict
 * jansson parser, which accepts any valid JSON spelling of the state and
 * words the errors.  So this file decides nothing about validity; it only
 * takes the common case off the slow path. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/base.h"
#include "alloc.h"
#include "state.h"

struct cur {
        const char *p, *end;
        const char *base; /* the start of the text */
};

static bool lit(struct cur *c, const char *s, size_t n)
{
        if ((size_t)(c->end - c->p) < n || memcmp(c->p, s, n) != 0)
                return false;
        c->p += n;
        return true;
}
#define LIT(c, s) lit((c), (s), sizeof(s) - 1)

/* The bytes a string may hold here: printable ASCII other than '"' and
 * '\\' (what the writer emits unescaped). */
/* (not '"' or '\\') */
static const bool plain[256] = {[0x20 ... 0x21] = true, [0x23 ... 0x5b] = true, [0x5d ... 0x7e] = true};

/* A string of plain bytes; *s, *n point into the text. */
static bool str(struct cur *c, const char **s, size_t *n)
{
        if (c->p >= c->end || *c->p != '"')
                return false;
        const char *q = ++c->p;
        /* Eight plain bytes at a time: no byte below 0x20, none with the
         * high bit, no '"', '\\' or DEL (ids are 64 characters). */
        const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
        uint64_t w;
        while (c->end - q >= 8) {
                memcpy(&w, q, 8);
                uint64_t q2 = w ^ (ones * '"'), bs = w ^ (ones * '\\'), del = w ^ (ones * 0x7f);
                uint64_t special = (w - ones * 0x20) | (q2 - ones) | (bs - ones) | (del - ones);
                if (((special & ~w) | w) & high)
                        break;
                q += 8;
        }
        while (q < c->end && plain[(unsigned char)*q])
                q++;
        if (q >= c->end || *q != '"')
                return false;
        *s = c->p;
        *n = (size_t)(q - c->p);
        c->p = q + 1;
        return true;
}

/* A string, copied to *out: 1 ok, 0 not a plain string, -1 ENOMEM. */
static int str_dup(struct cur *c, char **out)
{
        const char *s;
        size_t n;
        if (!str(c, &s, &n))
                return 0;
        *out = strndup(s, n);
        return *out != NULL ? 1 : -1;
}

/* An unsigned integer <= max, canonical spelling. */
static bool num(struct cur *c, unsigned long long max, unsigned long long *out)
{
        if (c->p >= c->end || *c->p < '0' || *c->p > '9')
                return false;
        if (*c->p == '0') {
                c->p++;
                *out = 0;
                return c->p >= c->end || *c->p < '0' || *c->p > '9';
        }
        unsigned long long v = 0;
        while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
                unsigned d = (unsigned)(*c->p++ - '0');
                if (d > max || v > (max - d) / 10)
                        return false;
                v = v * 10 + d;
        }
        *out = v;
        return true;
}

/* Elements of a non-empty or empty array: after '[', returns true when
 * another element follows (consuming ','), false at ']' (consumed).  *bad
 * is set on anything else. */
static bool more(struct cur *c, bool first, bool *bad)
{
        if (c->p < c->end && *c->p == ']') {
                c->p++;
                return false;
        }
        if (!first && !LIT(c, ",")) {
                *bad = true;
                return false;
        }
        return true;
}

/* -1 ENOMEM, 0 not canonical, 1 ok */
static int gpu(struct cur *c, struct ctk_tracker_gpu *g)
{
        if (!LIT(c, "{\"uuid\":"))
                return 0;
        if (!LIT(c, "null")) {
                const char *s;
                size_t n;
                char buf[CTK_UUID_STRLEN];
                if (!str(c, &s, &n) || n >= sizeof(buf))
                        return 0;
                memcpy(buf, s, n);
                buf[n] = '\0';
                if (ctk_uuid_parse(buf, &g->uuid) < 0)
                        return 0;
                g->has_uuid = true;
        }
        if (!LIT(c, ",\"pci\":"))
                return 0;
        int r = str_dup(c, &g->pci);
        if (r <= 0)
                return r;
        if (!LIT(c, ",\"partition\":"))
                return 0;
        if ((r = str_dup(c, &g->partition)) <= 0)
                return r;
        if (!LIT(c, ",\"drm\":["))
                return 0;
        bool bad = false;
        for (bool first = true; more(c, first, &bad); first = false) {
                const char *s;
                size_t n;
                if (!str(c, &s, &n))
                        return 0;
                _cleanup_free_ char *d = strndup(s, n);
                if (d == NULL || ctk_strv_push(&g->drm, d) < 0)
                        return -1;
        }
        if (bad || !LIT(c, ",\"accessibility\":"))
                return 0;
        if (LIT(c, "\"shared\"}"))
                g->access = CTK_TRACKER_SHARED;
        else if (LIT(c, "\"exclusive\"}"))
                g->access = CTK_TRACKER_EXCLUSIVE;
        else
                return 0;
        return 1;
}

/* Copies n bytes of the text into the string arena (sized for the whole
 * text, so it never overflows: every string there has its quotes). */
static char *arena_put(struct ctk_tracker_state *s, size_t *used, const char *p, size_t n)
{
        char *d = s->arena_str + *used;
        memcpy(d, p, n);
        d[n] = '\0';
        *used += n + 1;
        return d;
}

/* Runtime roots, in the string arena. */
struct roots {
        const char **v;
        size_t n, cap;
};

static int roots_parse(struct cur *c, struct ctk_tracker_state *s, size_t *used, struct roots *r)
{
        if (!LIT(c, ",\"runtimeRoots\":["))
                return 0;
        bool bad = false;
        for (bool first = true; more(c, first, &bad); first = false) {
                if (r->n == r->cap) {
                        size_t cap = r->cap ? r->cap * 2 : 4;
                        const char **v = realloc(r->v, cap * sizeof(*v));
                        if (v == NULL)
                                return -1;
                        r->v = v;
                        r->cap = cap;
                }
                const char *p;
                size_t n;
                if (!str(c, &p, &n))
                        return 0;
                r->v[r->n++] = arena_put(s, used, p, n);
        }
        return bad ? 0 : 1;
}

/* GPU indices go to s->arena_idx (grown as needed); ct->gpus is set once
 * the arena stops moving. */
static int container(struct cur *c, struct ctk_tracker_state *s, size_t *used, size_t *idx_cap,
                     const struct roots *roots, struct ctk_tracker_container *ct)
{
        const char *id, *start = c->p;
        size_t idn;
        if (!LIT(c, "[") || !str(c, &id, &idn) || !LIT(c, ",["))
                return 0;
        /* ctk_tracker_valid_container_id for plain bytes (no control
         * characters or DEL here). */
        if (idn == 0 || idn > 1024 || memchr(id, '/', idn) != NULL || memchr(id, ' ', idn) != NULL ||
            (id[0] == '.' && (idn == 1 || (idn == 2 && id[1] == '.'))))
                return 0;
        ct->id = arena_put(s, used, id, idn);
        bool bad = false;
        for (bool first = true; more(c, first, &bad); first = false) {
                unsigned long long g;
                if (!num(c, SIZE_MAX, &g) || g >= s->ngpus || (ct->ngpus > 0 && g <= s->arena_idx[s->arena_idx_n - 1]))
                        return 0; /* out of range, or not strictly ascending */
                if (s->arena_idx_n == *idx_cap) {
                        size_t cap = *idx_cap ? *idx_cap * 2 : 1024;
                        size_t *v = realloc(s->arena_idx, cap * sizeof(*v));
                        if (v == NULL)
                                return -1;
                        s->arena_idx = v;
                        *idx_cap = cap;
                }
                s->arena_idx[s->arena_idx_n++] = (size_t)g;
                ct->ngpus++;
        }
        if (bad || !LIT(c, ","))
                return 0;
        unsigned long long root, pid, pid_start;
        ct->text_root = -1;
        if (!LIT(c, "null")) {
                if (!num(c, SIZE_MAX, &root) || root >= roots->n)
                        return 0;
                ct->runtime_root = (char *)roots->v[root];
                ct->text_root = (long)root;
        }
        if (!LIT(c, ",") || !num(c, INT32_MAX, &pid) || !LIT(c, ",") || !num(c, INT64_MAX, &pid_start) || !LIT(c, "]"))
                return 0;
        ct->pid = (pid_t)pid;
        ct->pid_start = pid_start;
        ct->text_off = (size_t)(start - c->base);
        ct->text_len = (size_t)(c->p - start);
        return 1;
}

/* The ids are distinct iff no two equal ids land in one bucket.  FNV-1a
 * over 8 bytes at a time (a byte at a time was most of the reading time
 * with a thousand 64-character ids), then the high bits, where every
 * input bit ends up, folded into the low ones the table uses. */
static size_t hash(const char *s)
{
        size_t n = strlen(s);
        uint64_t h = 14695981039346656037ULL, w;
        for (; n >= 8; s += 8, n -= 8) {
                memcpy(&w, s, 8);
                h = (h ^ w) * 1099511628211ULL;
        }
        for (; n > 0; s++, n--)
                h = (h ^ (unsigned char)*s) * 1099511628211ULL;
        h ^= h >> 33;
        h *= 0xff51afd7ed558ccdULL;
        h ^= h >> 33;
        return (size_t)h;
}

/* 1 distinct, 0 a repeat, -1 ENOMEM. */
static int ids_distinct(const struct ctk_tracker_state *s)
{
        size_t cap = 16;
        while (cap < s->ncontainers * 2)
                cap *= 2;
        _cleanup_free_ const char **table = calloc(cap, sizeof(*table));
        if (table == NULL)
                return -1;
        for (size_t i = 0; i < s->ncontainers; i++) {
                const char *id = s->containers[i].id;
                size_t k = hash(id) & (cap - 1);
                for (; table[k] != NULL; k = (k + 1) & (cap - 1))
                        if (strcmp(table[k], id) == 0)
                                return 0;
                table[k] = id;
        }
        return 1;
}

static int parse(struct cur *c, struct ctk_tracker_state *s)
{
        static const char head[] = "{\"version\":";
        unsigned long long version;
        if (!LIT(c, head) || !num(c, CTK_TRACKER_STATE_VERSION, &version) || version < 1 || !LIT(c, ",\"enabled\":"))
                return 0;
        if (LIT(c, "true"))
                s->enabled = true;
        else if (!LIT(c, "false"))
                return 0;
        if (!LIT(c, ",\"bootId\":"))
                return 0;
        if (!LIT(c, "null")) {
                int r = str_dup(c, &s->boot_id);
                if (r <= 0)
                        return r;
        }
        if (!LIT(c, ",\"gpus\":["))
                return 0;
        /* Counts are not known ahead: grow geometrically. */
        size_t cap = 0;
        bool bad = false;
        for (bool first = true; more(c, first, &bad); first = false) {
                if (s->ngpus == cap) {
                        cap = cap ? cap * 2 : 8;
                        struct ctk_tracker_gpu *v = realloc(s->gpus, cap * sizeof(*v));
                        if (v == NULL)
                                return -1;
                        s->gpus = v;
                }
                memset(&s->gpus[s->ngpus], 0, sizeof(*s->gpus));
                s->ngpus++; /* a half-parsed entry is freed with the rest */
                int r = gpu(c, &s->gpus[s->ngpus - 1]);
                if (r <= 0)
                        return r;
        }
        if (bad)
                return 0;
        size_t used = 0, idx_cap = 0;
        if ((s->arena_str = malloc(s->arena_str_size = (size_t)(c->end - c->p) + 1)) == NULL)
                return -1;
        struct roots roots = {0};
        int r = roots_parse(c, s, &used, &roots);
        if (r > 0 && !LIT(c, ",\"containers\":["))
                r = 0;
        /* Room for as many entries as the rest of the text can hold (a
         * container takes at least 18 bytes, a GPU index 2): the arrays
         * are allocated once and never copied while they grow; the pages
         * never written cost nothing. */
        size_t rest = (size_t)(c->end - c->p);
        cap = rest / 18 + 1;
        idx_cap = rest / 2 + 1;
        s->containers = malloc(cap * sizeof(*s->containers));
        s->arena_idx = malloc(idx_cap * sizeof(*s->arena_idx));
        if (r > 0 && (s->containers == NULL || s->arena_idx == NULL))
                r = -1;
        for (bool first = true; r > 0 && more(c, first, &bad); first = false) {
                if (s->ncontainers == cap) {
                        cap *= 2;
                        struct ctk_tracker_container *v = realloc(s->containers, cap * sizeof(*v));
                        if (v == NULL) {
                                r = -1;
                                break;
                        }
                        s->containers = v;
                }
                memset(&s->containers[s->ncontainers], 0, sizeof(*s->containers));
                s->ncontainers++;
                r = container(c, s, &used, &idx_cap, &roots, &s->containers[s->ncontainers - 1]);
        }
        free(roots.v);
        if (r <= 0)
                return r;
        size_t off = 0;
        for (size_t i = 0; i < s->ncontainers; i++) {
                struct ctk_tracker_container *ct = &s->containers[i];
                ct->gpus = ct->ngpus > 0 ? s->arena_idx + off : NULL;
                off += ct->ngpus;
        }
        if (bad || !LIT(c, "}"))
                return 0;
        LIT(c, "\n");
        if (c->p != c->end)
                return 0;
        return ids_distinct(s);
}

int ctk_tracker_state_parse_canonical(const char *text, size_t len, struct ctk_tracker_state *out,
                                      struct ctk_error **err)
{
        struct ctk_tracker_state s = {0}; /* handed over whole (all zeros unless parsed) */
        struct cur c = {text, text + len, text};
        int r = parse(&c, &s);
        if (r <= 0)
                ctk_tracker_state_clear(&s);
        *out = s;
        if (r < 0)
                return ctk_error_set(err, ENOMEM, "out of memory");
        return r;
}
