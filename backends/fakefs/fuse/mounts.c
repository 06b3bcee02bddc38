/* Finding and unmounting amd-ctk-fakefs mounts. */
#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/base/base.h"
#include "server.h"

#define FSTYPE "fuse.amd-ctk-fakefs"

/* Undoes the octal escapes of /proc/self/mountinfo ("\040" for a space). */
static void unescape(char *s)
{
        char *out = s;
        for (; *s; s++) {
                if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' && s[3] >= '0' &&
                    s[3] <= '7') {
                        *out++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
                        s += 3;
                } else {
                        *out++ = *s;
                }
        }
        *out = '\0';
}

/* Mount point (field 5) and file system type (after " - ") of a line. */
static int parse_line(char *line, char **mnt, char **fstype)
{
        char *save = NULL, *tok = strtok_r(line, " ", &save);
        for (int i = 1; tok != NULL && i < 5; i++)
                tok = strtok_r(NULL, " ", &save);
        if (tok == NULL)
                return -1;
        *mnt = tok;
        while ((tok = strtok_r(NULL, " ", &save)) != NULL && strcmp(tok, "-") != 0)
                ;
        if (tok == NULL || (*fstype = strtok_r(NULL, " ", &save)) == NULL)
                return -1;
        unescape(*mnt);
        return 0;
}

int fakefs_is_mounted(const char *path, bool *mounted, struct ctk_error **err)
{
        *mounted = false;
        _cleanup_free_ char *real = realpath(path, NULL);
        if (real == NULL) {
                /* A dead FUSE mount fails with ENOTCONN: compare the absolute path. */
                if (errno != ENOTCONN)
                        return ctk_error_errno(err, errno, "%s", CTK_CUT(path));
                if (path[0] == '/')
                        real = strdup(path);
                else {
                        _cleanup_free_ char *cwd = getcwd(NULL, 0);
                        if (cwd != NULL && asprintf(&real, "%s/%s", cwd, path) < 0)
                                real = NULL;
                }
                if (real == NULL)
                        return ctk_error_set(err, ENOMEM, "out of memory");
                size_t len = strlen(real);
                while (len > 1 && real[len - 1] == '/')
                        real[--len] = '\0';
        }
        _cleanup_fclose_ FILE *f = fopen("/proc/self/mountinfo", "re");
        if (f == NULL)
                return ctk_error_errno(err, errno, "reading /proc/self/mountinfo");
        _cleanup_free_ char *line = NULL;
        size_t cap = 0;
        while (getline(&line, &cap, f) > 0) {
                line[strcspn(line, "\n")] = '\0';
                char *mnt, *fstype;
                if (parse_line(line, &mnt, &fstype) == 0 && strcmp(mnt, real) == 0)
                        *mounted = strcmp(fstype, FSTYPE) == 0; /* the last mount on top wins */
        }
        return 0;
}

/* fusermount3 -u [-z] for users who may not call umount2(). */
static int fusermount(const char *path, bool lazy)
{
        char *argv[] = {(char *)"fusermount3", (char *)"-u", lazy ? (char *)"-z" : (char *)"-q", (char *)path, NULL};
        pid_t pid;
        extern char **environ;
        if (posix_spawnp(&pid, "fusermount3", NULL, NULL, argv, environ) != 0)
                return -1;
        int status;
        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR)
                        return -1;
        return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int fakefs_unmount(const char *path, struct ctk_error **err)
{
        bool mounted;
        if (fakefs_is_mounted(path, &mounted, err) < 0)
                return -1;
        if (!mounted)
                return ctk_error_set(err, EINVAL, "%s is not an amd-ctk-fakefs mount point", CTK_CUT(path));
        if (umount2(path, UMOUNT_NOFOLLOW) == 0)
                return 0;
        int e = errno;
        if (e == EPERM)
                return fusermount(path, false) == 0 || fusermount(path, true) == 0
                           ? 0
                           : ctk_error_errno(err, e, "cannot unmount %s", CTK_CUT(path));
        /* busy or dead (server gone): detach it now, it goes away when unused */
        if (umount2(path, MNT_DETACH | UMOUNT_NOFOLLOW) == 0)
                return 0;
        return ctk_error_errno(err, errno, "cannot unmount %s", CTK_CUT(path));
}
