/* Docker's default seccomp profile (Docker's JSON profile format), for
 * `amd-ctk seccomp profile` when no --base profile is given. */
#ifndef CTK_SECCOMP_DOCKER_DEFAULT_H
#define CTK_SECCOMP_DOCKER_DEFAULT_H

#include <jansson.h>

/* A new document: defaultAction, defaultErrnoRet, archMap, syscalls.
 * NULL when out of memory. */
json_t *ctk_seccomp_docker_default_profile(void);

#endif
