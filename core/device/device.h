/* core/device: what the host's GPUs are.  Owns the backend seam (backend.h:
 * every read of /sys and /dev goes through it, so that the real host, an
 * in-memory profile and a FUSE mount look the same), GPU discovery and its
 * index order (discover.c, discover_order.c, kfd_topology.h), device nodes
 * as stat() sees them (devnode.h), UUIDs, PCI display names, Swarm resource
 * ids (resource_id.h) and the selection grammar of AMD_VISIBLE_DEVICES /
 * DOCKER_RESOURCE_* (select.h).  Uses core/base and core/json. */
#ifndef CTK_DEVICE_H
#define CTK_DEVICE_H

#include "backend.h"
#include "devnode.h"
#include "gpu.h"
#include "kfd_topology.h"
#include "pci_display.h"
#include "resource_id.h"
#include "select.h"

#endif
