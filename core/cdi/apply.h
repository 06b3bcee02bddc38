/* Applying container edits to an OCI spec, the way CDI runtimes inject
 * devices (the reference library's ContainerEdits.Apply), for the edits of
 * CDI devices and for the runtime's discovered GPUs alike:
 *
 *   env              replaces an entry of the same NAME in place, else is
 *                    appended; a later edit wins
 *   deviceNodes      type, numbers and fileMode the spec leaves out come
 *                    from the host node (hostPath, else path) through the
 *                    backend; uid/gid left out are the container user's when
 *                    not root; the linux.devices entry of the same path is
 *                    replaced; b and c nodes get an allow rule with their
 *                    permissions ("rwm" when unset, none for "none")
 *   mounts           replace the mount of the same destination; bind mounts
 *                    get idmap/ridmap in a user namespace; all mounts are
 *                    then sorted stably by destination depth
 *   hooks            appended after the spec's own, by kind; a hook the
 *                    spec already has (same kind, path, args, env, timeout)
 *                    is not added again: containerd and CRI-O with CDI on
 *                    inject what cdi.k8s.io/ annotations name and then run
 *                    the runtime, which reads the same annotations
 *   additionalGids   each non-zero group once
 *   intelRdt         the last one wins
 *   netDevices       linux.netDevices[hostInterfaceName] = {name}
 *
 * Edits are taken in the order given (the caller puts a spec's own edits
 * before the first of its devices).  What CDI calls a conflict fails the
 * whole call with one line naming both origins, before anything changes:
 * two origins giving one container path different device nodes (or
 * different mounts), one host interface different names, one name two
 * host interfaces.  So does a node whose host device cannot be stat'ed
 * when the spec needs it.  All or nothing: on failure the spec is as it
 * was (short of running out of memory). */
#ifndef CTK_CDI_APPLY_H
#define CTK_CDI_APPLY_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/base/base.h"
#include "core/device/device.h"
#include "core/oci/oci.h"
#include "edits.h"

/* Edits and where they come from, for messages. */
struct ctk_cdi_origin {
        const char *name; /* "amd.com/gpu=0", "GPU 0" */
        const char *file; /* the spec file, or NULL */
        const struct ctk_cdi_edits *edits;
};

struct ctk_cdi_apply_stats {
        size_t env, devices, rules, mounts, hooks, gids, netdevs;
        bool intel_rdt;
};

/* Applies the edits of o[0..n) to the OCI spec (see above); b answers for
 * the host's device nodes.  stats (optional) counts what changed. */
int ctk_cdi_apply(json_t *oci, const struct ctk_cdi_origin *o, size_t n, struct ctk_backend *b,
                  struct ctk_cdi_apply_stats *stats, struct ctk_error **err);

/* Whether applying the node stats its host device: unless the node has a
 * type, a major number (or is a FIFO) and a fileMode, as our specs and the
 * device model state every node. */
bool ctk_cdi_node_needs_host(const struct ctk_cdi_node *n);

/* "amd.com/gpu=0 (/etc/cdi/amd.json)", or the name alone; NULL on ENOMEM. */
char *ctk_cdi_origin_label(const struct ctk_cdi_origin *o);

/* The linux.devices entries of the device nodes of o[0..n), resolved
 * against the host and the container user (uid, gid) and checked for
 * conflicts: one per container path, in the order paths first appear, the
 * last edit of a path winning.  *out is malloc'ed (strings borrowed from
 * the edits). */
int ctk_cdi_resolve_nodes(const struct ctk_cdi_origin *o, size_t n, struct ctk_backend *b, json_int_t uid,
                          json_int_t gid, struct ctk_oci_device **out, size_t *nout, struct ctk_error **err);

#endif
