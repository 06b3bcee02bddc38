/* Looking a program up in a list of directories, as a shell looks a
 * command up on PATH. */
#ifndef CTK_PATHSEARCH_H
#define CTK_PATHSEARCH_H

/* What accept() answers for a candidate path. */
enum ctk_path_verdict {
        CTK_PATH_SKIP = 0, /* not this one: go on */
        CTK_PATH_TAKE = 1, /* the one */
};

/* The first DIR/name, for DIR the directories of dirs (':'-separated, in
 * order; relative entries and "" are skipped: they would depend on the
 * working directory), that accept(path, ctx) takes; accept NULL takes a
 * regular file this process may execute (ctk_path_executable).  Returns a
 * malloc'ed path, or NULL with errno ENOENT (none) or ENOMEM.  name must
 * not contain '/'. */
char *ctk_path_search(const char *name, const char *dirs, enum ctk_path_verdict (*accept)(const char *path, void *ctx),
                      void *ctx);

/* Whether path is a regular file (links followed) this process may execute. */
int ctk_path_executable(const char *path);

#endif
