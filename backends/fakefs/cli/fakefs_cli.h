/* amd-ctk-fakefs subcommands (core/base/cmdline.h commands).  Each run
 * returns the exit code: 0 ok, 1 failure, 2 usage error. */
#ifndef CTK_FAKEFS_CLI_H
#define CTK_FAKEFS_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "core/base/base.h"

/* Defined by each cmd_*.c file. */
extern const struct ctk_cmd fakefs_cmd_materialize;
extern const struct ctk_cmd fakefs_cmd_import_kfd;
extern const struct ctk_cmd fakefs_cmd_mount;
extern const struct ctk_cmd fakefs_cmd_umount;

/* Prints "amd-ctk-fakefs: <message>" to stderr; returns 1. */
int fakefs_fail(const struct ctk_error *err);

#endif
