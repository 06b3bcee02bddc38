/* Files we read, made by the harness in a private directory as the input
 * says: the bounded reader (ctk_file_read, ctk_file_read_trusted), the CDI
 * spec directories that use them (ctk_cdi_cache_load), and the cut of the
 * values a message quotes.  The oracles are what the harness made, not
 * what the code under test computes:
 *
 *   byte 0: what the spec file is: a regular file, a FIFO, a symbolic link
 *           to a regular file in another directory, a directory (bits 0-1);
 *           its directory writable by its group (bit 2), by others (bit 3);
 *           the file writable by its group (bit 4), by others (bit 5); the
 *           link's target's directory writable by others (bit 6); the file
 *           owned by another user (bit 7, when run as root);
 *   byte 1: the reader's limit, in bytes (0: none below the file's size);
 *   the rest: the file's content.
 *
 * A regular file (or a link to one) within the limit reads back as it was
 * written; anything else is one error, never a wait; a file is trusted
 * exactly when neither it, its directory, nor the link's target and its
 * directory could be written by someone else; the cache uses no spec that
 * is not trusted and says so (a directory others may write is skipped
 * whole, naming it); a message quoting the content is one line of bounded
 * length. */
#include "fuzz.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/base.h"
#include "core/cdi/cdi.h"

static char base[] = "/tmp/ctk-fuzz-files-XXXXXX";
static char *dir, *file, *target_dir, *target;

static void clear(void);

/* At exit: nothing left in /tmp. */
static void remove_all(void)
{
        clear();
        rmdir(dir);
        rmdir(target_dir);
        rmdir(base);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
        (void)argc;
        (void)argv;
        if (mkdtemp(base) == NULL || asprintf(&dir, "%s/d", base) < 0 || asprintf(&file, "%s/spec.json", dir) < 0 ||
            asprintf(&target_dir, "%s/t", base) < 0 || asprintf(&target, "%s/target.json", target_dir) < 0 ||
            mkdir(dir, 0755) < 0 || mkdir(target_dir, 0755) < 0 || atexit(remove_all) != 0)
                abort();
        return 0;
}

static void clear(void)
{
        if (unlink(file) < 0 && errno == EISDIR)
                rmdir(file);
        unlink(target);
}

static void write_file(const char *path, const uint8_t *data, size_t size, mode_t mode)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        FUZZ_ASSERT(fd >= 0);
        FUZZ_ASSERT(write(fd, data, size) == (ssize_t)size);
        close(fd);
        FUZZ_ASSERT(chmod(path, mode) == 0);
}

/* The message of err quoting the content: one line, short. */
static void check_message(const uint8_t *data, size_t size)
{
        _cleanup_free_ char *text = fuzz_text(data, size);
        struct ctk_error *err = NULL;
        ctk_error_set(&err, EINVAL, "value '%s' is bad", CTK_CUT(text));
        FUZZ_ASSERT(err != NULL && strchr(err->msg, '\n') == NULL);
        /* 200 bytes at most, each spelt in 4 at most (\xNN), and the length */
        FUZZ_ASSERT(strlen(err->msg) <= strlen("value '' is bad") + (size_t)4 * CTK_VALUE_MAX + 40);
        size_t len = strlen(text);
        if (len <= CTK_VALUE_MAX && strpbrk(text, "\x01\x02\x03\x04\x05\x06\x07\x08\t\n\v\f\r\x0e\x0f\x10\x11\x12\x13"
                                                  "\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\x7f") == NULL)
                FUZZ_ASSERT(strncmp(err->msg + 7, text, len) == 0 && strcmp(err->msg + 7 + len, "' is bad") == 0);
        ctk_error_free(err);
}

/* Whether msg says path (the spec file, or its directory) is not trusted
 * (not a quote of the file's text). */
static bool says_untrusted(const char *msg, const char *path)
{
        static const char tail[] = " is not trusted: ";
        size_t n = strlen(path);
        return strncmp(msg, path, n) == 0 && strncmp(msg + n, tail, sizeof(tail) - 1) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size < 2)
                return 0;
        unsigned flags = data[0], kind = flags & 3;
        size_t max = data[1] != 0 ? data[1] : CTK_FILE_MAX;
        data += 2;
        size -= 2;
        check_message(data, size);
        clear();
        mode_t file_mode = 0644 | ((flags & 16) ? 020 : 0) | ((flags & 32) ? 002 : 0);
        FUZZ_ASSERT(chmod(dir, 0755 | ((flags & 4) ? 020 : 0) | ((flags & 8) ? 002 : 0)) == 0);
        FUZZ_ASSERT(chmod(target_dir, 0755 | ((flags & 64) ? 002 : 0)) == 0);
        bool someone_else = (flags & 128) != 0 && geteuid() == 0;
        const char *real = kind == 2 ? target : file;
        if (kind == 0 || kind == 2)
                write_file(real, data, size, file_mode);
        else if (kind == 1)
                FUZZ_ASSERT(mkfifo(file, file_mode) == 0 && chmod(file, file_mode) == 0);
        else
                FUZZ_ASSERT(mkdir(file, 0755) == 0);
        if (kind == 2)
                FUZZ_ASSERT(symlink(target, file) == 0);
        FUZZ_ASSERT(lchown(real, someone_else ? 65534 : geteuid(), (gid_t)-1) == 0);

        bool regular = kind == 0 || kind == 2;
        bool fits = size <= max;
        bool trusted = (flags & (4 | 8)) == 0 && (kind != 2 || (flags & 64) == 0) &&
                       (!regular || ((flags & (16 | 32)) == 0 && !someone_else));

        /* the bounded reader */
        char *out = NULL;
        size_t len = 0;
        struct ctk_error *err = NULL;
        int r = ctk_file_read(file, max, 0, &out, &len, &err);
        FUZZ_ASSERT((r == 0) == (regular && fits));
        if (r == 0)
                FUZZ_ASSERT(len == size && memcmp(out, data, size) == 0 && out[len] == '\0');
        else
                FUZZ_ASSERT(err != NULL && strchr(err->msg, '\n') == NULL &&
                            err->code == (!regular ? (kind == 3 ? EISDIR : EINVAL) : EFBIG));
        free(out);
        ctk_error_free(err);
        err = NULL;

        /* the trusted reader: the same, and only when trusted */
        out = NULL;
        r = ctk_file_read_trusted(file, max, &out, &len, &err);
        if (r == 0) {
                FUZZ_ASSERT(regular && fits && trusted);
                FUZZ_ASSERT(len == size && memcmp(out, data, size) == 0);
        } else {
                FUZZ_ASSERT(err != NULL && strchr(err->msg, '\n') == NULL);
                FUZZ_ASSERT(!(regular && fits && trusted));
                /* not trusted: said so, whatever the file is */
                FUZZ_ASSERT((err->code == EPERM) ==
                            (!trusted && (regular || (flags & (4 | 8)) != 0 || (kind == 2 && (flags & 64) != 0))));
        }
        free(out);
        ctk_error_free(err);

        /* the spec directories: a spec not trusted is never used */
        const char *dirs[] = {dir};
        _cleanup_cdi_cache_ struct ctk_cdi_cache c = {0};
        FUZZ_ASSERT(ctk_cdi_cache_load(dirs, 1, &c, NULL) == 0);
        if ((flags & (4 | 8)) != 0) { /* a directory others may write: skipped whole, naming it */
                FUZZ_ASSERT(c.nspecs == 0 && c.nproblems == 1 && says_untrusted(c.problems[0].msg, dir));
        } else if (kind != 3) {
                FUZZ_ASSERT(c.nspecs + c.nproblems == 1);
                if (!trusted)
                        FUZZ_ASSERT(c.nspecs == 0 && says_untrusted(c.problems[0].msg, file));
                else if (c.nproblems > 0)
                        FUZZ_ASSERT(!says_untrusted(c.problems[0].msg, file));
                for (size_t i = 0; i < c.nproblems; i++)
                        FUZZ_ASSERT(strchr(c.problems[i].msg, '\n') == NULL);
        }
        return 0;
}
