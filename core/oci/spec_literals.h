/* Internal to core/oci: the literals of a spec's text set aside before
 * jansson parses it (spec.h says which and why). */
#ifndef CTK_OCI_SPEC_LITERALS_H
#define CTK_OCI_SPEC_LITERALS_H

#include <stddef.h>

#include "spec.h"

/* Where a placeholder is in the new text and its literal in the spec's. */
struct ctk_oci_sub {
        size_t at, len, orig_at, orig_len;
};

struct ctk_oci_subs {
        struct ctk_oci_sub *v;
        size_t n;
};
void ctk_oci_subs_clear(struct ctk_oci_subs *s);

/* The spec's text s[0..len) with each literal jansson cannot keep replaced
 * by the placeholder "\u0001<index>" (a JSON string): *out (malloc'ed,
 * NUL-terminated, *out_len bytes), or NULL when there is none.  The
 * literals go to lits (their .text; index = place), the substitutions to
 * subs.  Text that is no JSON is left as it is from there on (jansson says
 * what is wrong).  -1 when out of memory. */
int ctk_oci_literals_set_aside(const char *s, size_t len, char **out, size_t *out_len, struct ctk_oci_literals *lits,
                               struct ctk_oci_subs *subs);

/* The offset in the spec's text of offset at of the new text. */
size_t ctk_oci_subs_orig(const struct ctk_oci_subs *subs, size_t at);

#endif
