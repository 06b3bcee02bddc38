/* Scratch directories for unit tests: made from a mkdtemp template, paths
 * inside them, and removal of all they hold (without a shell). */
#ifndef CTK_TESTS_SCRATCH_DIR_H
#define CTK_TESTS_SCRATCH_DIR_H

#include <errno.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <cmocka.h>

/* Makes the directory named by templ (ending in "XXXXXX", filled in
 * place); templ, or NULL with errno set. */
static inline char *scratch_dir_make(char *templ)
{
        return mkdtemp(templ);
}

/* "dir/rel", malloc'ed; the test fails when memory runs out. */
static inline char *scratch_path(const char *dir, const char *rel)
{
        char *p = NULL;
        if (asprintf(&p, "%s/%s", dir, rel) < 0)
                fail();
        return p;
}

/* Writes text to the file "dir/rel" (created or truncated); the test
 * fails when it cannot. */
static inline void scratch_write(const char *dir, const char *rel, const char *text)
{
        char *p = scratch_path(dir, rel);
        FILE *f = fopen(p, "we");
        if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0)
                fail_msg("cannot write %s", p);
        free(p);
}

static int scratch_remove_failed;

static inline int scratch_remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
        (void)st;
        (void)type;
        (void)ftw;
        if (remove(path) < 0 && errno != ENOENT)
                scratch_remove_failed = 1; /* go on with the rest, as rm -rf does */
        return 0;
}

/* Removes dir and everything below it (links themselves, not what they
 * name); a dir that is not there is fine.  0, or -1 when something
 * stays. */
static inline int scratch_dir_remove(const char *dir)
{
        struct stat st;
        if (lstat(dir, &st) < 0 && errno == ENOENT)
                return 0;
        scratch_remove_failed = 0;
        if (nftw(dir, scratch_remove_one, 16, FTW_DEPTH | FTW_PHYS) < 0)
                return -1;
        return scratch_remove_failed ? -1 : 0;
}

#endif
