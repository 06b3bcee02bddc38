/* Loading and encoding an OCI runtime spec as a generic JSON document.
 *
 * runc reads a spec with Go's decoder, which takes what jansson does not:
 * integers above INT64_MAX (uint64 fields such as cpu.shares or an rlimit
 * of 18446744073709551615) or below INT64_MIN, "\u0000" in strings and
 * keys; and jansson writes back some literals in another spelling (0.1 as
 * 0.10000000000000001, -0 as 0).  Such literals are set aside before
 * jansson parses the text: each becomes a placeholder string, and the
 * encoder writes the literal back byte for byte where the placeholder
 * still is.  Members the runtime does not edit thus come out as runc
 * would read them in the first place. */
#ifndef CTK_OCI_SPEC_H
#define CTK_OCI_SPEC_H

#include <jansson.h>
#include <stddef.h>

#include "core/base/base.h"

/* A literal set aside: its text, and the placeholder that stands for it in
 * the document (a string value, or a key of an object). */
struct ctk_oci_literal {
        char *text;           /* the literal as the spec wrote it (a string token with its quotes) */
        const json_t *value;  /* the placeholder string, when it stands for a value */
        const json_t *object; /* the object, when it stands for a key */
};

struct ctk_oci_literals {
        struct ctk_oci_literal *v;
        size_t n, cap;
};
void ctk_oci_literals_clear(struct ctk_oci_literals *l);
static inline void ctk_oci_literals_clearp(struct ctk_oci_literals *l)
{
        ctk_oci_literals_clear(l);
}
#define _cleanup_oci_literals_ __attribute__((cleanup(ctk_oci_literals_clearp)))

/* Memory is bounded by count, not only by bytes: a spec's text is counted
 * before anything is built from it (a jansson value costs some 100 bytes
 * of memory, 30 to 50 times its text at the least: 30 million one-byte
 * environment entries, 120 MB, took 3 GB).  The caps are over ten times
 * what Kubernetes and Docker allow or produce (docs/reliability.md says
 * why each): */
#define CTK_OCI_MAX_ENV         1048576 /* process.env entries */
#define CTK_OCI_MAX_ANNOTATIONS 1048576 /* annotations */
#define CTK_OCI_MAX_MOUNTS      65536   /* mounts */
#define CTK_OCI_MAX_DEVICES     65536   /* linux.devices, and linux.resources.devices */
#define CTK_OCI_MAX_HOOKS       1024    /* hooks of every kind together */
#define CTK_OCI_MAX_VALUES      4194304 /* JSON values in all (a spec at every cap above fits) */
struct ctk_oci_caps {
        size_t env, annotations, mounts, devices, hooks, values;
};
extern const struct ctk_oci_caps ctk_oci_default_caps;

/* Refuses a spec's text (len bytes) over a cap of caps (NULL: the
 * defaults), counted in one pass over the bytes that allocates nothing
 * that grows with them: E2BIG, "NAME: process.env has more than 1048576
 * entries, the most a spec may have: refused".  0 otherwise, and for text
 * that is no JSON (jansson says what is wrong). */
int ctk_oci_spec_check_counts(const char *data, size_t len, const char *name, const struct ctk_oci_caps *caps,
                              struct ctk_error **err);

/* Parses data (len bytes) as a spec: a JSON object within the default
 * caps (ctk_oci_spec_check_counts first); the literals jansson cannot keep
 * go to *lits (zeroed first; clear it after the document).  name (the
 * file) starts error messages: "NAME:LINE:COLUMN: what is wrong", the
 * line and column of data. */
int ctk_oci_spec_parse(const char *data, size_t len, const char *name, json_t **out, struct ctk_oci_literals *lits,
                       struct ctk_error **err);

/* Compact JSON (members in their original order, as json_dumps writes it)
 * plus a newline, with the literals of lits (may be NULL) written back
 * where their placeholders are; NULL on ENOMEM.  The caller frees it. */
char *ctk_oci_spec_encode(const json_t *spec, const struct ctk_oci_literals *lits, size_t *len);

#endif
