/* Opening the NUMA memory-policy syscalls in a seccomp profile.
 *
 * Docker's default seccomp profile allows get_mempolicy, mbind, set_mempolicy
 * and set_mempolicy_home_node only to containers with CAP_SYS_NICE, but
 * NUMA-aware GPU code (libnuma, numactl, ROCm's HPC stack) needs them.  Instead
 * of running such containers with seccomp=unconfined, we keep the profile and
 * add exactly one rule that allows these calls.
 *
 * The edit is pure: it works on a jansson document and changes it only on
 * success.  It adds nothing when the profile's default action already allows
 * calls (SCMP_ACT_ALLOW, SCMP_ACT_LOG) or hands them to a supervisor
 * (SCMP_ACT_NOTIFY), when unconditional rules already allow every name, or when
 * the profile is absent.  Names that an existing rule gives another action
 * (e.g. an explicit SCMP_ACT_ERRNO) are the profile author's decision and are
 * left alone.  Names are resolved with libseccomp for every architecture the
 * profile lists (the native one when it lists none); a name that no listed
 * architecture knows is left out. */
#ifndef CTK_SECCOMP_NUMA_H
#define CTK_SECCOMP_NUMA_H

#include <jansson.h>
#include <stdbool.h>

#include "core/base/base.h"

/* get_mempolicy, mbind, set_mempolicy, set_mempolicy_home_node; NULL-terminated. */
extern const char *const ctk_seccomp_numa_syscalls[];

enum ctk_seccomp_format {
        CTK_SECCOMP_OCI,    /* an OCI runtime spec's linux.seccomp object */
        CTK_SECCOMP_DOCKER, /* a Docker seccomp profile (archMap, includes/excludes) */
};

/* Ensures that the seccomp profile `profile` (in format `fmt`) allows the
 * syscalls `names` (NULL-terminated) unconditionally, by appending one rule
 * {"names": [...], "action": "SCMP_ACT_ALLOW"} with the names still missing.
 * `where` names the profile in error messages (e.g. "linux.seccomp").
 * *changed tells whether a rule was added.  On error the profile is unchanged. */
int ctk_seccomp_allow_syscalls(json_t *profile, enum ctk_seccomp_format fmt, const char *where,
                               const char *const *names, bool *changed, struct ctk_error **err);

/* The NUMA edit on an OCI runtime spec (the whole config.json document):
 * edits linux.seccomp when present.  On error the spec is unchanged. */
int ctk_seccomp_numa_edit_spec(json_t *spec, bool *changed, struct ctk_error **err);

/* The NUMA edit on a Docker seccomp profile (what `docker run --security-opt
 * seccomp=FILE` reads).  On error the profile is unchanged. */
int ctk_seccomp_numa_edit_docker_profile(json_t *profile, bool *changed, struct ctk_error **err);

#endif
