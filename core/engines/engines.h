/* core/engines: the configuration files of the container engines that
 * `amd-ctk runtime configure` edits: Docker's daemon.json (docker.h, and its
 * Swarm generic resources: docker_resources.h), the
 * drop-ins of containerd, Podman and CRI-O and containerd's imports
 * (dropins.h), through a strict TOML reader (toml.h).  Pure edits: text
 * in, text out; the command does the file handling.  Uses every folder
 * below it (core/base, core/json, core/device, core/config, core/oci,
 * core/cdi, core/tracker). */
#ifndef CTK_ENGINES_H
#define CTK_ENGINES_H

#include "docker.h"
#include "docker_resources.h"
#include "dropins.h"
#include "toml.h"

#endif
