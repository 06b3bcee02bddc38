/* core/engines: the configuration files of the container engines that
 * `amd-ctk runtime configure` edits (docker.h: daemon.json).  Pure edits:
 * text in, text out; the command does the file handling.  Uses every folder
 * below it (core/base, core/json, core/device, core/config, core/oci,
 * core/cdi, core/tracker). */
#ifndef CTK_ENGINES_H
#define CTK_ENGINES_H

#include "docker.h"

#endif
