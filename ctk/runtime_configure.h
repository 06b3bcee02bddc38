/* amd-ctk runtime configure: what its two halves share (cmd_runtime.c:
 * the options, Docker's daemon.json; cmd_runtime_dropin.c: the drop-ins of
 * containerd, Podman and CRI-O). */
#ifndef CTK_RUNTIME_CONFIGURE_H
#define CTK_RUNTIME_CONFIGURE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/base/base.h"

#define RUNTIME_NAME         "amd"
#define DEFAULT_RUNTIME_PATH "amd-container-runtime"
#define NEW_FILE_MODE        0644

struct configure_opts {
        const char *runtime;
        const char *config_path;
        const char *runtime_path;
        struct ctk_strv args;
        bool set_default, unset_default, remove, dry_run, cdi, no_cdi;
        bool runtime_path_given, config_path_given;
        const char *containerd_config;       /* containerd: the config.toml that imports the drop-in */
        const char *containerd_version_text; /* --containerd-version as given */
        int containerd_version;              /* containerd: config schema 2 or 3, 0 = from that file */
};

struct loaded {
        char *text; /* NULL when the file does not exist */
        size_t len;
        mode_t mode;
};

/* Reads path (l->text NULL when it does not exist) and its mode. */
int ctk_runtime_config_load(const char *path, struct loaded *l, struct ctk_error **err);
/* Keeps the previous file as PATH.bak (same mode), then replaces PATH. */
int ctk_runtime_config_save(const char *path, const struct loaded *old, const char *text, struct ctk_error **err);
/* --runtime containerd, podman or crio: writes or removes the drop-in; the exit status. */
int ctk_runtime_configure_dropin(const struct configure_opts *o);

#endif
