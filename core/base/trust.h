/* Files only root (or this program's own user) can have written: what a
 * program running as root may take instructions from.  A CDI spec gives
 * hooks, mounts and device nodes to containers: one that another user
 * could write or replace would run that user's programs as root. */
#ifndef CTK_TRUST_H
#define CTK_TRUST_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "error.h"

enum ctk_trust {
        CTK_TRUSTED,
        CTK_UNTRUSTED_OWNER,  /* owned by someone else than root or euid */
        CTK_UNTRUSTED_GROUP,  /* writable by its group */
        CTK_UNTRUSTED_OTHERS, /* writable by every user */
};

/* Whether the file, directory or symbolic link st describes can have been
 * written by no one but root and euid: its owner is one of them and (but
 * for a link, whose mode means nothing) neither its group nor others may
 * write it. */
enum ctk_trust ctk_trust_check(const struct stat *st, uid_t euid);

/* Reads path as ctk_file_read does (at most max bytes, regular files
 * only, without waiting), but only when it, its directory and, for a
 * symbolic link, the link's target and the target's directory pass
 * ctk_trust_check for geteuid(); checked on what is opened (the file
 * through an O_NOFOLLOW open in the directory checked, then fstat), not
 * on the path.  Otherwise the error EPERM "PATH is not trusted: its
 * directory D is writable by every user (mode 0777)". */
int ctk_file_read_trusted(const char *path, size_t max, char **out, size_t *len, struct ctk_error **err);

#endif
