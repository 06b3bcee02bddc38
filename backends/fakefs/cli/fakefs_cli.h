/* amd-ctk-fakefs subcommands.  Each returns the exit code: 0 ok, 1 failure,
 * 2 usage error.  argv[0] is the subcommand name. */
#ifndef CTK_FAKEFS_CLI_H
#define CTK_FAKEFS_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "core/base/base.h"

struct fakefs_cmd {
        const char *name;
        const char *summary;
        const char *help; /* printed for --help, -h (run is not called then) */
        int (*run)(int argc, char **argv);
};

/* Defined by each cmd_*.c file. */
extern const struct fakefs_cmd fakefs_cmd_materialize;
extern const struct fakefs_cmd fakefs_cmd_import_kfd;
extern const struct fakefs_cmd fakefs_cmd_mount;
extern const struct fakefs_cmd fakefs_cmd_umount;

/* Prints "amd-ctk-fakefs: <message>" to stderr; returns 1. */
int fakefs_fail(const struct ctk_error *err);
/* Prints "amd-ctk-fakefs <cmd>: <message>" and "Try ... --help" to stderr;
 * returns 2. */
int fakefs_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
