/* amd-ctk runtime configure: its options (the Go tool's, which
 * core/base/cmdline.h spells the same way: --name, -name, --name=value,
 * -name=value; flags also =true/=false), and their checks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime_configure.h"
#include "core/base/base.h"
#include "core/config/config.h"

enum {
        O_RUNTIME,
        O_CONFIG_PATH,
        O_CONTAINERD_CONFIG,
        O_CONTAINERD_VERSION,
        O_RUNTIME_PATH,
        O_RUNTIME_ARG,
        O_CDI,
        O_NO_CDI,
        O_SET_DEFAULT,
        O_UNSET_DEFAULT,
        O_REMOVE,
        O_SWARM_RESOURCES,
        O_SWARM_IDS,
        O_SWARM_REFRESH,
        O_DRY_RUN,
};

const struct ctk_opt ctk_runtime_configure_opts[] = {
    [O_RUNTIME] = CTK_VALUE("runtime", "NAME", "docker, containerd, podman or crio (default: docker)"),
    [O_CONFIG_PATH] =
        CTK_VALUE("config-path", "PATH",
                  "the file to write (default: " DEFAULT_DOCKER_CONFIG "; /etc/containerd/conf.d/99-amd.toml, "
                  "/etc/containers/containers.conf.d/99-amd.conf, /etc/crio/crio.conf.d/99-amd.conf)"),
    [O_CONTAINERD_CONFIG] = CTK_VALUE("containerd-config", "PATH",
                                      "containerd's config.toml, which imports the drop-in (default: "
                                      "/etc/containerd/config.toml; created if missing)"),
    [O_CONTAINERD_VERSION] =
        CTK_VALUE("containerd-version", "N",
                  "its schema: 2 (containerd 1.x) or 3 (2.x); default: the version that file declares, "
                  "else 2"),
    [O_RUNTIME_PATH] =
        CTK_VALUE("runtime-path", "PATH", "the runtime executable Docker runs (default: " DEFAULT_RUNTIME_PATH ")"),
    [O_RUNTIME_ARG] =
        CTK_VALUES("runtime-arg", "ARG", "an argument Docker passes to the runtime (runtimeArgs); repeatable"),
    [O_CDI] = CTK_FLAG(
        "cdi", "set features.cdi to true (the default): Docker 25 to 28.1 need it for --device amd.com/gpu=N; 28.2 "
               "and later have CDI on by default"),
    [O_NO_CDI] = CTK_FLAG("no-cdi", "set features.cdi to false"),
    [O_SET_DEFAULT] = CTK_FLAG("set-as-default amd-set-as-default", "make amd the default runtime"),
    [O_UNSET_DEFAULT] = CTK_FLAG("unset-as-default unset-amd-as-default", "stop amd being the default runtime"),
    [O_REMOVE] = CTK_FLAG(
        "remove", "remove the amd runtime (and amd as the default runtime); keeps features.cdi, which other CDI "
                  "devices may need, and never touches /etc/cdi"),
    [O_SWARM_RESOURCES] =
        CTK_OPTIONAL("swarm-resources", "KIND",
                     "also write Docker Swarm's node-generic-resources: one KIND=ID entry per GPU or "
                     "partition found (KIND: AMD_GPU by default), replacing the entries of that kind only; "
                     "with --remove, remove them.  dockerd reads them only when it starts"),
    [O_SWARM_IDS] =
        CTK_VALUE("swarm-resource-ids", "F",
                  "uuid (the default: 0x<UUID>, and 0x<UUID>:<N> for partition N of a GPU; unique in a cluster, "
                  "stable over reboots) or index (gpu<N>, the index as in gpu list)"),
    [O_SWARM_REFRESH] = CTK_FLAG(
        "swarm-refresh", "rewrite the entries that --swarm-resources wrote last, from the GPUs found now (after a "
                         "repartition), unless they were changed since; for the refresh service"),
    [O_DRY_RUN] = CTK_FLAG("dry-run", "print the resulting file instead of writing it; writes nothing"),
    {0},
};

int ctk_runtime_configure_parse(const struct ctk_cmdline *cl, struct configure_opts *o)
{
        const struct ctk_optval *v = cl->opt;
        if (v[O_RUNTIME].value != NULL)
                o->runtime = v[O_RUNTIME].value;
        if (v[O_CONFIG_PATH].value != NULL)
                o->config_path = v[O_CONFIG_PATH].value;
        o->config_path_given = v[O_CONFIG_PATH].count > 0;
        o->containerd_config = v[O_CONTAINERD_CONFIG].value;
        o->containerd_version_text = v[O_CONTAINERD_VERSION].value;
        if (v[O_RUNTIME_PATH].value != NULL)
                o->runtime_path = v[O_RUNTIME_PATH].value;
        o->runtime_path_given = v[O_RUNTIME_PATH].count > 0;
        for (size_t i = 0; i < v[O_RUNTIME_ARG].values.n; i++)
                if (ctk_strv_push(&o->args, v[O_RUNTIME_ARG].values.v[i]) < 0)
                        return ctk_cmdline_fail(cl, "out of memory");
        o->cdi = v[O_CDI].on;
        o->no_cdi = v[O_NO_CDI].on;
        o->set_default = v[O_SET_DEFAULT].on;
        o->unset_default = v[O_UNSET_DEFAULT].on;
        o->remove = v[O_REMOVE].on;
        if (v[O_SWARM_RESOURCES].on)
                o->swarm_kind = v[O_SWARM_RESOURCES].value != NULL ? v[O_SWARM_RESOURCES].value : DEFAULT_SWARM_KIND;
        o->swarm_ids = v[O_SWARM_IDS].value;
        o->swarm_refresh = v[O_SWARM_REFRESH].on;
        o->dry_run = v[O_DRY_RUN].on;
        return 0;
}

/* The Swarm options' checks: a message, or NULL. */
static const char *check_swarm(const struct configure_opts *o)
{
        bool docker = strcmp(o->runtime, "docker") == 0;
        if (o->swarm_refresh &&
            (o->swarm_kind != NULL || o->swarm_ids != NULL || o->remove || o->set_default || o->unset_default ||
             o->cdi || o->no_cdi || o->config_path_given || o->runtime_path_given || o->args.n > 0 || !docker))
                return "--swarm-refresh takes no other option than --dry-run (it rewrites the file and kind that "
                       "--swarm-resources wrote last)";
        if (o->swarm_kind == NULL) {
                if (o->swarm_ids != NULL)
                        return "--swarm-resource-ids goes with --swarm-resources";
                return NULL;
        }
        if (!docker)
                return "--swarm-resources applies to docker only (Swarm reads node-generic-resources from "
                       "daemon.json)";
        if (o->unset_default)
                return "--swarm-resources goes with adding or --remove, not with --unset-as-default";
        if (o->swarm_ids != NULL && o->remove)
                return "--swarm-resource-ids only applies when adding the entries (not with --remove)";
        return NULL;
}

int ctk_runtime_configure_check(const struct ctk_cmdline *cl, const struct configure_opts *o)
{
        const char *msg = NULL;
        bool docker = strcmp(o->runtime, "docker") == 0, containerd = strcmp(o->runtime, "containerd") == 0;
        if (!docker && !containerd && strcmp(o->runtime, "podman") != 0 && strcmp(o->runtime, "crio") != 0)
                return ctk_cmdline_bad_value(cl, "--runtime", o->runtime, "docker, containerd, podman or crio");
        if (o->containerd_version_text != NULL && strcmp(o->containerd_version_text, "2") != 0 &&
            strcmp(o->containerd_version_text, "3") != 0)
                return ctk_cmdline_bad_value(cl, "--containerd-version", o->containerd_version_text,
                                             "2 for containerd 1.x, 3 for containerd 2.x");
        if (o->swarm_kind != NULL && !ctk_config_kind_valid(o->swarm_kind))
                return ctk_cmdline_bad_value(cl, "--swarm-resources", o->swarm_kind,
                                             "a kind of letters, digits, '_', '-' and '.', e.g. AMD_GPU");
        if (o->swarm_ids != NULL && strcmp(o->swarm_ids, "uuid") != 0 && strcmp(o->swarm_ids, "index") != 0)
                return ctk_cmdline_bad_value(cl, "--swarm-resource-ids", o->swarm_ids, "uuid or index");
        if (o->config_path[0] == '\0')
                return ctk_cmdline_bad_value(cl, "--config-path", "", "a file name");
        if (o->runtime_path[0] == '\0')
                return ctk_cmdline_bad_value(cl, "--runtime-path", "", "a program");
        if (!docker && (o->args.n > 0 || o->cdi || o->no_cdi))
                msg =
                    "--runtime-arg, --cdi and --no-cdi apply to docker only (containerd's drop-in always enables CDI)";
        else if (!containerd && (o->containerd_config != NULL || o->containerd_version_text != NULL))
                msg = "--containerd-config and --containerd-version apply to containerd only";
        else if (o->set_default && o->unset_default)
                msg = "both set and unset as default cannot be used at the same time";
        else if (o->remove && (o->set_default || o->unset_default))
                msg = "remove flag cannot be used along with set-as-default flag";
        else if ((o->remove || o->unset_default) && (o->runtime_path_given || o->args.n > 0))
                msg = "--runtime-path and --runtime-arg only apply when adding the runtime (not with --remove or "
                      "--unset-as-default)";
        else if (o->cdi && o->no_cdi)
                msg = "--cdi and --no-cdi cannot be used at the same time";
        else if ((o->cdi || o->no_cdi) && (o->remove || o->unset_default))
                msg = "--cdi and --no-cdi only apply when adding the runtime (not with --remove or --unset-as-default)";
        else
                msg = check_swarm(o);
        return msg != NULL ? ctk_cmdline_fail(cl, "%s", msg) : 0;
}
