/* Advisory file locks (flock) with a bounded wait.
 *
 * The kernel drops a flock when its holder dies, so a killed holder never
 * leaves the lock taken: the next waiter gets it.  A lock file is ours
 * alone: a regular file owned by the process's user with mode 0600
 * (created so), which no other user can open, and so never hold; any
 * other file at the lock's path is refused at once. */
#ifndef CTK_FLOCK_H
#define CTK_FLOCK_H

#include <sys/stat.h>
#include <sys/types.h>

#include "error.h"

/* Opens (creating it, mode 0600) `path` and takes an exclusive lock on it,
 * waiting at most timeout_ms.  Returns the locked fd (close it to unlock) or
 * -1 with *err set: code ETIMEDOUT when the wait expired (the message names
 * the lock and, when /proc/locks shows it, the holder's pid); EPERM or
 * EINVAL for a file at path that is not a lock only we can take. */
int ctk_flock_acquire(const char *path, unsigned int timeout_ms, struct ctk_error **err);

/* Closes the fd returned by ctk_flock_acquire (no-op for fd < 0). */
void ctk_flock_release(int fd);
/* The same for a lock that exists only while held: removes path first. */
void ctk_flock_release_remove(int fd, const char *path);

/* Refuses (st: the lock file at path) anything but a regular file owned by
 * euid that no other user may read or write. */
int ctk_flock_check(const char *path, const struct stat *st, uid_t euid, struct ctk_error **err);

/* The pid that holds a flock on the file st describes, from the text of
 * /proc/locks; 0 when none is listed. */
pid_t ctk_flock_holder(const char *locks, const struct stat *st);

#endif
