/* Advisory file locks (flock) with a bounded wait.
 *
 * The kernel drops a flock when its holder dies, so a killed holder never
 * leaves the lock taken: the next waiter gets it. */
#ifndef CTK_FLOCK_H
#define CTK_FLOCK_H

#include "error.h"

/* Opens (creating it, mode 0600) `path` and takes an exclusive lock on it,
 * waiting at most timeout_ms.  Returns the locked fd (close it to unlock) or
 * -1 with *err set (code ETIMEDOUT when the wait expired). */
int ctk_flock_acquire(const char *path, unsigned int timeout_ms, struct ctk_error **err);

/* Closes the fd returned by ctk_flock_acquire (no-op for fd < 0). */
void ctk_flock_release(int fd);

#endif
