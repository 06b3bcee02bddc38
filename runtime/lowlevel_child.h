/* The low-level runtime as a child process, for the calls that have work
 * to do after it (or while it runs): delete and create with the GPU
 * tracker.  Every other call execs it (lowlevel.h). */
#ifndef RT_LOWLEVEL_CHILD_H
#define RT_LOWLEVEL_CHILD_H

#include <stdbool.h>
#include <sys/types.h>

#include "core/base/base.h"

/* Starts runtime with the arguments of rt_lowlevel_argv (stdio and the
 * environment inherited; quiet: stdout and stderr are /dev/null).  A
 * runtime that cannot be executed is an error here, not a child that
 * fails. */
int rt_lowlevel_spawn(const char *runtime, char *const args[], int n, bool quiet, pid_t *child, struct ctk_error **err);

/* Waits for child and returns the status to exit with: its exit status,
 * 128 + N when signal N killed it, 1 when it cannot be waited for. */
int rt_lowlevel_wait(pid_t child);

#endif
