/* amd-ctk runtime configure --runtime containerd|podman|crio: writes (or,
 * with --remove, deletes) a drop-in file of ours; for containerd, also adds
 * it to (or removes it from) the imports of config.toml, the one line of a
 * file of theirs we touch (the previous file kept as .bak), and copies
 * config.toml's CRI plugin section into the drop-in (containerd before 2.1
 * replaces that whole section with an imported one).  A drop-in path
 * holding a file we did not write is never replaced or removed. */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "core/base/base.h"
#include "core/engines/engines.h"
#include "runtime_configure.h"

static const char *const cdi_dirs[] = {CTK_CDI_STATIC_DIR, CTK_CDI_DYNAMIC_DIR};

int ctk_runtime_absolute_path(const char *runtime, const char *path, char **out, struct ctk_error **err)
{
        const char *engine = strcmp(runtime, "podman") == 0 ? "Podman" : "CRI-O";
        *out = NULL;
        if (path[0] == '/') {
                *out = strdup(path);
        } else if (strchr(path, '/') != NULL) {
                *out = realpath(path, NULL);
                if (*out == NULL && errno != ENOMEM)
                        return ctk_error_errno(err, errno,
                                               "--runtime-path %s: cannot make it absolute (%s needs the runtime's "
                                               "absolute path)",
                                               CTK_CUT(path), CTK_CUT(engine));
        } else {
                const char *env = getenv("PATH");
                *out = ctk_path_search(path, env, NULL, NULL);
                _cleanup_free_ char *self = *out == NULL && errno == ENOENT ? realpath("/proc/self/exe", NULL) : NULL;
                const char *dir = self != NULL ? dirname(self) : NULL;
                if (dir != NULL)
                        *out = ctk_path_search(path, dir, NULL, NULL);
                if (*out == NULL && errno == ENOENT)
                        return ctk_error_set(err, ENOENT,
                                             "%s is not on PATH (%s)%s%s: %s needs the runtime's absolute path; give "
                                             "it with --runtime-path",
                                             CTK_CUT(path), CTK_CUT(env != NULL ? env : "unset"),
                                             dir != NULL ? " nor beside amd-ctk in " : "",
                                             CTK_CUT(dir != NULL ? dir : ""), CTK_CUT(engine));
        }
        return *out != NULL ? 0 : ctk_error_set(err, ENOMEM, "out of memory");
}

static const char *restart_line(const char *engine)
{
        if (strcmp(engine, "podman") == 0)
                return "Podman reads it on its next command: nothing to restart";
        return strcmp(engine, "containerd") == 0 ? "Please restart containerd" : "Please restart crio";
}

/* An edit of containerd's config.toml: the drop-in added to or removed
 * from its imports (edited NULL: nothing to change), and the schema the
 * file declares (0: none). */
struct imports_edit {
        struct loaded main_cfg;
        char *edited;
        int version;
};

static void imports_edit_clear(struct imports_edit *e)
{
        free(e->main_cfg.text);
        free(e->edited);
}

static int plan_imports(const struct configure_opts *o, bool add, struct imports_edit *e, struct ctk_error **err)
{
        if (ctk_runtime_config_load(o->containerd_config, &e->main_cfg, err) < 0)
                return -1;
        /* containerd reads imports relative to its own file: ours is absolute */
        _cleanup_free_ char *cwd = o->config_path[0] == '/' ? NULL : getcwd(NULL, 0);
        _cleanup_free_ char *abs = NULL;
        if (o->config_path[0] != '/' && (cwd == NULL || asprintf(&abs, "%s/%s", cwd, o->config_path) < 0))
                return ctk_error_set(err, ENOMEM, "cannot make %s absolute", CTK_CUT(o->config_path));
        int new_version = o->containerd_version != 0 ? o->containerd_version : 2;
        return ctk_dropin_containerd_imports(e->main_cfg.text, e->main_cfg.len, o->containerd_config,
                                             abs != NULL ? abs : o->config_path, add, new_version, &e->edited,
                                             &e->version, err);
}

/* Refuses now what saving the edit would refuse (config.toml or its .bak
 * a link, or not a file), so that a refused change writes nothing. */
static int check_imports(const struct configure_opts *o, const struct imports_edit *e, struct ctk_error **err)
{
        if (e->edited == NULL || o->dry_run)
                return 0;
        if (ctk_file_write_check(o->containerd_config, CTK_WRITE_TRUSTED, err) < 0)
                return -1;
        _cleanup_free_ char *bak = NULL;
        if (e->main_cfg.text != NULL && asprintf(&bak, "%s.bak", o->containerd_config) < 0)
                return ctk_error_set(err, ENOMEM, "out of memory");
        return bak != NULL ? ctk_file_write_check(bak, CTK_WRITE_TRUSTED, err) : 0;
}

static int apply_imports(const struct configure_opts *o, bool add, const struct imports_edit *e, struct ctk_error **err)
{
        if (e->edited == NULL)
                return 0;
        const char *verb = o->dry_run ? (add ? "Would add" : "Would remove") : (add ? "Added" : "Removed");
        if (!o->dry_run && ((add && ctk_trust_mkdir_parent(o->containerd_config, 0, err) < 0) ||
                            ctk_runtime_config_save(o->containerd_config, &e->main_cfg, e->edited, err) < 0))
                return -1;
        printf("%s %s %s the imports of %s\n", verb, o->config_path, add ? "to" : "from", o->containerd_config);
        return 0;
}

static int remove_dropin(const struct configure_opts *o, const struct loaded *old, struct ctk_error **err)
{
        if (strcmp(o->runtime, "containerd") == 0) {
                struct imports_edit e = {0};
                bool ok = plan_imports(o, false, &e, err) == 0 && check_imports(o, &e, err) == 0 &&
                          apply_imports(o, false, &e, err) == 0;
                imports_edit_clear(&e);
                if (!ok)
                        return -1;
        }
        if (old->text == NULL) {
                printf("Nothing to remove: %s does not exist\n", o->config_path);
                return 0;
        }
        if (o->dry_run) {
                printf("Would remove %s\n", o->config_path);
                return 0;
        }
        if (unlink(o->config_path) < 0)
                return ctk_error_errno(err, errno, "cannot remove %s", CTK_CUT(o->config_path));
        printf("Removed %s\n", o->config_path);
        return 0;
}

/* containerd's default runtime runs every pod: what a shared cluster
 * should set (docs/kubernetes.md says why). */
static void shared_cluster_advice(const struct configure_opts *o)
{
        if (strcmp(o->runtime, "containerd") != 0 || !o->set_default || o->dry_run)
                return;
        puts("As the default runtime, amd runs every pod: any pod that sets AMD_VISIBLE_DEVICES would get GPUs "
             "around the device plugin's accounting.");
        puts("On a shared cluster, give GPUs through the device plugin (device specs or CDI) and set "
             "\"accept-visible-devices-envvar-when-unprivileged\": false in " CTK_DEFAULT_CONFIG_PATH);
}

int ctk_runtime_configure_dropin(const struct configure_opts *o)
{
        _cleanup_error_ struct ctk_error *err = NULL;
        struct loaded old = {0};
        if (ctk_runtime_config_load(o->config_path, &old, &err) < 0)
                return ctk_cli_fail(err);
        _cleanup_free_ char *old_text = old.text;
        if (old_text != NULL && !ctk_dropin_is_ours(old_text, old.len)) {
                ctk_error_set(&err, EEXIST,
                              "%s exists and was not written by amd-ctk: not %s (move it away, or give another "
                              "--config-path)",
                              CTK_CUT(o->config_path), o->remove ? "removed" : "replaced");
                return ctk_cli_fail(err);
        }
        /* neither written nor removed through a link or a directory another user may change */
        if (!o->dry_run && ctk_file_write_check(o->config_path, CTK_WRITE_NO_LINKS, &err) < 0)
                return ctk_cli_fail(err);
        if (o->remove) {
                if (remove_dropin(o, &old, &err) < 0)
                        return ctk_cli_fail(err);
                if (!o->dry_run)
                        puts(restart_line(o->runtime));
                return 0;
        }
        bool containerd = strcmp(o->runtime, "containerd") == 0;
        _cleanup_free_ char *runtime_path = NULL;
        if (!containerd && ctk_runtime_absolute_path(o->runtime, o->runtime_path, &runtime_path, &err) < 0)
                return ctk_cli_fail(err);
        struct ctk_dropin d = {.name = RUNTIME_NAME,
                               .runtime_path = containerd ? o->runtime_path : runtime_path,
                               .set_as_default = o->set_default,
                               .cdi_dirs = cdi_dirs,
                               .ncdi_dirs = sizeof(cdi_dirs) / sizeof(cdi_dirs[0])};
        __attribute__((cleanup(imports_edit_clear))) struct imports_edit imp = {0};
        if (containerd) {
                d.engine = CTK_DROPIN_CONTAINERD;
                if (plan_imports(o, true, &imp, &err) < 0 || check_imports(o, &imp, &err) < 0)
                        return ctk_cli_fail(err);
                d.containerd_version = o->containerd_version != 0 ? o->containerd_version : imp.version >= 3 ? 3 : 2;
                d.source = imp.main_cfg.text;
                d.source_len = imp.main_cfg.len;
                d.source_name = o->containerd_config;
        } else {
                d.engine = strcmp(o->runtime, "podman") == 0 ? CTK_DROPIN_PODMAN : CTK_DROPIN_CRIO;
        }
        _cleanup_free_ char *text = NULL;
        if (ctk_dropin_text(&d, &text, &err) < 0)
                return ctk_cli_fail(err);
        if (o->dry_run) {
                fputs(text, stdout);
                return apply_imports(o, true, &imp, &err) < 0 ? ctk_cli_fail(err) : 0;
        }
        /* containerd's copies config.toml's CRI section (registry credentials
         * too): never readable by more than config.toml */
        mode_t mode = containerd && imp.main_cfg.text != NULL ? imp.main_cfg.mode & NEW_FILE_MODE : NEW_FILE_MODE;
        bool same = old_text != NULL && strcmp(old_text, text) == 0 && old.mode == mode;
        /* the drop-in first: config.toml never imports a file that is not there */
        if (!same) {
                if (ctk_trust_mkdir_parent(o->config_path, CTK_TRUST_NO_LINKS, &err) < 0 ||
                    ctk_file_write_atomic_flags(o->config_path, text, strlen(text), mode,
                                                CTK_WRITE_FORCE_MODE | CTK_WRITE_NO_LINKS, &err) < 0)
                        return ctk_cli_fail(err);
                printf("Wrote %s\n", o->config_path);
        }
        if (apply_imports(o, true, &imp, &err) < 0)
                return ctk_cli_fail(err);
        if (same && imp.edited == NULL) {
                printf("The drop-in is already up to date: %s\n", o->config_path);
                shared_cluster_advice(o);
                return 0;
        }
        if (containerd)
                printf("It holds a copy of the CRI plugin's section of %s (containerd before 2.1 replaces that "
                       "whole section with an imported one): after editing that section, run this command again\n",
                       o->containerd_config);
        puts(restart_line(o->runtime));
        shared_cluster_advice(o);
        return 0;
}
