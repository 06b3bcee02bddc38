/* amd-ctk runtime configure: what its two halves share (cmd_runtime.c:
 * the options, Docker's daemon.json; cmd_runtime_dropin.c: the drop-ins of
 * containerd, Podman and CRI-O). */
#ifndef CTK_RUNTIME_CONFIGURE_H
#define CTK_RUNTIME_CONFIGURE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <jansson.h>

#include "cli.h"
#include "core/base/base.h"

#define RUNTIME_NAME          "amd"
#define DEFAULT_RUNTIME_PATH  "amd-container-runtime"
#define NEW_FILE_MODE         0644
#define DEFAULT_SWARM_KIND    "AMD_GPU"
#define DEFAULT_DOCKER_CONFIG "/etc/docker/daemon.json"

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
        const char *swarm_kind;              /* --swarm-resources[=KIND]: the kind, NULL = not asked */
        const char *swarm_ids;               /* --swarm-resource-ids: uuid or index, NULL = uuid */
        bool swarm_refresh;                  /* --swarm-refresh */
};

struct loaded {
        char *text; /* NULL when the file does not exist */
        size_t len;
        mode_t mode; /* permission bits */
        uid_t uid;
        gid_t gid;
};

/* The options of runtime configure. */
extern const struct ctk_opt ctk_runtime_configure_opts[];
/* The parsed options into *o; 0, or the exit code (out of memory, printed). */
int ctk_runtime_configure_parse(const struct ctk_cmdline *cl, struct configure_opts *o);
/* Checks the options together; 0, or the exit code (the message printed). */
int ctk_runtime_configure_check(const struct ctk_cmdline *cl, const struct configure_opts *o);

/* Podman and CRI-O take a runtime's path as a file path (Podman's
 * [engine.runtimes] entries, CRI-O's runtime_path: a bare name would be
 * looked up in the engine's working directory), so their drop-ins name it
 * by an absolute path, *out (malloc'ed): path itself when absolute; a name
 * (no '/') looked up on PATH, then beside amd-ctk (where the package
 * installs both); a relative path made absolute.  A name found nowhere is
 * one error naming --runtime-path.  runtime: "podman" or "crio". */
int ctk_runtime_absolute_path(const char *runtime, const char *path, char **out, struct ctk_error **err);

/* The Swarm half of a daemon.json edit (cmd_runtime_swarm.c). */
struct swarm_plan {
        const char *kind;      /* the kind whose entries are ours */
        bool by_index;         /* gpu<N> ids instead of UUIDs */
        struct ctk_strv want;  /* the values to write (none: remove ours) */
        struct ctk_strv had;   /* the kind's values in the file before */
        struct ctk_strv wrote; /* --swarm-refresh: the values the record says we wrote */
        char *record;          /* the record: <state-dir>/swarm-resources.json */
        char *config_path;     /* --swarm-refresh: the daemon.json the record names */
        char *kind_copy;       /* --swarm-refresh: the record's kind */
        bool changed;          /* the edit changed the document */
        bool left_alone;       /* --swarm-refresh: the entries are no longer those we wrote */
        bool no_driver;        /* the amdgpu driver is not loaded: no GPUs */
        const struct ctk_config *cfg;
        const char *state_dir; /* where the record is (ctk_cli_state_dir) */
};

/* --swarm-refresh: reads the record into p (kind, id form, file, values);
 * *found false when there is none. */
int ctk_runtime_swarm_prepare_refresh(struct ctk_cli *cli, struct swarm_plan *p, bool *found, struct ctk_error **err);
/* Computes and applies the entries of p->kind to doc (text: the file as read,
 * for positions in errors; name: the path to show). */
int ctk_runtime_swarm_apply(struct ctk_cli *cli, const struct configure_opts *o, struct swarm_plan *p, json_t *doc,
                            const char *text, size_t len, const char *name, struct ctk_error **err);
/* Writes the record of what is about to be written to path (removes it when
 * the entries are removed); before the file itself, so that a record never
 * claims entries the file does not hold. */
int ctk_runtime_swarm_record(const struct configure_opts *o, const struct swarm_plan *p, const char *path,
                             struct ctk_error **err);
/* Prints what the Swarm edit did and what is left to do (a dockerd restart,
 * the default runtime, resource-kinds). */
void ctk_runtime_swarm_report(const struct configure_opts *o, const struct swarm_plan *p, const json_t *doc);
/* Frees what p owns. */
void ctk_runtime_swarm_clear(struct swarm_plan *p);

/* Reads path (l->text NULL when it does not exist), its mode and owner. */
int ctk_runtime_config_load(const char *path, struct loaded *l, struct ctk_error **err);
/* Keeps the previous file as PATH.bak (its owner and mode, whatever an
 * earlier PATH.bak had), then replaces PATH (keeping its owner and mode). */
int ctk_runtime_config_save(const char *path, const struct loaded *old, const char *text, struct ctk_error **err);
/* --runtime containerd, podman or crio: writes or removes the drop-in; the exit status. */
int ctk_runtime_configure_dropin(const struct configure_opts *o);

#endif
