/* A container's CDI request: fully qualified names (from the selection
 * variables or the cdi.k8s.io/ annotations) resolved through the spec
 * directories into the edits to apply, the way CDI runtimes do: each name
 * once, in request order, a spec's own containerEdits before its first
 * device, all or nothing. */
#ifndef CTK_CDI_RESOLVE_H
#define CTK_CDI_RESOLVE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "apply.h"
#include "cache.h"
#include "core/base/base.h"
#include "edits.h"

/* vendor/class=name by CDI's naming rules. */
bool ctk_cdi_qualified_valid(const char *name);

/* The names the OCI annotations <prefix><key> request, for each of
 * prefixes (CDI's is cdi.k8s.io/; none: no annotation requests anything):
 * keys in sorted order, each value split at ',' (no trimming), every name
 * fully qualified; sources gets "annotation <key>" for each.  A key whose
 * name part breaks CDI's rules (1-63 characters: letters, digits, '_',
 * '.', '-', alphanumeric at both ends), a value that is not a string and a
 * name that is not qualified are errors naming the annotation. */
int ctk_cdi_annotation_names(const json_t *oci, const struct ctk_strv *prefixes, struct ctk_strv *names,
                             struct ctk_strv *sources, struct ctk_error **err);
/* Whether the spec has any annotation with one of prefixes. */
bool ctk_cdi_spec_requests_annotations(const json_t *oci, const struct ctk_strv *prefixes);

struct ctk_cdi_resolved {
        struct ctk_cdi_origin *origins;       /* what to apply, in order */
        struct ctk_cdi_edits *edits;          /* parallel: the edits origins point to */
        const struct ctk_cdi_entry **entries; /* parallel: the device, NULL for a spec's own edits */
        size_t *spec_of;                      /* parallel: index of the spec in the cache */
        size_t n;
};

/* Resolves names (sources, optional and parallel, say where each came
 * from) through the cache.  A name that gives no device fails the whole
 * request: "SOURCE: NAME: why" (ctk_cdi_cache_why_missing), naming the
 * other unresolvable ones too.  The result borrows from the cache. */
int ctk_cdi_resolve(const struct ctk_cdi_cache *c, const struct ctk_strv *names, const struct ctk_strv *sources,
                    struct ctk_cdi_resolved *out, struct ctk_error **err);
/* Frees the result and zeroes it. */
void ctk_cdi_resolved_clear(struct ctk_cdi_resolved *r);

#endif
