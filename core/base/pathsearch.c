#include "pathsearch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int ctk_path_executable(const char *path)
{
        struct stat st;
        return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

char *ctk_path_search(const char *name, const char *dirs, enum ctk_path_verdict (*accept)(const char *path, void *ctx),
                      void *ctx)
{
        for (const char *p = dirs != NULL ? dirs : ""; *p != '\0';) {
                const char *colon = strchr(p, ':');
                size_t dlen = colon != NULL ? (size_t)(colon - p) : strlen(p);
                if (dlen > 0 && p[0] == '/') {
                        char *full = NULL;
                        if (asprintf(&full, "%.*s/%s", (int)dlen, p, name) < 0) {
                                errno = ENOMEM;
                                return NULL;
                        }
                        if (accept != NULL ? accept(full, ctx) == CTK_PATH_TAKE : ctk_path_executable(full))
                                return full;
                        free(full);
                }
                p += dlen + (colon != NULL ? 1 : 0);
        }
        errno = ENOENT;
        return NULL;
}
