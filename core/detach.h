/* Work left to a background process after its caller has moved on. */
#ifndef CTK_DETACH_H
#define CTK_DETACH_H

/* Points stdin, stdout and stderr at /dev/null (closes them if it cannot):
 * a caller that reads our output until its end, or waits for its pipes to
 * close (runc with its hooks), must not wait for a background child. */
void ctk_stdio_to_null(void);

#endif
