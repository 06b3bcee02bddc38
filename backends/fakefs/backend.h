/* The in-memory fakefs backend (ctk_fakefs_backend_new is declared in
 * backends/open.h). */
#ifndef CTK_FAKEFS_BACKEND_H
#define CTK_FAKEFS_BACKEND_H

#include "backends/fakefs/host.h"
#include "core/device/device.h"
#include "core/base/base.h"

/* A backend answering from a host's current tree (takes a reference to the
 * host: repartitioning or unplugging through the host is visible to it). */
int ctk_fakefs_backend_from_host(struct ctk_fakefs_host *host, struct ctk_backend **out, struct ctk_error **err);

#endif
