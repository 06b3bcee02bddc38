/* Loading and encoding an OCI runtime spec as a generic JSON document. */
#ifndef CTK_OCI_SPEC_H
#define CTK_OCI_SPEC_H

#include <jansson.h>
#include <stddef.h>

#include "core/base/base.h"

/* Parses data (len bytes) as a spec: a JSON object.  name (the file) starts
 * error messages: "NAME:LINE:COLUMN: what is wrong". */
int ctk_oci_spec_parse(const char *data, size_t len, const char *name, json_t **out, struct ctk_error **err);

/* Compact JSON (members in their original order) plus a newline; NULL on
 * ENOMEM.  The caller frees it. */
char *ctk_oci_spec_encode(const json_t *spec, size_t *len);

#endif
