/* amd-ctk runtime configure: its options, as the Go tool spells them
 * (--name, -name, --name=value, -name=value; booleans also =true/=false),
 * and their checks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime_configure.h"
#include "core/base/base.h"
#include "core/config/config.h"

const char ctk_runtime_configure_usage[] =
    "Usage: amd-ctk runtime configure [options]\n"
    "\n"
    "Configure a runtime to the container engine: adds the 'amd' runtime\n"
    "(amd-container-runtime) to Docker's daemon.json and enables CDI there\n"
    "(other settings and their order are kept; the previous file is saved as\n"
    "<config-path>.bak), or writes a drop-in file for containerd (and adds it\n"
    "to the imports of its config.toml), Podman or CRI-O.  Restart the engine\n"
    "afterwards (Podman needs no restart).  containerd's drop-in holds a copy of\n"
    "config.toml's CRI plugin section (containerd before 2.1 replaces that whole\n"
    "section with an imported one): after editing that section, run this again.\n"
    "\n"
    "Options:\n"
    "   --runtime NAME          docker, containerd, podman or crio (default: docker)\n"
    "   --config-path PATH      the file to write (default: " DEFAULT_DOCKER_CONFIG ";\n"
    "                           /etc/containerd/conf.d/99-amd.toml,\n"
    "                           /etc/containers/containers.conf.d/99-amd.conf,\n"
    "                           /etc/crio/crio.conf.d/99-amd.conf)\n"
    "   --containerd-config PATH  containerd's config.toml, which imports the drop-in\n"
    "                           (default: /etc/containerd/config.toml; created if missing)\n"
    "   --containerd-version N  its schema: 2 (containerd 1.x) or 3 (2.x); default: the\n"
    "                           version that file declares, else 2\n"
    "   --runtime-path PATH     the runtime executable Docker runs (default: " DEFAULT_RUNTIME_PATH ")\n"
    "   --runtime-arg ARG       an argument Docker passes to the runtime (runtimeArgs); repeatable\n"
    "   --cdi                   set features.cdi to true (the default): Docker 25 to 28.1 need it\n"
    "                           for --device amd.com/gpu=N; 28.2 and later have CDI on by default\n"
    "   --no-cdi                set features.cdi to false\n"
    "   --set-as-default        make amd the default runtime (alias --amd-set-as-default)\n"
    "   --unset-as-default      stop amd being the default runtime (alias --unset-amd-as-default)\n"
    "   --remove                remove the amd runtime (and amd as the default runtime); keeps\n"
    "                           features.cdi, which other CDI devices may need, and never\n"
    "                           touches /etc/cdi\n"
    "   --swarm-resources[=KIND]  also write Docker Swarm's node-generic-resources: one\n"
    "                           KIND=ID entry per GPU or partition found (KIND: AMD_GPU\n"
    "                           by default), replacing the entries of that kind only;\n"
    "                           with --remove, remove them.  dockerd reads them only\n"
    "                           when it starts\n"
    "   --swarm-resource-ids F  uuid (the default: 0x<UUID>, and 0x<UUID>:<N> for\n"
    "                           partition N of a GPU; unique in a cluster, stable over\n"
    "                           reboots) or index (gpu<N>, the index as in gpu list)\n"
    "   --swarm-refresh         rewrite the entries that --swarm-resources wrote last,\n"
    "                           from the GPUs found now (after a repartition), unless\n"
    "                           they were changed since; for the refresh service\n"
    "   --dry-run               print the resulting file instead of writing it\n"
    "   --help, -h              show this help\n";

/* Matches argv[*i] against --name/-name with an optional "=value".
 * Returns 1 and sets *value (NULL when no "=") on a match. */
static int match(const char *arg, const char *name, const char **value)
{
        if (arg[0] != '-')
                return 0;
        arg += arg[1] == '-' ? 2 : 1;
        size_t n = strlen(name);
        if (strncmp(arg, name, n) != 0 || (arg[n] != '\0' && arg[n] != '='))
                return 0;
        *value = arg[n] == '=' ? arg + n + 1 : NULL;
        return 1;
}

static int bool_value(const char *opt, const char *value, bool *out)
{
        if (value == NULL || strcmp(value, "true") == 0) {
                *out = true;
                return 0;
        }
        if (strcmp(value, "false") == 0) {
                *out = false;
                return 0;
        }
        fprintf(stderr, "amd-ctk: option %s takes no value other than true or false (got '%s')\n", opt, value);
        return -1;
}

/* The boolean options (two spellings for some), as offsets into the options. */
static const struct {
        const char *name, *alias;
        size_t offset;
} bool_options[] = {
    {"set-as-default", "amd-set-as-default", offsetof(struct configure_opts, set_default)},
    {"unset-as-default", "unset-amd-as-default", offsetof(struct configure_opts, unset_default)},
    {"remove", NULL, offsetof(struct configure_opts, remove)},
    {"dry-run", NULL, offsetof(struct configure_opts, dry_run)},
    {"no-cdi", NULL, offsetof(struct configure_opts, no_cdi)},
    {"cdi", NULL, offsetof(struct configure_opts, cdi)},
    {"swarm-refresh", NULL, offsetof(struct configure_opts, swarm_refresh)},
};

/* The index in bool_options of the option arg names, or -1; value NULL
 * means --name or --name=true. */
static int bool_option(const char *arg, const char **value)
{
        for (size_t i = 0; i < sizeof(bool_options) / sizeof(bool_options[0]); i++)
                if (match(arg, bool_options[i].name, value) ||
                    (bool_options[i].alias != NULL && match(arg, bool_options[i].alias, value)))
                        return (int)i;
        return -1;
}

int ctk_runtime_configure_parse(int argc, char **argv, struct configure_opts *o)
{
        for (int i = 1; i < argc; i++) {
                const char *a = argv[i], *v = NULL;
                const char **slot = NULL;
                bool to_args = false; /* --runtime-arg: one more of the runtime's arguments */
                int b = bool_option(a, &v);
                if (b >= 0) {
                        if (bool_value(a, v, (bool *)((char *)o + bool_options[b].offset)) < 0)
                                return 2;
                        continue;
                }
                if (match(a, "swarm-resources", &v)) {
                        /* its value only as --swarm-resources=KIND */
                        o->swarm_kind = v != NULL ? v : DEFAULT_SWARM_KIND;
                        continue;
                }
                if (match(a, "runtime", &v))
                        slot = &o->runtime;
                else if (match(a, "config-path", &v)) {
                        slot = &o->config_path;
                        o->config_path_given = true;
                } else if (match(a, "containerd-config", &v))
                        slot = &o->containerd_config;
                else if (match(a, "containerd-version", &v))
                        slot = &o->containerd_version_text;
                else if (match(a, "swarm-resource-ids", &v))
                        slot = &o->swarm_ids;
                else if (match(a, "runtime-path", &v)) {
                        slot = &o->runtime_path;
                        o->runtime_path_given = true;
                } else if (match(a, "runtime-arg", &v)) {
                        to_args = true;
                } else {
                        fprintf(stderr,
                                a[0] == '-' ? "amd-ctk: runtime configure: unknown option '%s'\n\n%s"
                                            : "amd-ctk: runtime configure: unexpected argument '%s'\n\n%s",
                                a, ctk_runtime_configure_usage);
                        return 2;
                }
                if (v == NULL) {
                        if (i + 1 >= argc) {
                                fprintf(stderr, "amd-ctk: runtime configure: option %s needs a value\n", a);
                                return 2;
                        }
                        v = argv[++i];
                }
                if (!to_args)
                        *slot = v;
                else if (ctk_strv_push(&o->args, v) < 0) {
                        fputs("amd-ctk: out of memory\n", stderr);
                        return 1;
                }
        }
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
        if (!ctk_config_kind_valid(o->swarm_kind))
                return "--swarm-resources=KIND: KIND is letters, digits, '_', '-' and '.' (e.g. AMD_GPU)";
        if (o->unset_default)
                return "--swarm-resources goes with adding or --remove, not with --unset-as-default";
        if (o->swarm_ids != NULL && o->remove)
                return "--swarm-resource-ids only applies when adding the entries (not with --remove)";
        if (o->swarm_ids != NULL && strcmp(o->swarm_ids, "uuid") != 0 && strcmp(o->swarm_ids, "index") != 0)
                return "--swarm-resource-ids is uuid or index";
        return NULL;
}

int ctk_runtime_configure_check(const struct configure_opts *o)
{
        const char *msg = NULL;
        bool docker = strcmp(o->runtime, "docker") == 0, containerd = strcmp(o->runtime, "containerd") == 0;
        if (!docker && !containerd && strcmp(o->runtime, "podman") != 0 && strcmp(o->runtime, "crio") != 0) {
                fprintf(stderr, "amd-ctk: unsupported runtime engine: %s (docker, containerd, podman or crio)\n",
                        o->runtime);
                return 1;
        }
        if (!docker && (o->args.n > 0 || o->cdi || o->no_cdi))
                msg =
                    "--runtime-arg, --cdi and --no-cdi apply to docker only (containerd's drop-in always enables CDI)";
        else if (!containerd && (o->containerd_config != NULL || o->containerd_version_text != NULL))
                msg = "--containerd-config and --containerd-version apply to containerd only";
        else if (o->containerd_version_text != NULL && strcmp(o->containerd_version_text, "2") != 0 &&
                 strcmp(o->containerd_version_text, "3") != 0)
                msg = "--containerd-version is 2 (containerd 1.x) or 3 (containerd 2.x)";
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
        else if (o->config_path[0] == '\0')
                msg = "--config-path must not be empty";
        else if (o->runtime_path[0] == '\0')
                msg = "--runtime-path must not be empty";
        else
                msg = check_swarm(o);
        if (msg != NULL) {
                fprintf(stderr, "amd-ctk: %s\n", msg);
                return 1;
        }
        return 0;
}
