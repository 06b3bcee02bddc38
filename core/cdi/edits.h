/* Container edits (CDI containerEdits) in C, and the one description of
 * what a GPU gives a container (ctk_cdi_device_edits): `cdi generate`
 * writes it into the spec (ctk_cdi_edits_to_json), `cdi validate` compares
 * a spec with it, and the runtime's discovery path applies it with the
 * applier that applies the spec's own edits (apply.h).
 *
 * Strings are borrowed from the document or the host the edits were made
 * from: the edits own only their arrays. */
#ifndef CTK_CDI_EDITS_H
#define CTK_CDI_EDITS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/base.h"

/* deviceNodes[] */
struct ctk_cdi_node {
        const char *path;
        const char *host_path;   /* NULL: path */
        char type;               /* '\0' (unset), 'b', 'c', 'u', 'p' */
        int64_t major, minor;    /* 0: unset */
        const char *permissions; /* NULL: unset ("rwm") */
        bool has_mode, has_uid, has_gid;
        uint32_t mode; /* fileMode */
        uint32_t uid, gid;
};

struct ctk_cdi_edits {
        const char **env; /* "NAME=value" */
        size_t nenv;
        struct ctk_cdi_node *nodes;
        size_t nnodes;
        const json_t **mounts; /* mounts[] objects (hostPath, containerPath, type?, options?) */
        size_t nmounts;
        const json_t **hooks; /* hooks[] objects (hookName, path, args?, env?, timeout?) */
        size_t nhooks;
        uint32_t *gids; /* additionalGids */
        size_t ngids;
        const json_t *intel_rdt; /* intelRdt, or NULL */
        const json_t **netdevs;  /* netDevices[] objects (hostInterfaceName, name) */
        size_t nnetdevs;
};

/* The edits of a containerEdits object of a checked spec (NULL: none). */
int ctk_cdi_edits_from_json(const json_t *container_edits, struct ctk_cdi_edits *out, struct ctk_error **err);
/* A containerEdits object: members in the order CDI lists them, only
 * those the edits have; NULL when out of memory. */
json_t *ctk_cdi_edits_to_json(const struct ctk_cdi_edits *e);
/* Frees the arrays and zeroes the edits. */
void ctk_cdi_edits_clear(struct ctk_cdi_edits *e);
static inline void ctk_cdi_edits_clearp(struct ctk_cdi_edits *e)
{
        ctk_cdi_edits_clear(e);
}
#define _cleanup_cdi_edits_ __attribute__((cleanup(ctk_cdi_edits_clearp)))

struct ctk_cdi_device;
/* What a device of the host gives a container: each of its nodes (type c
 * or b, the host's numbers, mode and owner, permissions rwm), and with
 * gids the groups the container user needs to open them
 * (ctk_oci_devnode_needs_group; ascending).  Borrows the device's nodes. */
int ctk_cdi_device_edits(const struct ctk_cdi_device *d, bool gids, struct ctk_cdi_edits *out, struct ctk_error **err);

#endif
