#include "trust.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "format.h"
#include "fileio.h"

/* The uid files of owners this user namespace does not map show as
 * (the overflow uid), or (uid_t)-1 in the initial namespace, which maps
 * every uid.  Read again only in another user namespace (unshare). */
/* The decimal number at *p (spaces before it skipped), *p moved past it;
 * false when there is none. */
static bool number_at(const char **p, unsigned long *v)
{
        char *end;
        errno = 0;
        *v = strtoul(*p, &end, 10);
        if (end == *p || errno != 0)
                return false;
        *p = end;
        return true;
}

static uid_t unmapped_owner(void)
{
        static ino_t known_ns; /* (0: none read yet, or no /proc) */
        static uid_t uid = (uid_t)-1;
        struct stat ns;
        if (stat("/proc/self/ns/user", &ns) < 0)
                ns.st_ino = 0;
        if (ns.st_ino != 0 && ns.st_ino == known_ns)
                return uid;
        known_ns = ns.st_ino;
        uid = (uid_t)-1;
        char map[128] = "", over[32] = "";
        FILE *f = fopen("/proc/self/uid_map", "re");
        size_t n = f != NULL ? fread(map, 1, sizeof(map) - 1, f) : 0;
        if (f != NULL)
                (void)fclose(f); /* (read only) */
        map[n] = '\0';
        const char *p = map;
        unsigned long inside, outside, count, o;
        if (number_at(&p, &inside) && number_at(&p, &outside) && number_at(&p, &count) && inside == 0 && outside == 0 &&
            count == 4294967295UL && strchr(map, '\n') == strrchr(map, '\n'))
                return uid; /* the initial namespace */
        f = fopen("/proc/sys/kernel/overflowuid", "re");
        p = over;
        if (f != NULL && fgets(over, sizeof(over), f) != NULL && number_at(&p, &o))
                uid = (uid_t)o;
        if (f != NULL)
                (void)fclose(f); /* (read only) */
        return uid;
}

/* An ordinary user's own file in its own group (Debian's user private
 * groups and umask 002 make ~/.config 0775): that group is the user's,
 * and the program has no more rights than the user.  Never for root of
 * the host, whose group write is another user's way in. */
static bool own_group(const struct stat *st, uid_t euid)
{
        return st->st_uid == euid && st->st_gid == getegid() && (euid != 0 || unmapped_owner() != (uid_t)-1);
}

enum ctk_trust ctk_trust_check(const struct stat *st, uid_t euid)
{
        /* In a user namespace of its own (a rootless runtime, with no more
         * rights than its user), root's files show as owned by the overflow
         * uid: counted as root's. */
        if (st->st_uid != 0 && st->st_uid != euid && st->st_uid != unmapped_owner())
                return CTK_UNTRUSTED_OWNER;
        if (S_ISLNK(st->st_mode))
                return CTK_TRUSTED;
        if ((st->st_mode & S_IWOTH) != 0)
                return CTK_UNTRUSTED_OTHERS;
        if ((st->st_mode & S_IWGRP) != 0 && !own_group(st, euid))
                return CTK_UNTRUSTED_GROUP;
        return CTK_TRUSTED;
}

bool ctk_trust_host_root(void)
{
        return geteuid() == 0 && unmapped_owner() == (uid_t)-1;
}

int ctk_trust_walk_require(const char *path, const struct ctk_trust_walk *w, struct ctk_error **err)
{
        if (!w->exists)
                return ctk_error_errno(err, ENOENT, "cannot open %s", CTK_CUT(path));
        uid_t euid = geteuid();
        enum ctk_trust t = S_ISDIR(w->st.st_mode) ? ctk_trust_check_dir(&w->st, euid) : ctk_trust_check(&w->st, euid);
        if (t == CTK_TRUSTED)
                return 0;
        _cleanup_free_ char *what = NULL;
        if ((w->via_link ? asprintf(&what, "its target %s%s%s", w->dir, strcmp(w->dir, "/") == 0 ? "" : "/", w->name)
                         : asprintf(&what, "it")) < 0)
                return ctk_error_set(err, ENOMEM, "out of memory");
        return ctk_trust_refuse(path, what, &w->st, t, euid, err);
}

int ctk_trust_dir(const char *path, struct ctk_error **err)
{
        _cleanup_trust_walk_ struct ctk_trust_walk w;
        if (ctk_trust_walk(path, CTK_TRUST_FOLLOW, &w, err) < 0)
                return -1;
        if (w.exists && !S_ISDIR(w.st.st_mode))
                return ctk_error_errno(err, ENOTDIR, "cannot open %s", CTK_CUT(path));
        return ctk_trust_walk_require(path, &w, err);
}

int ctk_trust_mkdir_parent(const char *path, unsigned flags, struct ctk_error **err)
{
        _cleanup_trust_walk_ struct ctk_trust_walk w;
        return ctk_trust_walk(path, flags | CTK_TRUST_MKDIR, &w, err);
}

int ctk_file_read_trusted(const char *path, size_t max, char **out, size_t *len, struct ctk_error **err)
{
        _cleanup_trust_walk_ struct ctk_trust_walk w;
        if (ctk_trust_walk(path, CTK_TRUST_FOLLOW, &w, err) < 0)
                return -1;
        if (w.exists && !S_ISREG(w.st.st_mode)) /* (a device is not even opened) */
                return ctk_file_not_regular(path, w.st.st_mode, err);
        if (ctk_trust_walk_require(path, &w, err) < 0)
                return -1;
        _cleanup_close_ int fd = openat(w.dirfd, w.name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) < 0)
                return ctk_error_errno(err, errno, "cannot open %s", CTK_CUT(path));
        /* replaced since (in a trusted directory: by root): judged again */
        if (st.st_dev != w.st.st_dev || st.st_ino != w.st.st_ino) {
                w.st = st;
                if (!S_ISREG(st.st_mode))
                        return ctk_file_not_regular(path, st.st_mode, err);
                if (ctk_trust_walk_require(path, &w, err) < 0)
                        return -1;
        }
        return ctk_file_read_fd(fd, path, max, out, len, err);
}
