/* What runc says of a container, read the way runc reads it: its state
 * file <root>/<id>/state.json and the container's init process in /proc.
 * The launcher uses it to tell whether a delete may release the
 * container's GPUs before runc runs. */
#ifndef RT_RUNC_STATE_H
#define RT_RUNC_STATE_H

#include <stddef.h>
#include <sys/types.h>

/* The top-level "init_process_pid" and "init_process_start" members of a
 * runc state.json text (the last of a repeated key, as Go reads them).
 * Returns 0, or -1 when the text is not a JSON object holding both as
 * plain non-negative integers with 0 < pid <= INT32_MAX. */
int rt_runc_state_init_process(const char *text, size_t len, pid_t *pid, unsigned long long *start);

enum rt_runc_status {
        RT_RUNC_GONE,    /* no <root>/<id>: runc knows no such container */
        RT_RUNC_STOPPED, /* its init process has exited: it can never run again */
        RT_RUNC_ACTIVE,  /* created, running or paused */
        RT_RUNC_UNKNOWN, /* cannot tell (no or unreadable state.json, another layout) */
};

/* The status of container id under runc's state directory root, by runc's
 * own rule: stopped when the recorded init pid is not a running (not
 * zombie) process of the recorded start time (/proc/PID/stat field 22
 * under proc_dir). */
enum rt_runc_status rt_runc_status(const char *root, const char *id, const char *proc_dir);

#endif
