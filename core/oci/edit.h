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
#include <stdint.h>
#include <sys/types.h>

#include "core/device/device.h"
#include "core/base/base.h"

/* The spec must be a JSON object. */
int ctk_oci_check_root(const json_t *spec, struct ctk_error **err);

/* process.env as an array of borrowed strings (valid while spec is).  A
 * missing process or env gives n = 0.  *env is NULL-terminated; free() it. */
int ctk_oci_env(const json_t *spec, const char ***env, size_t *n, struct ctk_error **err);

/* True when a process needs the node's group to open it: the node is not
 * world read-write, its group has access and the group is not root. */
bool ctk_oci_devnode_needs_group(const struct ctk_devnode *d);

/* Adds gid to process.user.additionalGids unless it is there already or is
 * the user's primary gid.  Without a process object nothing is done. */
int ctk_oci_add_additional_gid(json_t *spec, gid_t gid, bool *changed, struct ctk_error **err);

/* A linux.devices entry and its device cgroup rule. */
struct ctk_oci_device {
        const char *path;
        char type; /* 'c', 'b', 'u' or 'p' */
        int64_t major, minor;
        bool has_mode, has_uid, has_gid;
        uint32_t mode; /* fileMode */
        uint32_t uid, gid;
        const char *access; /* of the allow rule ("rwm"; "" none); NULL, or type u or p: no rule */
};

/* What an edit added or replaced. */
struct ctk_oci_edit_stats {
        size_t devices, rules, gids;
};

/* Puts each device into linux.devices: an entry with the same path is
 * replaced in place (CDI's rule), one equal to it is left as it is; for
 * types c and b, an allow rule with the access to linux.resources.devices
 * unless an exact allow rule not undone by a later deny grants it already.
 * stats (optional) counts entries added or replaced and rules added. */
int ctk_oci_put_devices(json_t *spec, const struct ctk_oci_device *d, size_t n, struct ctk_oci_edit_stats *stats,
                        struct ctk_error **err);

#endif
