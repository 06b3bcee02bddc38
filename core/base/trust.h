/* Files only root (or this program's own user) can have written: what a
 * program running as root may take instructions from, and where it may
 * write.  A CDI spec gives hooks, mounts and device nodes to containers:
 * one that another user could write or replace would run that user's
 * programs as root; so could a file of ours written through a directory
 * another user may change.
 *
 * A path is trusted all the way: every directory from "/" to it, and every
 * symbolic link on the way with the whole path of its target (resolved one
 * component at a time, each opened O_PATH | O_NOFOLLOW in the directory
 * before and judged on what was opened), is owned by root (or euid) and
 * writable by neither its group nor others (the group bits are the ACL
 * mask: an ACL granting write counts); a directory with the sticky bit,
 * like /tmp, is safe for the entries in it that are root's.  In a user
 * namespace of its own (a rootless runtime, with no more rights than its
 * user) root's files show as owned by the overflow uid, which counts as
 * root then. */
#ifndef CTK_TRUST_H
#define CTK_TRUST_H

#include <stdbool.h>
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
 * write it.  A program that is not root of the host (an ordinary user,
 * a rootless runtime) may have its own files writable by its own group
 * (getegid(): a user private group, umask 002). */
enum ctk_trust ctk_trust_check(const struct stat *st, uid_t euid);
/* Whether this program is root of the host: euid 0 in the initial user
 * namespace (not a rootless runtime's root of a namespace of its own). */
bool ctk_trust_host_root(void);
/* The same for a directory holding trusted entries: the sticky bit makes
 * one its group or others may write safe (they can neither remove nor
 * rename an entry that is not theirs). */
enum ctk_trust ctk_trust_check_dir(const struct stat *st, uid_t euid);
/* The error for why (not CTK_TRUSTED): EPERM, "PATH is not trusted: WHAT
 * is writable by its group (mode 0775)" ("... is owned by uid N, not
 * root"); 0 for CTK_TRUSTED. */
int ctk_trust_refuse(const char *path, const char *what, const struct stat *st, enum ctk_trust why, uid_t euid,
                     struct ctk_error **err);

/* Where a trusted walk ends: the directory holding the path's last entry
 * and that entry. */
struct ctk_trust_walk {
        int dirfd;     /* the directory, checked: O_RDONLY | O_DIRECTORY (O_PATH when it cannot be read) */
        char *dir;     /* its path as walked (every link resolved) */
        char *name;    /* the last entry's name in it */
        bool exists;   /* whether the entry exists: st is then its lstat */
        bool via_link; /* the path ended in a symbolic link, and this is where it led */
        struct stat st;
};
void ctk_trust_walk_clear(struct ctk_trust_walk *w);
static inline void ctk_trust_walk_clearp(struct ctk_trust_walk *w)
{
        ctk_trust_walk_clear(w);
}
#define _cleanup_trust_walk_ __attribute__((cleanup(ctk_trust_walk_clearp)))

/* The walk's options: FOLLOW: a link as the last component is judged and
 * its target walked in turn (else it is the last entry); NO_LINKS: a link
 * among the directories is refused (ELOOP: files of ours in directories
 * someone may have prepared, where a link would put them elsewhere);
 * MKDIR: missing directories before the last entry are created (0755, in
 * directories already checked). */
#define CTK_TRUST_FOLLOW   1u
#define CTK_TRUST_NO_LINKS 2u
#define CTK_TRUST_MKDIR    4u

/* Walks path (relative: from the working directory) from "/": every
 * directory on the way and every link (but the last entry, which the
 * caller judges) must be trusted, else EPERM naming the first that is not
 * and why ("PATH is not trusted: its directory D is writable by every user
 * (mode 0777)", "its ancestor D ...", "the symbolic link L ...", "its
 * target's directory D ...").  A missing directory is ENOENT; a missing
 * last entry is not an error (out->exists false).  *out is cleared by
 * ctk_trust_walk_clear. */
int ctk_trust_walk(const char *path, unsigned flags, struct ctk_trust_walk *out, struct ctk_error **err);

/* Refuses the last entry of a walk of path that another user could have
 * written (a directory: as one that holds trusted entries); it must exist
 * (ENOENT). */
int ctk_trust_walk_require(const char *path, const struct ctk_trust_walk *w, struct ctk_error **err);

/* Whether path is a directory trusted all the way (links followed): 0, or
 * -1 with ENOENT (it or a directory above is missing), ENOTDIR, EPERM. */
int ctk_trust_dir(const char *path, struct ctk_error **err);

/* Creates the missing directories above path's last entry (0755), each in
 * a trusted one; flags as ctk_trust_walk's. */
int ctk_trust_mkdir_parent(const char *path, unsigned flags, struct ctk_error **err);

/* Reads path as ctk_file_read does (at most max bytes, regular files
 * only, without waiting), but only when it is trusted all the way, a link
 * at its end followed (its target's path walked in turn); the file is
 * opened O_NOFOLLOW in the directory walked and must be what was checked.
 * Otherwise the error EPERM "PATH is not trusted: its directory D is
 * writable by every user (mode 0777)". */
int ctk_file_read_trusted(const char *path, size_t max, char **out, size_t *len, struct ctk_error **err);

#endif
