/* The CDI devices of the spec directories, resolved the way CDI runtimes
 * do (the reference library's cache): directories are read in order (a
 * later one has higher priority), only *.json and *.yaml files directly
 * inside them count (YAML through yaml.c), an invalid file is skipped and
 * its error kept, a device defined at a higher priority replaces one of
 * lower priority, and a device defined twice at the same priority is a
 * conflict that makes it unusable. */
#ifndef CTK_CDI_CACHE_H
#define CTK_CDI_CACHE_H

#include <jansson.h>
#include <stddef.h>

#include "core/base/base.h"

/* A spec file that loaded and passed the checks. */
struct ctk_cdi_spec {
        char *path;
        size_t priority; /* index of its directory */
        struct ctk_cdi_doc *doc;
        const char *kind; /* "vendor/class", the document's */
};

/* A usable device. */
struct ctk_cdi_entry {
        char *name;                /* qualified, "amd.com/gpu=0" */
        size_t spec;               /* index of its spec in the cache */
        const json_t *device;      /* its object in the spec document */
        struct ctk_strv overrides; /* files of lower priority that define it too */
};

struct ctk_cdi_conflict {
        char *name;
        struct ctk_strv specs; /* every file that defines it at the conflicting priority */
};

/* A spec file that was skipped. */
struct ctk_cdi_problem {
        char *path;
        char *msg;             /* one line, starting with the path */
        char *kind;            /* its kind, when the file was a document with one; else NULL */
        struct ctk_strv names; /* the device names it has, when readable */
};

struct ctk_cdi_cache {
        struct ctk_strv dirs;
        struct ctk_cdi_spec *specs; /* in reading order */
        size_t nspecs;
        struct ctk_cdi_entry *devices; /* usable devices, in ctk_cdi_name_cmp order */
        size_t n;
        struct ctk_cdi_conflict *conflicts;
        size_t nconflicts;
        struct ctk_cdi_problem *problems;
        size_t nproblems;
};

/* Reads every spec of dirs (later dirs win) into *out; a spec that cannot
 * be used is a problem, not an error (errors: out of memory). */
int ctk_cdi_cache_load(const char *const *dirs, size_t ndirs, struct ctk_cdi_cache *out, struct ctk_error **err);
/* Frees the cache and zeroes it. */
void ctk_cdi_cache_clear(struct ctk_cdi_cache *c);
static inline void ctk_cdi_cache_clearp(struct ctk_cdi_cache *c)
{
        ctk_cdi_cache_clear(c);
}
#define _cleanup_cdi_cache_ __attribute__((cleanup(ctk_cdi_cache_clearp)))

/* The usable device of a qualified name, or NULL. */
const struct ctk_cdi_entry *ctk_cdi_cache_find(const struct ctk_cdi_cache *c, const char *name);
/* Why a qualified name gives no device, as one line without the name:
 * "no such device in /etc/cdi/amd.json (0-3, all)", "no CDI spec in
 * /etc/cdi, /var/run/cdi has kind example.com/nic", "defined twice in one
 * directory (a.json, b.json): ...", "/etc/cdi/x.json would give it, but
 * was skipped: ...".  NULL when out of memory. */
char *ctk_cdi_cache_why_missing(const struct ctk_cdi_cache *c, const char *name);
/* The usable devices of kind ("amd.com/gpu") in name order: their indices
 * in c->devices, [*first, *first + *n). */
void ctk_cdi_cache_kind_range(const struct ctk_cdi_cache *c, const char *kind, size_t *first, size_t *n);

/* Orders qualified names by kind, then numeric device names by value, then
 * other names by strcmp. */
int ctk_cdi_name_cmp(const char *a, const char *b);

#endif
