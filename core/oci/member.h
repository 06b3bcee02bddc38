/* Internal to core/oci: reaching a member of the spec by its expected type. */
#ifndef CTK_OCI_MEMBER_H
#define CTK_OCI_MEMBER_H

#include <jansson.h>
#include <stdbool.h>

#include "core/base/base.h"

/* parent[key] as an object or array (type), created empty when absent and
 * create is set; *out is NULL when absent and not created.  `where` names
 * the member for messages ("linux.resources"). */
int ctk_oci_member(json_t *parent, const char *key, json_type type, bool create, const char *where, json_t **out,
                   struct ctk_error **err);

#endif
