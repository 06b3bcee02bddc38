/* Drop-in configuration files for containerd, Podman and CRI-O: files of
 * ours that the engine reads beside its own configuration, so that adding
 * the amd runtime (and CDI) never rewrites what the user wrote.  containerd
 * reads a drop-in only when its config.toml imports it: that one line is
 * the only edit of a file of theirs (core/engines/toml.h finds it).  As
 * containerd before 2.1 replaces a whole plugin section with an imported
 * one, its drop-in carries a copy of config.toml's CRI plugin section
 * (dropin_cri.h).  Pure: text in, text out. */
#ifndef CTK_ENGINES_DROPINS_H
#define CTK_ENGINES_DROPINS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/base/base.h"

/* The first line of every drop-in we write: --remove deletes only such files. */
#define CTK_DROPIN_MARK "# Written by amd-ctk runtime configure (removed by its --remove)."

enum ctk_dropin_engine {
        CTK_DROPIN_CONTAINERD,
        CTK_DROPIN_PODMAN,
        CTK_DROPIN_CRIO,
};

struct ctk_dropin {
        enum ctk_dropin_engine engine;
        const char *name;         /* runtime name, "amd" */
        const char *runtime_path; /* our runtime's executable */
        bool set_as_default;
        int containerd_version;      /* containerd's config schema: 2 (containerd 1.x) or 3 (2.x) */
        const char *const *cdi_dirs; /* containerd: cdi_spec_dirs */
        size_t ncdi_dirs;
        const char *source; /* containerd: config.toml's text, whose CRI section is copied (NULL: no file) */
        size_t source_len;
        const char *source_name; /* its name, for messages */
};

/* The drop-in's text in *out (owned); for containerd, a config.toml whose
 * CRI section cannot be copied is one error NAME:LINE:COLUMN. */
int ctk_dropin_text(const struct ctk_dropin *d, char **out, struct ctk_error **err);

/* Whether text is a drop-in we wrote (starts with CTK_DROPIN_MARK). */
bool ctk_dropin_is_ours(const char *text, size_t len);

/* containerd's config.toml (text, NULL when the file does not exist; name
 * for messages) with dropin added to (add) or removed from its top-level
 * imports, every other byte kept (a list left empty stays, as
 * `imports = []`, as containerd's default file has it).  *out is the new
 * text, or NULL when
 * nothing changes; *version the file's schema version (0: none given).  An
 * invalid file is one error NAME:LINE:COLUMN. */
int ctk_dropin_containerd_imports(const char *text, size_t len, const char *name, const char *dropin, bool add,
                                  int new_version, char **out, int *version, struct ctk_error **err);

#endif
