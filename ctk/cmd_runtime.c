/* amd-ctk runtime configure: registers amd-container-runtime with Docker by
 * editing daemon.json (the edit itself is core/engines/docker.c; the Swarm
 * resources cmd_runtime_swarm.c; the options cmd_runtime_opts.c; the other
 * engines' drop-ins cmd_runtime_dropin.c). */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "runtime_configure.h"
#include "core/base/base.h"
#include "core/json/json.h"
#include "core/engines/engines.h"

/* The file to edit: a symbolic link is followed so that the link survives
 * (the link root's, its target's path trusted as the file's own). */
static int resolve_target(const char *path, bool mkdir, char **out, struct ctk_error **err)
{
        _cleanup_trust_walk_ struct ctk_trust_walk w;
        _cleanup_error_ struct ctk_error *e = NULL;
        if (ctk_trust_walk(path, CTK_TRUST_FOLLOW | (mkdir ? CTK_TRUST_MKDIR : 0), &w, &e) < 0) {
                if (e->code == ENOENT && !mkdir) { /* nothing there to edit */
                        *out = strdup(path);
                        return *out != NULL ? 0 : ctk_error_set(err, ENOMEM, "out of memory");
                }
                ctk_error_set_msg(err, e->code, e->msg);
                return ctk_error_suffix(err, ": not written");
        }
        if (!w.via_link)
                *out = strdup(path);
        else
                *out = ctk_str_concat(w.dir, strcmp(w.dir, "/") == 0 ? "" : "/", w.name);
        return *out != NULL ? 0 : ctk_error_set(err, ENOMEM, "out of memory");
}

#define EDIT_LOCK_TIMEOUT_MS 30000

/* The lock of an edit of a file: .NAME.lock beside it, which exists while
 * held, mode 0600 (no other user can open it, so none can stall us; the
 * directory's lock was anyone's to take). */
struct edit_lock {
        int fd;
        char *path;
};

static void edit_lock_release(struct edit_lock *l)
{
        ctk_flock_release_remove(l->fd, l->path);
        free(l->path);
        *l = (struct edit_lock){.fd = -1};
}

/* Serialises edits of the file at path, waiting a bounded time. */
static int lock_edit(const char *path, struct edit_lock *l, struct ctk_error **err)
{
        _cleanup_free_ char *copy = strdup(path);
        if (copy == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        const char *slash = strrchr(path, '/');
        const char *base = slash != NULL ? slash + 1 : path;
        if (asprintf(&l->path, "%s/.%s.lock", dirname(copy), base) < 0) {
                l->path = NULL;
                return ctk_error_set(err, ENOMEM, "out of memory");
        }
        l->fd = ctk_flock_acquire(l->path, EDIT_LOCK_TIMEOUT_MS, err);
        return l->fd < 0 ? -1 : 0;
}

int ctk_runtime_config_load(const char *path, struct loaded *l, struct ctk_error **err)
{
        _cleanup_error_ struct ctk_error *rerr = NULL;
        if (ctk_file_read_all(path, &l->text, &l->len, &rerr) < 0) {
                if (rerr->code == ENOENT)
                        return 0;
                *err = ctk_steal(&rerr);
                return -1;
        }
        struct stat st;
        if (stat(path, &st) < 0)
                return ctk_error_errno(err, errno, "cannot read %s", CTK_CUT(path));
        l->mode = st.st_mode & 07777;
        l->uid = st.st_uid;
        l->gid = st.st_gid;
        return 0;
}

static void report(const struct configure_opts *o, unsigned changes, const json_t *doc)
{
        if (changes & CTK_DOCKER_DEFAULT_UNSET)
                printf("Removed %s as the default runtime\n", RUNTIME_NAME);
        if (changes & CTK_DOCKER_RUNTIME_REMOVED)
                printf("Removed the %s runtime\n", RUNTIME_NAME);
        if (changes & CTK_DOCKER_CDI_DISABLED)
                puts("Set features.cdi to false");
        if (o->remove) {
                const json_t *f = json_object_get(doc, "features");
                if (json_is_true(json_object_get(f, "cdi")))
                        puts("Kept features.cdi (other CDI devices may need it)");
        }
}

int ctk_runtime_config_save(const char *path, const struct loaded *old, const char *text, struct ctk_error **err)
{
        if (old->text != NULL) {
                _cleanup_free_ char *bak = NULL;
                if (asprintf(&bak, "%s.bak", path) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
                if (ctk_file_write_atomic_as(bak, old->text, old->len, old->mode, old->uid, old->gid, CTK_WRITE_TRUSTED,
                                             err) < 0)
                        return ctk_error_prefix(err, "cannot keep the previous configuration");
        }
        if (ctk_file_write_atomic_flags(path, text, strlen(text), old->text != NULL ? old->mode : NEW_FILE_MODE,
                                        CTK_WRITE_TRUSTED, err) < 0)
                return ctk_error_prefix(err, "failed to save the config");
        return 0;
}

static void report_unchanged(const struct configure_opts *o, enum ctk_docker_action action, const char *prev_default)
{
        if (action == CTK_DOCKER_ADD)
                printf("The config file is already up to date: %s\n", o->config_path);
        else if (action == CTK_DOCKER_REMOVE)
                printf("Nothing to remove: the %s runtime is not configured in %s\n", RUNTIME_NAME, o->config_path);
        else if (prev_default != NULL)
                printf("Nothing to change: %s is not the default runtime in %s (default-runtime is \"%s\")\n",
                       RUNTIME_NAME, o->config_path, prev_default);
        else
                printf("Nothing to change: %s is not the default runtime in %s\n", RUNTIME_NAME, o->config_path);
}

/* --swarm-refresh: the file and kind of the record; 1 when there is none
 * (said), 0 to go on, -1 on error. */
static int prepare_refresh(struct ctk_cli *cli, struct configure_opts *o, struct swarm_plan *swarm,
                           struct ctk_error **err)
{
        bool found;
        if (ctk_runtime_swarm_prepare_refresh(cli, swarm, &found, err) < 0)
                return -1;
        if (!found) {
                puts("No Swarm resources to refresh: amd-ctk runtime configure --swarm-resources has written none");
                return 1;
        }
        o->config_path = swarm->config_path;
        o->swarm_kind = swarm->kind;
        return 0;
}

static int configure_docker(struct ctk_cli *cli, struct configure_opts *o, struct swarm_plan *swarm)
{
        _cleanup_error_ struct ctk_error *err = NULL;
        if (o->swarm_refresh) {
                int r = prepare_refresh(cli, o, swarm, &err);
                if (r != 0)
                        return r < 0 ? ctk_cli_fail(err) : 0;
        }
        /* Only adding creates missing directories; without them there is
         * nothing to remove or unset (and nothing to lock). */
        bool adding = !o->remove && !o->unset_default && !o->swarm_refresh;
        _cleanup_free_ char *path = NULL;
        if (resolve_target(o->config_path, adding && !o->dry_run, &path, &err) < 0)
                return ctk_cli_fail(err);
        __attribute__((cleanup(edit_lock_release))) struct edit_lock lock = {.fd = -1};
        if (!o->dry_run) {
                if (lock_edit(path, &lock, &err) < 0) {
                        if (adding || err->code != ENOENT)
                                return ctk_cli_fail(err);
                        ctk_error_free(ctk_steal(&err));
                }
        }
        struct loaded old = {0};
        if (ctk_runtime_config_load(path, &old, &err) < 0)
                return ctk_cli_fail(err);
        _cleanup_free_ char *old_text = old.text;
        if (old_text != NULL && !o->dry_run)
                printf("Loading configuration from: %s\n", o->config_path);

        _cleanup_json_ json_t *doc = NULL;
        if (ctk_docker_config_parse(old_text != NULL ? old_text : "", old.len, o->config_path, &doc, &err) < 0)
                return ctk_cli_fail(err);
        struct ctk_docker_edit edit = {
            .action = adding      ? CTK_DOCKER_ADD
                      : o->remove ? CTK_DOCKER_REMOVE
                                  : CTK_DOCKER_UNSET_DEFAULT,
            .name = RUNTIME_NAME,
            .path = o->runtime_path,
            .args = o->args.v,
            .nargs = o->args.n,
            .set_as_default = o->set_default,
            .no_cdi = o->no_cdi,
        };
        const char *prev_default = ctk_docker_default_runtime(doc);
        _cleanup_free_ char *prev_default_copy = prev_default != NULL ? strdup(prev_default) : NULL;
        unsigned changes = 0;
        if (!o->swarm_refresh && ctk_docker_config_apply(doc, &edit, &changes, &err) < 0)
                return ctk_cli_fail(err);
        if (o->swarm_kind != NULL && ctk_runtime_swarm_apply(cli, o, swarm, doc, old_text != NULL ? old_text : "",
                                                             old.len, o->config_path, &err) < 0)
                return ctk_cli_fail(err);
        _cleanup_free_ char *text =
            ctk_docker_config_dump(doc, old_text != NULL ? ctk_json_guess_indent(old_text, old.len) : 4);
        if (text == NULL) {
                ctk_error_set(&err, ENOMEM, "out of memory");
                return ctk_cli_fail(err);
        }
        if (o->dry_run) {
                fputs(text, stdout);
                return 0;
        }
        /* The record first (even of entries that were already right: they
         * are ours from now on), then the file. */
        if (o->swarm_kind != NULL && (swarm->changed || !o->swarm_refresh) &&
            ctk_runtime_swarm_record(o, swarm, path, &err) < 0)
                return ctk_cli_fail(err);
        if (changes == 0 && !swarm->changed) {
                if (!o->swarm_refresh)
                        report_unchanged(o, edit.action, prev_default_copy);
                if (o->swarm_kind != NULL)
                        ctk_runtime_swarm_report(o, swarm, doc);
                return 0;
        }
        if (ctk_runtime_config_save(path, &old, text, &err) < 0)
                return ctk_cli_fail(err);
        report(o, changes, doc);
        if (o->swarm_kind != NULL)
                ctk_runtime_swarm_report(o, swarm, doc);
        printf("Updated the config file: %s\n", o->config_path);
        if (swarm->changed)
                puts("Please restart docker daemon: dockerd reads node-generic-resources only when it starts "
                     "(a reload does not apply them)");
        else
                puts("Please restart docker daemon");
        return 0;
}

static int configure(struct ctk_cli *cli, struct configure_opts *o)
{
        struct swarm_plan swarm = {0};
        int rc = configure_docker(cli, o, &swarm);
        ctk_runtime_swarm_clear(&swarm);
        return rc;
}

static int run_configure(void *ctx, const struct ctk_cmdline *cl)
{
        struct ctk_cli *cli = ctx;
        /* Progress lines and an error line on stderr appear in order. */
        (void)setvbuf(stdout, NULL, _IOLBF, 0);
        struct configure_opts o = {
            .runtime = "docker",
            .config_path = DEFAULT_DOCKER_CONFIG,
            .runtime_path = DEFAULT_RUNTIME_PATH,
        };
        int rc = ctk_runtime_configure_parse(cl, &o);
        if (rc == 0)
                rc = ctk_runtime_configure_check(cl, &o);
        if (rc == 0 && strcmp(o.runtime, "docker") != 0) {
                if (o.containerd_version_text != NULL)
                        o.containerd_version = o.containerd_version_text[0] - '0';
                if (o.containerd_config == NULL)
                        o.containerd_config = "/etc/containerd/config.toml";
                if (!o.config_path_given)
                        o.config_path = strcmp(o.runtime, "containerd") == 0 ? "/etc/containerd/conf.d/99-amd.toml"
                                        : strcmp(o.runtime, "podman") == 0
                                            ? "/etc/containers/containers.conf.d/99-amd.conf"
                                            : "/etc/crio/crio.conf.d/99-amd.conf";
                rc = ctk_runtime_configure_dropin(&o);
        } else if (rc == 0) {
                rc = configure(cli, &o);
        }
        ctk_strv_clear(&o.args);
        return rc;
}

static const struct ctk_cmd runtime_configure = {
    .name = "configure",
    .summary = "Configure a runtime to the container engine",
    .description =
        "Adds the 'amd' runtime (amd-container-runtime) to Docker's daemon.json and enables CDI there (other "
        "settings and their order are kept; the previous file is saved as <config-path>.bak), or writes a drop-in "
        "file for containerd (and adds it to the imports of its config.toml), Podman or CRI-O.  Restart the engine "
        "afterwards (Podman needs no restart).  containerd's drop-in holds a copy of config.toml's CRI plugin "
        "section (containerd before 2.1 replaces that whole section with an imported one): after editing that "
        "section, run this again.",
    .details = "Every file is replaced atomically, never through a symbolic link to another place (a link to the "
               "file itself is followed, so that the link survives); a file that cannot be updated stays "
               "byte-identical.  With --swarm-resources the entries written are also recorded in the state "
               "directory (config key state-dir), so that --swarm-refresh can rewrite them after a repartition; "
               "for a simulated host (--root, --profile) the state directory must be set in the configuration.",
    .opts = ctk_runtime_configure_opts,
    .run = run_configure,
    .exit_status = "1\tthe file cannot be read, parsed or written, or the options do not go together",
    .files = DEFAULT_DOCKER_CONFIG
    "\tDocker's configuration (and .bak, the previous one)\n"
    "/etc/containerd/conf.d/99-amd.toml\tcontainerd's drop-in (imported by /etc/containerd/config.toml)\n"
    "/etc/containers/containers.conf.d/99-amd.conf\tPodman's drop-in\n"
    "/etc/crio/crio.conf.d/99-amd.conf\tCRI-O's drop-in\n" CTK_DEFAULT_STATE_DIR
    "/swarm-resources.json\tthe record of --swarm-resources (in state-dir)",
    .examples = "    sudo amd-ctk runtime configure --runtime=docker\n"
                "    sudo amd-ctk runtime configure --runtime=containerd --set-as-default\n"
                "    amd-ctk runtime configure --dry-run --config-path daemon.json --swarm-resources\n"
                "\n"
                "Undo:\n"
                "\n"
                "    sudo amd-ctk runtime configure --remove",
    .see_also = "dockerd(8) containerd(8) podman(1) crio(8)",
};

static const struct ctk_cmd *const runtime_subs[] = {&runtime_configure, NULL};

const struct ctk_cmd ctk_cmd_runtime = {
    .name = "runtime",
    .summary = "runtime related commands for AMD Container Toolkit",
    .description = "Container engines run amd-container-runtime, which gives containers the GPUs they ask for, once "
                   "their configuration names it: 'amd-ctk runtime configure' writes that configuration.",
    .subs = runtime_subs,
    .files = DEFAULT_DOCKER_CONFIG "\tDocker's configuration",
    .examples = "    sudo amd-ctk runtime configure --runtime=docker",
    .see_also = "amd-container-runtime(1)",
};
