/* Editing Docker's daemon.json for `amd-ctk runtime configure` (pure: text in,
 * document edits, text out; the command does the file handling).
 *
 * The document is kept as a generic JSON tree: every key we do not own and
 * the order of all keys survive an edit. */
#ifndef CTK_DOCKER_CONFIG_H
#define CTK_DOCKER_CONFIG_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/base/base.h"

enum ctk_docker_action {
        CTK_DOCKER_ADD,           /* runtimes.<name>, features.cdi, optionally default-runtime */
        CTK_DOCKER_UNSET_DEFAULT, /* default-runtime, only when it is <name> */
        CTK_DOCKER_REMOVE,        /* runtimes.<name> and default-runtime when it is <name> */
};

struct ctk_docker_edit {
        enum ctk_docker_action action;
        const char *name;  /* runtime name, "amd" */
        const char *path;  /* ADD: runtimes.<name>.path */
        char *const *args; /* ADD: runtimes.<name>.runtimeArgs (omitted when nargs == 0) */
        size_t nargs;
        bool set_as_default; /* ADD: default-runtime = <name> */
        bool no_cdi;         /* ADD: features.cdi = false instead of true */
};

/* What an edit did (bits of ctk_docker_config_apply's *changes). */
enum {
        CTK_DOCKER_RUNTIME_ADDED = 1 << 0,
        CTK_DOCKER_RUNTIME_UPDATED = 1 << 1,
        CTK_DOCKER_RUNTIME_REMOVED = 1 << 2,
        CTK_DOCKER_CDI_ENABLED = 1 << 3,
        CTK_DOCKER_DEFAULT_SET = 1 << 4,
        CTK_DOCKER_DEFAULT_UNSET = 1 << 5,
        CTK_DOCKER_CDI_DISABLED = 1 << 6,
};

/* Parses daemon.json text; blank text is an empty object.  Syntax errors,
 * duplicate keys, a document that is not an object and wrong-typed keys we
 * edit ("runtimes", "features": objects; "default-runtime": a string) are
 * errors "NAME:LINE:COLUMN: what". */
int ctk_docker_config_parse(const char *text, size_t len, const char *name, json_t **out, struct ctk_error **err);

/* Applies the edit to a document from ctk_docker_config_parse.  *changes gets
 * the CTK_DOCKER_* bits of what changed (0: the document is unchanged). */
int ctk_docker_config_apply(json_t *doc, const struct ctk_docker_edit *e, unsigned *changes, struct ctk_error **err);

/* The value of "default-runtime" (NULL when absent). */
const char *ctk_docker_default_runtime(const json_t *doc);

/* The indentation of text: the width of the first indented line's leading
 * spaces (1..8), else 4. */
int ctk_json_guess_indent(const char *text, size_t len);

/* Serialises doc with `indent` spaces, keys in document order, numbers
 * exactly as parsed, and a trailing newline.  NULL on ENOMEM. */
char *ctk_docker_config_dump(const json_t *doc, int indent);

#endif
