#include "lowlevel.h"

#include <errno.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/base.h"

/* The file that is this program (known: it could be stat'ed). */
struct identity {
        bool known;
        dev_t dev;
        ino_t ino;
};

/* 1: a usable runtime, 0: not one (absent, not executable), -2: this program. */
static int usable(const char *path, const struct identity *self)
{
        struct stat st;
        if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) || access(path, X_OK) < 0)
                return 0;
        return self->known && st.st_dev == self->dev && st.st_ino == self->ino ? -2 : 1;
}

struct search_ctx {
        const struct identity *self;
        bool found_self;
};

static enum ctk_path_verdict accept_usable(const char *path, void *ctx)
{
        struct search_ctx *c = ctx;
        int u = usable(path, c->self);
        if (u == -2)
                c->found_self = true;
        return u == 1 ? CTK_PATH_TAKE : CTK_PATH_SKIP;
}

/* Looks name up in the directories of path_env, then of RT_DEFAULT_PATH. */
static char *search(const char *name, const char *path_env, const struct identity *self, bool *found_self)
{
        _cleanup_free_ char *dirs = NULL;
        if (asprintf(&dirs, "%s:%s", path_env != NULL ? path_env : "", RT_DEFAULT_PATH) < 0)
                return NULL;
        struct search_ctx c = {.self = self};
        char *found = ctk_path_search(name, dirs, accept_usable, &c);
        *found_self = *found_self || c.found_self;
        return found;
}

int rt_lowlevel_find(const char *configured, const char *path_env, const char *self, char **out, struct ctk_error **err)
{
        struct identity me = {0};
        struct stat st;
        if (self != NULL && stat(self, &st) == 0)
                me = (struct identity){.known = true, .dev = st.st_dev, .ino = st.st_ino};
        *out = NULL;
        bool found_self = false;
        if (configured != NULL) {
                if (strchr(configured, '/') != NULL) {
                        int u = usable(configured, &me);
                        if (u == -2)
                                return ctk_error_set(err, ELOOP,
                                                     "runtime-path %s is amd-container-runtime itself; "
                                                     "set it to runc or crun",
                                                     CTK_CUT(configured));
                        if (u == 0)
                                return ctk_error_set(err, ENOENT, "runtime-path %s is not an executable file",
                                                     CTK_CUT(configured));
                        *out = strdup(configured);
                } else {
                        *out = search(configured, path_env, &me, &found_self);
                        if (*out == NULL)
                                return ctk_error_set(err, ENOENT,
                                                     "runtime-path %s: not found on PATH nor in " RT_DEFAULT_PATH "%s",
                                                     CTK_CUT(configured), found_self ? " (except this program)" : "");
                }
                return *out != NULL ? 0 : ctk_error_set(err, ENOMEM, "out of memory");
        }
        static const char *const defaults[] = {"runc", "crun"};
        for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++) {
                *out = search(defaults[i], path_env, &me, &found_self);
                if (*out != NULL)
                        return 0;
        }
        return ctk_error_set(err, ENOENT,
                             "no low-level runtime found: neither runc nor crun is on PATH nor in " RT_DEFAULT_PATH
                             "; set runtime-path in the configuration file");
}

const char *rt_lowlevel_root(const char *root, const char *runtime)
{
        if (root != NULL)
                return root;
        const char *base = strrchr(runtime, '/');
        base = base != NULL ? base + 1 : runtime;
        return strcmp(base, "crun") == 0 ? "/run/crun" : "/run/runc";
}

char *rt_ctk_find(const char *configured, const char *self_exe)
{
        _cleanup_free_ char *path = NULL;
        if (configured != NULL) {
                path = strdup(configured);
        } else {
                _cleanup_free_ char *self = realpath(self_exe, NULL);
                if (self == NULL || asprintf(&path, "%s/amd-ctk", dirname(self)) < 0)
                        path = NULL;
        }
        struct stat st;
        if (path == NULL || path[0] != '/' || stat(path, &st) < 0 || !S_ISREG(st.st_mode) || access(path, X_OK) < 0)
                return NULL;
        return ctk_steal(&path);
}

char **rt_lowlevel_argv(const char *runtime, char *const args[], int n)
{
        char **argv = calloc((size_t)n + 2, sizeof(*argv));
        if (argv == NULL)
                return NULL;
        const char *slash = strrchr(runtime, '/');
        argv[0] = (char *)(slash != NULL ? slash + 1 : runtime);
        for (int i = 0; i < n; i++)
                argv[i + 1] = args[i];
        return argv;
}

int rt_lowlevel_exec(const char *runtime, char *const args[], int n, struct ctk_error **err)
{
        char **argv = rt_lowlevel_argv(runtime, args, n);
        if (argv == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        execv(runtime, argv);
        int e = errno;
        free(argv);
        return ctk_error_errno(err, e, "cannot execute %s", CTK_CUT(runtime));
}
