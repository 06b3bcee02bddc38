/* The KFD topology (/sys/class/kfd/kfd/topology/nodes/<n>/properties):
 * "key value" lines, decimal values as the kernel prints them.
 *
 * Number rule: values are unsigned decimal; leading zeros are decimal
 * ("0123" is 123 -- the kernel never prints octal, unlike the Go toolkit's
 * base-0 parse).  A negative value or a missing key means "absent" (the Go
 * toolkit's regexes do not match them either); any other value that is not a
 * decimal number in range is an error naming the file and the key. */
#ifndef CTK_KFD_TOPOLOGY_H
#define CTK_KFD_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "core/base/base.h"

#define CTK_KFD_NODES_DIR "/sys/class/kfd/kfd/topology/nodes"

/* The properties discovery needs from one node. */
struct ctk_kfd_props {
        bool has_render_minor, has_location_id, has_domain, has_unique_id;
        uint32_t render_minor; /* drm_render_minor (0 on CPU nodes), <= INT32_MAX */
        uint32_t location_id;  /* PCI (bus << 8) | (device << 3) | function of the node */
        uint32_t domain;       /* PCI domain */
        uint64_t unique_id;
};

/* Parses the text of one properties file (path is used in messages only).
 * Lines end with "\n" or "\r\n"; the first line of a key wins. */
int ctk_kfd_props_parse(const char *text, size_t len, const char *path, struct ctk_kfd_props *out,
                        struct ctk_error **err);

/* One GPU (or GPU partition) node of the topology, keyed by render minor. */
struct ctk_kfd_node {
        int id;                /* node directory number; -1 when not a number */
        uint32_t render_minor; /* > 0 */
        bool has_location;     /* location_id and domain present */
        uint32_t location_id, domain;
        uint64_t group; /* (domain << 16) | (bus << 8) | device: one physical GPU */
        bool has_unique_id;
        uint64_t unique_id;
};

/* GPU nodes in ascending render-minor order, one per render minor.  When
 * several nodes report the same minor the later node (in directory-name
 * order) wins, separately for the location and the unique_id, as in the Go
 * toolkit.  A missing topology directory gives an empty list. */
struct ctk_kfd_topology {
        struct ctk_kfd_node *v;
        size_t n;
};

/* Reads the KFD topology nodes below /sys/class/kfd/kfd/topology/nodes through the backend. */
int ctk_kfd_topology_read(struct ctk_backend *b, struct ctk_kfd_topology *out, struct ctk_error **err);
/* The node whose drm_render_minor is render_minor, or NULL. */
const struct ctk_kfd_node *ctk_kfd_topology_find(const struct ctk_kfd_topology *t, uint32_t render_minor);
/* Frees the list and zeroes it. */
void ctk_kfd_topology_clear(struct ctk_kfd_topology *t);

/* The PCI bus and device numbers encoded in a location_id. */
static inline unsigned ctk_kfd_location_bus(uint32_t location_id)
{
        return (location_id >> 8) & 0xff;
}
static inline unsigned ctk_kfd_location_dev(uint32_t location_id)
{
        return (location_id >> 3) & 0x1f;
}

#endif
