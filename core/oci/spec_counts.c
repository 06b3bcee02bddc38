/* The counts of a spec's text, taken before anything is built from it
 * (spec.h says which and why): one pass over the bytes that follows
 * JSON's structure with a byte of state per level and no allocation, so
 * that 30 million environment entries cost no more memory than their
 * text.  Text that is no JSON is left to jansson, which says what is
 * wrong and where; on JSON this reads what jansson reads (the fuzz
 * harness fuzz_oci compares the two). */
#include "spec.h"

#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* jansson refuses a value nested deeper than JSON_PARSER_MAX_DEPTH (2048)
 * where it meets it, having built nothing after it: the count stops there
 * too, and leaves the error to jansson. */
#define MAX_DEPTH JSON_PARSER_MAX_DEPTH

const struct ctk_oci_caps ctk_oci_default_caps = {
    .env = CTK_OCI_MAX_ENV,
    .annotations = CTK_OCI_MAX_ANNOTATIONS,
    .mounts = CTK_OCI_MAX_MOUNTS,
    .devices = CTK_OCI_MAX_DEVICES,
    .hooks = CTK_OCI_MAX_HOOKS,
    .values = CTK_OCI_MAX_VALUES,
};

/* Where a container (object or array) of the document is. */
enum place {
        P_OTHER,
        P_ROOT,        /* the document */
        P_PROCESS,     /* .process */
        P_ENV,         /* .process.env */
        P_ANNOTATIONS, /* .annotations */
        P_MOUNTS,      /* .mounts */
        P_LINUX,       /* .linux */
        P_DEVICES,     /* .linux.devices */
        P_RESOURCES,   /* .linux.resources */
        P_RULES,       /* .linux.resources.devices */
        P_HOOKS,       /* .hooks */
        P_HOOK_LIST,   /* .hooks.<kind> */
};

struct level {
        uint8_t place;
        bool object;
        bool want_key; /* (an object) next comes a key, or its end */
        size_t n;      /* elements or members so far */
};

struct scan {
        const char *s;
        size_t len, i;
        const struct ctk_oci_caps *caps;
        size_t values, hooks;
        size_t depth;
        struct level lv[MAX_DEPTH + 1];
        uint8_t key_place; /* the place a value after the last key would have */
};

/* Whether the string token s[a..b) (quotes excluded) spells name, escapes
 * decoded (a key may be written "\u0065nv"). */
static bool spells(const char *s, size_t a, size_t b, const char *name)
{
        size_t k = 0;
        for (size_t i = a; i < b; k++) {
                unsigned c = (unsigned char)s[i];
                if (c == '\\') {
                        if (i + 1 >= b)
                                return false;
                        char e = s[i + 1];
                        if (e == 'u') {
                                if (b - i < 6)
                                        return false;
                                c = 0;
                                for (int j = 2; j < 6; j++) {
                                        char h = s[i + (size_t)j];
                                        int d = h >= '0' && h <= '9'   ? h - '0'
                                                : h >= 'a' && h <= 'f' ? h - 'a' + 10
                                                : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                                                       : -1;
                                        if (d < 0)
                                                return false;
                                        c = c * 16 + (unsigned)d;
                                }
                                i += 6;
                        } else {
                                c = (unsigned char)(e == 'b'   ? '\b'
                                                    : e == 'f' ? '\f'
                                                    : e == 'n' ? '\n'
                                                    : e == 'r' ? '\r'
                                                    : e == 't' ? '\t'
                                                               : e);
                                i += 2;
                        }
                } else {
                        i++;
                }
                if (name[k] == '\0' || (unsigned char)name[k] != c)
                        return false;
        }
        return name[k] == '\0';
}

/* The place of a value under key s[a..b) of an object at place p. */
static uint8_t place_of(uint8_t p, const char *s, size_t a, size_t b)
{
        switch (p) {
        case P_ROOT:
                return spells(s, a, b, "process")       ? P_PROCESS
                       : spells(s, a, b, "annotations") ? P_ANNOTATIONS
                       : spells(s, a, b, "mounts")      ? P_MOUNTS
                       : spells(s, a, b, "linux")       ? P_LINUX
                       : spells(s, a, b, "hooks")       ? P_HOOKS
                                                        : P_OTHER;
        case P_PROCESS:
                return spells(s, a, b, "env") ? P_ENV : P_OTHER;
        case P_LINUX:
                return spells(s, a, b, "devices") ? P_DEVICES : spells(s, a, b, "resources") ? P_RESOURCES : P_OTHER;
        case P_RESOURCES:
                return spells(s, a, b, "devices") ? P_RULES : P_OTHER;
        case P_HOOKS:
                return P_HOOK_LIST;
        default:
                return P_OTHER;
        }
}

/* The end of the string token at s[i] (a '"'), past its closing quote; 0
 * when it has none. */
static size_t string_end(const char *s, size_t len, size_t i)
{
        for (size_t j = i + 1; j < len;) {
                const char *q = memchr(s + j, '"', len - j);
                if (q == NULL)
                        return 0;
                size_t at = (size_t)(q - s), bs = 0;
                while (at - bs > i + 1 && s[at - bs - 1] == '\\')
                        bs++;
                if (bs % 2 == 0)
                        return at + 1;
                j = at + 1;
        }
        return 0;
}

static int refuse(const char *name, const char *what, size_t cap, const char *unit, struct ctk_error **err)
{
        return ctk_error_set(err, E2BIG, "%s: %s has more than %zu %s, the most a spec may have: refused", name, what,
                             cap, unit);
}

/* A value starts at the current level (place: the one it gets if it is an
 * object or array): counted where it counts.  -1 over a cap. */
static int count_value(struct scan *sc, const char *name, struct ctk_error **err)
{
        if (++sc->values > sc->caps->values)
                return refuse(name, "the spec", sc->caps->values, "JSON values", err);
        if (sc->depth == 0)
                return 0;
        struct level *l = &sc->lv[sc->depth];
        l->n++;
        switch (l->place) {
        case P_ENV:
                return l->n > sc->caps->env ? refuse(name, "process.env", sc->caps->env, "entries", err) : 0;
        case P_ANNOTATIONS:
                return l->n > sc->caps->annotations ? refuse(name, "annotations", sc->caps->annotations, "entries", err)
                                                    : 0;
        case P_MOUNTS:
                return l->n > sc->caps->mounts ? refuse(name, "mounts", sc->caps->mounts, "entries", err) : 0;
        case P_DEVICES:
                return l->n > sc->caps->devices ? refuse(name, "linux.devices", sc->caps->devices, "entries", err) : 0;
        case P_RULES:
                return l->n > sc->caps->devices
                           ? refuse(name, "linux.resources.devices", sc->caps->devices, "entries", err)
                           : 0;
        case P_HOOK_LIST:
                return ++sc->hooks > sc->caps->hooks ? refuse(name, "hooks", sc->caps->hooks, "hooks in all", err) : 0;
        default:
                return 0;
        }
}

/* Opens an object or array (c) at the next level; false past jansson's
 * depth (its error, where the count stops). */
static bool open_level(struct scan *sc, char c, uint8_t place)
{
        if (sc->depth == MAX_DEPTH)
                return false;
        sc->depth++;
        sc->lv[sc->depth] = (struct level){.place = place, .object = c == '{', .want_key = c == '{'};
        return true;
}

static bool delimiter(char c)
{
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == ':' || c == '{' || c == '}' ||
               c == '[' || c == ']' || c == '"';
}

/* The place a value starting now gets if it is an object or array. */
static uint8_t next_place(const struct scan *sc)
{
        if (sc->depth == 0)
                return P_ROOT;
        const struct level *l = &sc->lv[sc->depth];
        return l->object ? sc->key_place : P_OTHER;
}

int ctk_oci_spec_check_counts(const char *s, size_t len, const char *name, const struct ctk_oci_caps *caps,
                              struct ctk_error **err)
{
        struct scan *sc = calloc(1, sizeof(*sc));
        if (sc == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        *sc = (struct scan){.s = s, .len = len, .caps = caps != NULL ? caps : &ctk_oci_default_caps};
        int rc = 0;
        for (size_t i = 0; i < len && rc == 0;) {
                char c = s[i];
                if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == ':') {
                        i++;
                        continue;
                }
                struct level *l = &sc->lv[sc->depth];
                if (c == '}' || c == ']') {
                        if (sc->depth == 0)
                                break; /* no JSON: jansson says */
                        sc->depth--;
                        i++;
                        continue;
                }
                if (sc->depth > 0 && l->object && l->want_key) { /* a key */
                        size_t end = c == '"' ? string_end(s, len, i) : 0;
                        if (end == 0)
                                break;
                        sc->key_place = place_of(l->place, s, i + 1, end - 1);
                        l->want_key = false;
                        i = end;
                        continue;
                }
                /* a value */
                uint8_t place = next_place(sc);
                rc = count_value(sc, name, err);
                if (sc->depth > 0 && l->object)
                        l->want_key = true;
                if (rc < 0)
                        break;
                if (c == '{' || c == '[') {
                        if (!open_level(sc, c, place))
                                break;
                        i++;
                } else if (c == '"') {
                        size_t end = string_end(s, len, i);
                        if (end == 0)
                                break;
                        i = end;
                } else { /* a number, true, false, null (or no JSON) */
                        for (i++; i < len && !delimiter(s[i]);)
                                i++;
                }
        }
        free(sc);
        return rc;
}
