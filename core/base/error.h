/* One error convention for the whole project.
 *
 * Fallible functions return an int (< 0 on failure) and fill *err with a
 * message.  Callers may add context with ctk_error_prefix(); only the command
 * edge (main of a binary) prints the message, once.  A message is always
 * one line: control bytes in what it quotes are written as \n, \t, \xNN;
 * and short: a value it quotes goes through CTK_CUT (format.h). */
#ifndef CTK_ERROR_H
#define CTK_ERROR_H

struct ctk_error {
        int code;  /* an errno value describing the failure class (ENOENT, EINVAL, EIO, ...) */
        char *msg; /* owned, never NULL */
};

/* Sets *err (if err != NULL and *err == NULL) and returns -1.
 * An already-set error is kept (the first cause wins). */
int ctk_error_set(struct ctk_error **err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Like ctk_error_set, appending ": strerror(errnum)". */
int ctk_error_errno(struct ctk_error **err, int errnum, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Prepends "context: " to an existing error; returns -1. No-op if *err is NULL. */
int ctk_error_prefix(struct ctk_error **err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prepends (appends) the formatted text as it is, without a separator, to
 * an existing error; returns -1.  No-op if *err is NULL.  With
 * ctk_error_set_msg, a message goes whole into the middle of another. */
int ctk_error_prepend(struct ctk_error **err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int ctk_error_suffix(struct ctk_error **err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Sets *err (as ctk_error_set) to msg, a message already formed: taken
 * whole (its values were cut when it was formatted), made one line. */
int ctk_error_set_msg(struct ctk_error **err, int code, const char *msg);

/* Takes s (malloc'ed; NULL is passed through) and returns it with its control
 * bytes spelt as \n, \t, \r or \xNN, so that a message is one line whatever
 * it quotes (a key, a token, a file name); NULL when out of memory. */
char *ctk_one_line(char *s);

/* Frees an error (NULL is fine). */
void ctk_error_free(struct ctk_error *err);

#ifdef __clang_analyzer__
/* clang-tidy's analyzer sees one file at a time: told here that these
 * three always return -1, it follows no path on which they succeed. */
#define ctk_error_set(...)     (ctk_error_set(__VA_ARGS__), -1)
#define ctk_error_errno(...)   (ctk_error_errno(__VA_ARGS__), -1)
#define ctk_error_prefix(...)  (ctk_error_prefix(__VA_ARGS__), -1)
#define ctk_error_suffix(...)  (ctk_error_suffix(__VA_ARGS__), -1)
#define ctk_error_prepend(...) (ctk_error_prepend(__VA_ARGS__), -1)
#define ctk_error_set_msg(...) (ctk_error_set_msg(__VA_ARGS__), -1)
#endif

#endif
