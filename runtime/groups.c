/* The groups of the discovered GPUs' nodes that the container gets: each
 * group its user namespace maps, as the container's id of it; the others
 * are left out with one warning line that names the nodes and what to do
 * (core/oci/idmap.h has the rule).  A rootless container opens them only
 * when it keeps the groups of the user who ran the engine (crun's
 * annotation run.oci.keep_original_groups: Podman's --group-add
 * keep-groups); a low-level runtime that does not do that fails the create
 * then, rather than give a container GPUs it cannot open. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/base.h"
#include "core/config/config.h"
#include "core/oci/oci.h"
#include "job.h"

#define SELF_GID_MAP "/proc/self/gid_map"
#define OVERFLOW_GID "/proc/sys/kernel/overflowgid"
/* crun's annotation for --group-add keep-groups: the process keeps the
 * groups of the user who ran the engine, additionalGids are not set */
#define KEEP_GROUPS "run.oci.keep_original_groups"

/* The runtime's own gid map; *have is false on a kernel without user
 * namespaces (no such file). */
static int self_map(struct ctk_oci_idmap *out, bool *have, struct ctk_error **err)
{
        *have = false;
        _cleanup_free_ char *text = NULL;
        _cleanup_error_ struct ctk_error *e = NULL;
        size_t len;
        if (ctk_file_read_all(SELF_GID_MAP, &text, &len, &e) < 0)
                return e->code == ENOENT ? 0 : ctk_error_set(err, e->code, "%s", e->msg);
        if (ctk_oci_idmap_parse(text, len, out, err) < 0)
                return ctk_error_prefix(err, "%s", SELF_GID_MAP);
        *have = true;
        return 0;
}

/* The kernel's overflow gid; its default when the file cannot be read. */
static uint32_t overflow_gid(void)
{
        _cleanup_free_ char *text = NULL;
        size_t len;
        uint64_t v;
        if (ctk_file_read_all(OVERFLOW_GID, &text, &len, NULL) < 0)
                return CTK_OCI_OVERFLOW_ID;
        while (len > 0 && text[len - 1] == '\n')
                len--;
        return ctk_parse_u64_dec(text, len, UINT32_MAX, &v) == 0 ? (uint32_t)v : CTK_OCI_OVERFLOW_ID;
}

static bool keeps_groups(const json_t *spec)
{
        const char *v = json_string_value(json_object_get(json_object_get(spec, "annotations"), KEEP_GROUPS));
        return v != NULL && strcmp(v, "1") == 0;
}

/* "/dev/kfd, /dev/dri/renderD128": the nodes of group gid. */
static char *nodes_of(const struct ctk_cdi_edits *e, uint32_t gid)
{
        char *s = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&s, &len);
        if (f == NULL)
                return NULL;
        bool first = true;
        for (size_t i = 0; i < e->nnodes; i++)
                if (e->nodes[i].has_gid && e->nodes[i].gid == gid) {
                        fprintf(f, "%s%s", first ? "" : ", ", e->nodes[i].path);
                        first = false;
                }
        return fclose(f) == 0 ? s : NULL;
}

/* One line: which nodes, why, what to do.  A container that keeps the
 * user's groups (keep-groups) has them anyway: the log only. */
static void warn_left_out(const struct rt_job *j, uint32_t gid, enum ctk_oci_gid_fate fate, bool keep)
{
        _cleanup_free_ char *nodes = nodes_of(&j->gpu_edits[0], gid);
        const char *id = j->args->id != NULL ? j->args->id : "?";
        const char *what = nodes != NULL ? nodes : "the GPU nodes";
        _cleanup_free_ char *line = NULL;
        int r;
        if (fate == CTK_OCI_GID_NOT_IN_CONTAINER)
                r = asprintf(&line,
                             "container %s: group %u of %s is not added to the container's groups: its user namespace "
                             "does not map it (linux.gidMappings); map that group into the container to open them",
                             id, (unsigned)gid, what);
        else
                r = asprintf(&line,
                             "container %s: the group of %s is not added to the container's groups: the runtime's user "
                             "namespace does not map it (it reads as gid %u); a rootless container opens them when it "
                             "keeps the groups of its user (who must be in that group): Podman's --group-add "
                             "keep-groups, Docker's --annotation " KEEP_GROUPS "=1, with crun as the low-level runtime",
                             id, what, (unsigned)gid);
        if (r < 0)
                return;
        ctk_log(keep ? CTK_LOG_INFO : CTK_LOG_WARNING, "%s", CTK_CUT(line));
        if (!keep)
                fprintf(stderr, "amd-container-runtime: warning: %s\n", line);
}

/* Whether the low-level runtime keeps the user's groups when asked (crun,
 * and crun's builds krun and crun-wasm, do; runc does not). */
static bool keeps_groups_when_asked(const char *runtime)
{
        const char *base = strrchr(runtime, '/');
        base = base != NULL ? base + 1 : runtime;
        return strcmp(base, "crun") == 0 || strncmp(base, "crun-", 5) == 0 || strcmp(base, "krun") == 0;
}

int rt_job_map_groups(struct rt_job *j, struct ctk_error **err)
{
        struct ctk_cdi_edits *e = &j->gpu_edits[0];
        if (e->ngids == 0)
                return 0;
        struct ctk_oci_idmap self = {0}, container = {0};
        bool have_self;
        if (self_map(&self, &have_self, err) < 0)
                return -1;
        struct ctk_oci_gid_view v = {.self = have_self ? &self : NULL,
                                     .userns = ctk_oci_has_user_namespace(j->spec),
                                     .container = &container,
                                     .overflow = overflow_gid()};
        if (v.userns && ctk_oci_spec_gid_mappings(j->spec, &container, err) < 0) {
                ctk_oci_idmap_clear(&self);
                return ctk_error_prefix(err, "invalid container spec: %s", CTK_CUT(j->spec_path));
        }
        bool keep = keeps_groups(j->spec);
        size_t n = 0;
        for (size_t i = 0; i < e->ngids; i++) {
                uint32_t out;
                enum ctk_oci_gid_fate fate = ctk_oci_gid_in_container(&v, e->gids[i], &out);
                if (fate == CTK_OCI_GID_MAPPED)
                        e->gids[n++] = out;
                else
                        warn_left_out(j, e->gids[i], fate, keep);
        }
        bool left_out = n < e->ngids;
        e->ngids = n;
        ctk_oci_idmap_clear(&self);
        ctk_oci_idmap_clear(&container);
        if (keep && left_out && j->runtime != NULL && !keeps_groups_when_asked(j->runtime)) {
                const char *config = rt_args_config_file(j->args);
                return ctk_error_set(err, EINVAL,
                                     "container %s keeps its user's groups for GPU nodes (" KEEP_GROUPS
                                     ": Podman's --group-add keep-groups) but %s does not keep them: set "
                                     "\"runtime-path\": \"crun\" in %s",
                                     CTK_CUT(j->args->id != NULL ? j->args->id : "?"), CTK_CUT(j->runtime),
                                     CTK_CUT(config != NULL ? config : CTK_DEFAULT_CONFIG_PATH));
        }
        return 0;
}
