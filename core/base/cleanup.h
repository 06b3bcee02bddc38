/* Scope-bound ownership helpers (__attribute__((cleanup))).
 * Move ownership out of a guarded variable with ctk_steal(&var). */
#ifndef CTK_CLEANUP_H
#define CTK_CLEANUP_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "error.h"

static inline void ctk_freep(void *p)
{
        free(*(void **)p);
}
static inline void ctk_closep(int *fd)
{
        if (*fd >= 0)
                close(*fd);
}
static inline void ctk_fclosep(FILE **f)
{
        if (*f != NULL)
                (void)fclose(*f);
}
static inline void ctk_errorp(struct ctk_error **e)
{
        ctk_error_free(*e);
}

#define _cleanup_free_   __attribute__((cleanup(ctk_freep)))
#define _cleanup_close_  __attribute__((cleanup(ctk_closep)))
#define _cleanup_fclose_ __attribute__((cleanup(ctk_fclosep)))
#define _cleanup_error_  __attribute__((cleanup(ctk_errorp)))

/* Returns *pp and sets *pp to NULL: hands ownership to the caller. */
#define ctk_steal(pp)                                                                                                  \
        ({                                                                                                             \
                __typeof__(*(pp)) _tmp = *(pp);                                                                        \
                *(pp) = NULL;                                                                                          \
                _tmp;                                                                                                  \
        })

/* Same for file descriptors (-1 is "none"). */
#define ctk_steal_fd(pfd)                                                                                              \
        ({                                                                                                             \
                int _fd = *(pfd);                                                                                      \
                *(pfd) = -1;                                                                                           \
                _fd;                                                                                                   \
        })

#endif
