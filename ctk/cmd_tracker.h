/* amd-ctk gpu-tracker: the command (cmd_tracker.c: help, dispatch, the
 * tracker's switch, status and hooks) and its GPU accessibility form
 * (cmd_tracker_access.c), and what they share. */
#ifndef CTK_CMD_TRACKER_H
#define CTK_CMD_TRACKER_H

#include "cli.h"
#include "core/base/base.h"
#include "core/device/device.h"
#include "core/tracker/tracker.h"

/* `amd-ctk gpu-tracker IDS exclusive|shared` (ctx: the struct ctk_cli); returns the exit status. */
int ctk_cli_tracker_access_main(void *ctx, const struct ctk_cmdline *cl);
/* 0 when running as root, else the one line saying so and 1. */
int ctk_cli_tracker_root(const struct ctk_cmdline *cl);

/* Prints err (the documentation's verbatim lines as they are, with --debug why the state is
 * stale) and returns the exit status 1. */
int ctk_cli_tracker_fail(struct ctk_cli *cli, struct ctk_tracker *t, const struct ctk_error *err);
/* The tracker of the configuration's state-dir. */
int ctk_cli_tracker_open(struct ctk_cli *cli, struct ctk_tracker **t, struct ctk_error **err);
/* Discovers the GPUs through the backend of --root/--profile/config. */
int ctk_cli_tracker_discover(struct ctk_cli *cli, struct ctk_gpu_list *gpus, struct ctk_error **err);
/* Prints text to stdout and returns 0; NULL (out of memory) fails with 1. */
int ctk_cli_tracker_print(const char *text);

#endif
