/* User namespaces and the groups a container can hold.
 *
 * A device node's group, as the runtime sees it (stat'ed in the runtime's
 * own user namespace), is given to the container's process only when the
 * container's user namespace maps it:
 *
 *   - the container has a user namespace of its own (linux.namespaces has
 *     one of type "user"): the group must fall in a range of its
 *     linux.gidMappings (hostID..hostID+size-1, in the runtime's ids), and
 *     the container gets containerID + (gid - hostID);
 *   - it has none: it shares the runtime's, whose /proc/self/gid_map must
 *     map the group (rootless Podman runs the runtime inside the user's
 *     namespace; in the initial namespace every id is mapped);
 *   - never the overflow gid (/proc/sys/kernel/overflowgid): a group the
 *     runtime's namespace does not map reads as that gid, whatever group it
 *     is on the host, and inside a rootless namespace that gid is usually a
 *     subordinate id of the user's, not the node's group. */
#ifndef CTK_OCI_IDMAP_H
#define CTK_OCI_IDMAP_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/base.h"

/* The kernel's default overflow uid and gid. */
#define CTK_OCI_OVERFLOW_ID 65534u

/* One range of an id mapping: ids inside..inside+count-1 of the namespace
 * are outside..outside+count-1 of its parent (a line of /proc/PID/gid_map;
 * containerID, hostID and size of a linux.gidMappings entry). */
struct ctk_oci_id_range {
        uint32_t inside, outside, count;
};

struct ctk_oci_idmap {
        struct ctk_oci_id_range *v;
        size_t n;
};

void ctk_oci_idmap_clear(struct ctk_oci_idmap *m);

/* Parses the text of /proc/PID/gid_map (or uid_map): lines of three
 * decimal numbers separated by blanks, count > 0, no range past 2^32, at
 * most 340 lines (the kernel's limit).  Errors name the line. */
int ctk_oci_idmap_parse(const char *text, size_t len, struct ctk_oci_idmap *out, struct ctk_error **err);

/* Whether linux.namespaces has a namespace of type "user". */
bool ctk_oci_has_user_namespace(const json_t *spec);

/* The spec's linux.gidMappings (absent: none); each entry an object of
 * unsigned 32-bit containerID, hostID and size > 0. */
int ctk_oci_spec_gid_mappings(const json_t *spec, struct ctk_oci_idmap *out, struct ctk_error **err);

/* What the rule needs to know about the namespaces. */
struct ctk_oci_gid_view {
        const struct ctk_oci_idmap *self;      /* the runtime's /proc/self/gid_map; NULL: the kernel has none */
        bool userns;                           /* the container has a user namespace of its own */
        const struct ctk_oci_idmap *container; /* then its linux.gidMappings */
        uint32_t overflow;                     /* /proc/sys/kernel/overflowgid */
};

enum ctk_oci_gid_fate {
        CTK_OCI_GID_MAPPED,           /* *out is the container's id of the group */
        CTK_OCI_GID_OVERFLOW,         /* the overflow gid: the runtime's namespace does not map the group */
        CTK_OCI_GID_NOT_MAPPED,       /* the runtime's namespace does not map it */
        CTK_OCI_GID_NOT_IN_CONTAINER, /* the container's user namespace does not map it */
};

/* The rule above for a node's group gid (in the runtime's ids). */
enum ctk_oci_gid_fate ctk_oci_gid_in_container(const struct ctk_oci_gid_view *v, uint32_t gid, uint32_t *out);

#endif
