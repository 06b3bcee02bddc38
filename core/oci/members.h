/* The other members of an OCI spec that container edits (CDI's
 * containerEdits) put: process.env, mounts, hooks, linux.intelRdt,
 * linux.netDevices; and the check that the members an edit touches have
 * the types it needs, so that a set of edits is applied entirely or not at
 * all (after the check only a failed allocation can stop it). */
#ifndef CTK_OCI_MEMBERS_H
#define CTK_OCI_MEMBERS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/base/base.h"

/* Fails with the first member an edit could not handle: process,
 * process.env (strings), process.user (integer uid, gid, additionalGids),
 * linux, linux.devices (objects), linux.resources(.devices, objects),
 * linux.namespaces, linux.netDevices, mounts (objects with a string
 * destination), hooks and its arrays. */
int ctk_oci_check_editable(const json_t *spec, struct ctk_error **err);

/* The container user's uid and gid (process.user; 0 when absent). */
void ctk_oci_user_ids(const json_t *spec, json_int_t *uid, json_int_t *gid);

/* Puts "NAME=value" into process.env (created when absent): an entry with
 * the same NAME is replaced in place, a new NAME appended.  *changed
 * (optional) is set when the array changed. */
int ctk_oci_env_put(json_t *spec, const char *entry, bool *changed, struct ctk_error **err);

/* Puts OCI mounts ({destination, type?, source, options?}) into mounts: a
 * mount with the same destination is removed first; with a user namespace
 * in linux.namespaces a bind mount gets "idmap" (an rbind one "ridmap")
 * unless it has one of them.  Then every mount is sorted, stably, by the
 * number of components of its cleaned destination, shallowest first.  The
 * mounts are taken (their references). */
int ctk_oci_put_mounts(json_t *spec, json_t *const *mounts, size_t n, struct ctk_error **err);

/* Appends an OCI hook ({path, args?, env?, timeout?}, taken) to
 * hooks.<kind> (prestart, createRuntime, createContainer, startContainer,
 * poststart, poststop), unless that list has one with the same path, args,
 * env and timeout (absent, empty and null count as the same): an engine
 * that injected the CDI devices itself before calling the runtime must not
 * get the hook run twice.  *added (optional) says whether it was. */
int ctk_oci_add_hook(json_t *spec, const char *kind, json_t *hook, bool *added, struct ctk_error **err);

/* Sets linux.intelRdt to rdt (taken). */
int ctk_oci_set_intel_rdt(json_t *spec, json_t *rdt, struct ctk_error **err);

/* Sets linux.netDevices[host_if] = {"name": name}. */
int ctk_oci_set_net_device(json_t *spec, const char *host_if, const char *name, struct ctk_error **err);

#endif
