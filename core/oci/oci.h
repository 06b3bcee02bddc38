/* core/oci: editing an OCI runtime spec (a bundle's config.json) as a
 * jansson document that keeps every field it does not know: loading and
 * writing it (spec.h), putting device nodes, cgroup rules and groups
 * (edit.h), the environment, mounts, hooks, intelRdt and net devices
 * (members.h), user namespaces and the groups a container can hold
 * (idmap.h), and the seccomp rule that opens the NUMA memory-policy calls to
 * GPU containers (seccomp_numa.h, with Docker's default profile in
 * seccomp_docker_default.h).  Uses core/base, core/json and core/device. */
#ifndef CTK_OCI_H
#define CTK_OCI_H

#include "edit.h"
#include "idmap.h"
#include "members.h"
#include "seccomp_docker_default.h"
#include "seccomp_numa.h"
#include "spec.h"

#endif
