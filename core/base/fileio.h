/* Bounded whole-file reads and crash-safe whole-file replacement. */
#ifndef CTK_FILEIO_H
#define CTK_FILEIO_H

#include <stddef.h>
#include <sys/types.h>

#include "error.h"

/* Every file the toolkit reads goes through one bounded reader: the file
 * is opened without waiting (O_NONBLOCK | O_CLOEXEC: a FIFO is not waited
 * on), only when it is a regular file (a FIFO, a device, a directory or a
 * socket is one error, EINVAL or EISDIR, "PATH is a FIFO, not a regular
 * file: not read"; a device is not even opened), and read up to a limit
 * (EFBIG, "PATH is larger than 16 MiB: not read").  Other errors name the
 * path and keep errno in err->code (ENOENT for a missing file). */

/* The limit of configuration files, drop-ins, CDI specs, profiles. */
#define CTK_FILE_MAX ((size_t)16 << 20)
/* A symbolic link at path is refused (ELOOP, "PATH is a symbolic link: not
 * read"), not followed. */
#define CTK_READ_NOFOLLOW 1u

/* Reads the whole file, at most max bytes, into a NUL-terminated buffer
 * (*out, owned by the caller; *len, if not NULL, its length). */
int ctk_file_read(const char *path, size_t max, unsigned flags, char **out, size_t *len, struct ctk_error **err);
/* ctk_file_read with the limit CTK_FILE_MAX and no flags. */
int ctk_file_read_all(const char *path, char **out, size_t *len, struct ctk_error **err);
/* The same for a file the caller opened (with O_NONBLOCK) as path: it
 * must be a regular file; read from the current offset.  fd stays open. */
int ctk_file_read_fd(int fd, const char *path, size_t max, char **out, size_t *len, struct ctk_error **err);

/* The error the reader gives for a file of type mode that is not a
 * regular one (EINVAL; EISDIR for a directory; ELOOP for a link). */
int ctk_file_not_regular(const char *path, mode_t mode, struct ctk_error **err);

/* n as a size for messages: "16 MiB", "64 KiB", "100 bytes". */
#define CTK_SIZE_TEXT_MAX 32
void ctk_size_text(size_t n, char buf[CTK_SIZE_TEXT_MAX]);

/* Replaces path with data: a temporary file in the same directory, written,
 * fsync'ed, renamed over path, then the directory fsync'ed.  An existing
 * file's mode (and owner, when permitted) is kept; a new one gets
 * new_mode.  The temporary file gets the final owner and mode before its
 * first byte (it is created with no permission at all).  On failure path is unchanged and no temporary file remains.
 * A path that is a symbolic link, or not a regular file, is refused: no
 * link is followed, and a hard link of path elsewhere keeps its content. */
int ctk_file_write_atomic(const char *path, const void *data, size_t len, mode_t new_mode, struct ctk_error **err);

/* The same, but the file gets mode whether it existed or not (its owner is
 * kept, when permitted): for generated files whose mode is part of their
 * contract. */
int ctk_file_write_atomic_mode(const char *path, const void *data, size_t len, mode_t mode, struct ctk_error **err);

/* ctk_file_write_atomic with flags: CTK_WRITE_FORCE_MODE gives the file
 * mode even when it existed; CTK_WRITE_TRUSTED writes only when every
 * directory from "/" to the file is trusted (trust.h: root's, writable by
 * no one else; a link on the way root's and leading to a trusted path),
 * else EPERM "PATH is not trusted: its ancestor D is writable by every
 * user (mode 0777): not written"; CTK_WRITE_NO_LINKS, the same with no
 * symbolic link among those directories (ELOOP: for files of ours in
 * directories someone else may have prepared, where a link would put ours
 * elsewhere). */
#define CTK_WRITE_FORCE_MODE 1u
#define CTK_WRITE_TRUSTED    2u
#define CTK_WRITE_NO_LINKS   4u
int ctk_file_write_atomic_flags(const char *path, const void *data, size_t len, mode_t mode, unsigned flags,
                                struct ctk_error **err);

/* The same, but the file gets mode and the owner uid:gid (as far as the
 * writer may give it away) whatever a file at path had: a backup takes its
 * source's, never those of an earlier backup. */
int ctk_file_write_atomic_as(const char *path, const void *data, size_t len, mode_t mode, uid_t uid, gid_t gid,
                             unsigned flags, struct ctk_error **err);

/* Refuses, as the writer given flags (CTK_WRITE_TRUSTED, _NO_LINKS)
 * would, a path that is a symbolic link or not a regular file (a missing
 * one is fine) or, with those flags, one the writer would not write
 * through: to check every file of a change before writing the first. */
int ctk_file_write_check(const char *path, unsigned flags, struct ctk_error **err);

/* Opens path to append to it (created with mode when missing): only a
 * regular file, never waiting, never through a link at path (O_NONBLOCK,
 * O_NOFOLLOW; what it is looked at first, and what was opened checked
 * with fstat).  A FIFO, a device, a socket or a directory is EINVAL
 * ("PATH is a FIFO, not a regular file: not written"), a link ELOOP; a
 * device is not even opened.  For logs a path from a configuration or an
 * engine names. */
int ctk_file_open_append(const char *path, mode_t mode, struct ctk_error **err);

/* Flushes and closes standard output.  A write that failed there (a full
 * disk, a closed pipe) is an error naming it, so that a command whose
 * output was cut does not exit 0. */
int ctk_stdout_close(struct ctk_error **err);

#endif
