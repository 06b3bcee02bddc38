#include "fsdir.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "format.h"

int ctk_fsync_parent_dir(const char *path, struct ctk_error **err)
{
        _cleanup_free_ char *copy = strdup(path);
        if (copy == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        const char *dir = dirname(copy);
        _cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return ctk_error_errno(err, errno, "cannot open directory %s", CTK_CUT(dir));
        if (fsync(dfd) < 0)
                return ctk_error_errno(err, errno, "cannot sync directory %s", CTK_CUT(dir));
        return 0;
}

int ctk_mkdir_p(const char *dir, mode_t mode, struct ctk_error **err)
{
        _cleanup_free_ char *p = strdup(dir);
        if (p == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        size_t n = strlen(p);
        while (n > 1 && p[n - 1] == '/')
                p[--n] = '\0';
        for (char *s = p + 1;; s++) {
                bool end = *s == '\0';
                if (*s == '/' || end) {
                        char c = *s;
                        *s = '\0';
                        if (mkdir(p, mode) < 0 && errno != EEXIST)
                                return ctk_error_errno(err, errno, "cannot create directory %s", CTK_CUT(p));
                        *s = c;
                }
                if (end)
                        break;
        }
        struct stat st;
        if (stat(p, &st) < 0)
                return ctk_error_errno(err, errno, "cannot create directory %s", CTK_CUT(p));
        if (!S_ISDIR(st.st_mode))
                return ctk_error_set(err, ENOTDIR, "%s exists and is not a directory", CTK_CUT(p));
        return 0;
}

int ctk_mkdir_parent(const char *path, mode_t mode, struct ctk_error **err)
{
        _cleanup_free_ char *copy = strdup(path);
        if (copy == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        return ctk_mkdir_p(dirname(copy), mode, err);
}
