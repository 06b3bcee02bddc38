/* Editing an OCI runtime spec (a bundle's config.json) held as a generic
 * jansson document: unknown and future fields, and key order, are kept.
 *
 * Error messages name the offending member ("linux.devices[2] is not an
 * object"); callers prefix the file name. */
#ifndef CTK_OCI_EDIT_H
#define CTK_OCI_EDIT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/device/device.h"
#include "core/base/base.h"

/* The spec must be a JSON object. */
int ctk_oci_check_root(const json_t *spec, struct ctk_error **err);

/* process.env as an array of borrowed strings (valid while spec is).  A
 * missing process or env gives n = 0.  *env is NULL-terminated; free() it. */
int ctk_oci_env(const json_t *spec, const char ***env, size_t *n, struct ctk_error **err);

/* Adds the node to linux.devices (path, type, major, minor, fileMode, uid,
 * gid) unless an entry with the same path exists, and an allow rule (type,
 * major, minor, access "rwm") to linux.resources.devices unless the device is
 * already allowed rwm by an exact rule not followed by a deny.  *changed is
 * set when something was added. */
int ctk_oci_add_devnode(json_t *spec, const struct ctk_devnode *d, bool *changed, struct ctk_error **err);

/* True when a process needs the node's group to open it: the node is not
 * world read-write, its group has access and the group is not root. */
bool ctk_oci_devnode_needs_group(const struct ctk_devnode *d);

/* Adds gid to process.user.additionalGids unless it is there already or is
 * the user's primary gid.  Without a process object nothing is done. */
int ctk_oci_add_additional_gid(json_t *spec, gid_t gid, bool *changed, struct ctk_error **err);

/* Adds all nodes and, where needed, their groups.  Counts what was added. */
struct ctk_oci_edit_stats {
        size_t devices, rules, gids;
};
int ctk_oci_add_devnodes(json_t *spec, const struct ctk_devnode *nodes, size_t n, struct ctk_oci_edit_stats *stats,
                         struct ctk_error **err);

#endif
