/* Internal to the CDI validator: a walk over a spec document that knows the
 * path of the current value, so problems are reported as
 * "file:line:column: devices[0].containerEdits.env[1]: message". */
#ifndef CTK_CDI_WALK_H
#define CTK_CDI_WALK_H

#include <jansson.h>

#include "cdi.h"
#include "core/json/json.h"

#define CTK_CDI_MAX_DEPTH 16

struct ctk_cdi_walk {
        const struct ctk_cdi_source *src; /* may be NULL */
        struct ctk_cdi_report *rep;
        struct ctk_json_step path[CTK_CDI_MAX_DEPTH];
        size_t depth;   /* number of steps, may exceed CTK_CDI_MAX_DEPTH */
        size_t nerrors; /* errors added by this walk */
};

/* Enters member key of the current value (the path of messages). */
void ctk_cdi_walk_key(struct ctk_cdi_walk *w, const char *key);
/* Enters element index of the current array. */
void ctk_cdi_walk_index(struct ctk_cdi_walk *w, size_t index);
/* Leaves the last member or element entered. */
void ctk_cdi_walk_pop(struct ctk_cdi_walk *w);
/* Runs fn on obj[key], with key on the path, if that member has the given
 * type (wrong types are the shape check's business). */
void ctk_cdi_walk_member(struct ctk_cdi_walk *w, const json_t *obj, const char *key, json_type type,
                         void (*fn)(const json_t *, struct ctk_cdi_walk *));

/* Adds an error line at the walk's path (file:line:column when the source is known). */
void ctk_cdi_error(struct ctk_cdi_walk *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Adds a warning line at the walk's path. */
void ctk_cdi_warn(struct ctk_cdi_walk *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Structure: known keys, value types, required keys (shape.c). */
void ctk_cdi_check_shape(json_t *doc, struct ctk_cdi_walk *w);
/* Rules on values: the spec and devices (check.c), container edits
 * (check_edits.c). */
void ctk_cdi_check_rules(const json_t *doc, struct ctk_cdi_walk *w);
void ctk_cdi_check_edits(const json_t *edits, struct ctk_cdi_walk *w);
/* For each of names[0..n) (NULL or "": none), the index of the first
 * earlier one equal to it, or SIZE_MAX: in n log n, not pairwise.
 * malloc'ed; NULL when out of memory. */
size_t *ctk_cdi_first_same(const char *const *names, size_t n);

/* NAME=value entries of env arrays (check_edits.c). */
void ctk_cdi_check_env(const json_t *env, struct ctk_cdi_walk *w);

#endif
