/* Concurrency check for the FUSE fake host (driven by bats/fakefs-fuse.bats).
 *
 *   fuse_readers MOUNTPOINT GPU_SYSFS_DIR READERS DISCOVERIES
 *
 * Records the discovery answer of the mounted host in SPX and in CPX mode
 * (switching GPU_SYSFS_DIR/current_compute_partition), then starts one
 * process that switches the GPU back and forth and READERS processes that
 * each run DISCOVERIES full discoveries (a fresh backend every time)
 * through the sysfs backend.  The switches are paced by the discoveries,
 * not by time: after each switch the switcher hands out 2 x READERS
 * discoveries and switches again once READERS of them have finished, so
 * that the other ones race the switch (and those that finished saw the
 * mode switched to, whole).  Every discovery must return one of the two
 * recorded answers.  Prints a summary; exits 0 only if no discovery was
 * inconsistent or failed, the GPU was switched more than 10 times and the
 * readers saw both answers. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backends/open.h"
#include "core/base/base.h"
#include "core/device/device.h"

static int parse_count(const char *s, long *out)
{
        char *end;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (errno != 0 || *end != '\0' || v <= 0 || v > 1000000)
                return -1;
        *out = v;
        return 0;
}

/* A canonical text form of a discovery result; NULL with *err on failure. */
static char *discover_text(const char *root, struct ctk_error **err)
{
        _cleanup_backend_ struct ctk_backend *b = NULL;
        _cleanup_gpu_list_ struct ctk_gpu_list l = {0};
        if (ctk_backend_open(root, NULL, &b, err) < 0 || ctk_discover_gpus(b, &l, err) < 0)
                return NULL;
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (f == NULL) {
                ctk_error_errno(err, errno, "open_memstream");
                return NULL;
        }
        for (size_t i = 0; i < l.n; i++) {
                const struct ctk_gpu *g = &l.v[i];
                fprintf(f, "%zu %s %s %s r%d c%d k%d u%d:%llx", g->index, g->pci, g->group_key, g->partition,
                        g->render_minor, g->card_minor, g->kfd_node, g->has_uuid, (unsigned long long)g->uuid);
                for (size_t j = 0; j < g->drm.n; j++)
                        fprintf(f, " %s", g->drm.v[j]);
                fputc('\n', f);
        }
        fclose(f);
        return buf;
}

static int write_mode(const char *ctl, const char *mode)
{
        _cleanup_close_ int fd = open(ctl, O_WRONLY | O_CLOEXEC);
        if (fd < 0)
                return -1;
        size_t n = strlen(mode);
        return write(fd, mode, n) == (ssize_t)n ? 0 : -1;
}

/* The switcher: switches, hands out 2 x readers discoveries on go, waits
 * for readers of them to be done; until the readers are all gone. */
static void switcher(const char *ctl, long readers, int go, int done, long *switches)
{
        char tokens[64];
        memset(tokens, 'g', sizeof(tokens));
        signal(SIGPIPE, SIG_IGN); /* go closed: the readers are gone */
        for (long i = 0;; i++) {
                if (write_mode(ctl, i % 2 == 0 ? "CPX" : "SPX") == 0)
                        __atomic_add_fetch(switches, 1, __ATOMIC_SEQ_CST);
                for (long n = 2 * readers, k; n > 0; n -= k)
                        if ((k = write(go, tokens, (size_t)(n < 64 ? n : 64))) <= 0)
                                _exit(errno == EPIPE ? 0 : 1);
                char c;
                for (long n = 0; n < readers; n++)
                        if (read(done, &c, 1) != 1)
                                _exit(0); /* every reader has exited */
        }
}

int main(int argc, char **argv)
{
        long readers, count;
        if (argc != 5 || parse_count(argv[3], &readers) < 0 || parse_count(argv[4], &count) < 0) {
                fprintf(stderr, "usage: %s MOUNTPOINT GPU_SYSFS_DIR READERS DISCOVERIES\n", argv[0]);
                return 2;
        }
        const char *root = argv[1];
        _cleanup_free_ char *ctl = NULL;
        if (asprintf(&ctl, "%s/%s/current_compute_partition", root, argv[2]) < 0)
                return 1;

        _cleanup_error_ struct ctk_error *err = NULL;
        _cleanup_free_ char *spx = NULL, *cpx = NULL;
        if (write_mode(ctl, "SPX") < 0 || (spx = discover_text(root, &err)) == NULL || write_mode(ctl, "CPX") < 0 ||
            (cpx = discover_text(root, &err)) == NULL || write_mode(ctl, "SPX") < 0) {
                fprintf(stderr, "fuse_readers: setup failed: %s\n", err != NULL ? err->msg : strerror(errno));
                return 1;
        }
        if (strcmp(spx, cpx) == 0) {
                fprintf(stderr, "fuse_readers: SPX and CPX give the same answer; nothing to check\n");
                return 1;
        }

        /* Shared counters: [0] inconsistent, [1] failed, [2] switches,
         * [3] SPX answers, [4] CPX answers. */
        enum { NCOUNTERS = 5 };
        long *shared = mmap(NULL, NCOUNTERS * sizeof(long), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (shared == MAP_FAILED)
                return 1;
        memset(shared, 0, NCOUNTERS * sizeof(long));

        int go[2], done[2];
        if (pipe2(go, O_CLOEXEC) < 0 || pipe2(done, O_CLOEXEC) < 0)
                return 1;
        pid_t sw = fork();
        if (sw < 0)
                return 1;
        if (sw == 0) {
                close(go[0]);
                close(done[1]);
                switcher(ctl, readers, go[1], done[0], &shared[2]);
        }
        close(go[1]);
        close(done[0]);

        for (long r = 0; r < readers; r++) {
                pid_t pid = fork();
                if (pid < 0)
                        return 1;
                if (pid > 0)
                        continue;
                long bad = 0, failed = 0, seen_spx = 0, seen_cpx = 0;
                for (long n = 0; n < count; n++) {
                        char c;
                        if (read(go[0], &c, 1) != 1)
                                _exit(1);
                        struct ctk_error *e = NULL;
                        char *got = discover_text(root, &e);
                        if (got == NULL) {
                                if (failed++ < 3)
                                        fprintf(stderr, "reader %ld run %ld: %s\n", r, n, e->msg);
                        } else if (strcmp(got, spx) == 0) {
                                seen_spx++;
                        } else if (strcmp(got, cpx) == 0) {
                                seen_cpx++;
                        } else if (bad++ < 3) {
                                fprintf(stderr, "reader %ld run %ld: inconsistent answer:\n%s", r, n, got);
                        }
                        free(got);
                        ctk_error_free(e);
                        if (write(done[1], "d", 1) != 1)
                                _exit(1);
                }
                __atomic_add_fetch(&shared[0], bad, __ATOMIC_SEQ_CST);
                __atomic_add_fetch(&shared[1], failed, __ATOMIC_SEQ_CST);
                __atomic_add_fetch(&shared[3], seen_spx, __ATOMIC_SEQ_CST);
                __atomic_add_fetch(&shared[4], seen_cpx, __ATOMIC_SEQ_CST);
                _exit(0);
        }
        int status, reader_crashed = 0;
        for (long r = 0; r < readers; r++) {
                if (wait(&status) < 0)
                        return 1;
                if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                        reader_crashed++;
        }
        close(go[0]);
        close(done[1]); /* the switcher sees the readers gone */
        if (waitpid(sw, &status, 0) != sw || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
                reader_crashed++;
        write_mode(ctl, "SPX");

        printf("%ld readers x %ld discoveries: %ld inconsistent, %ld failed, %d crashed; %ld repartitions; "
               "%ld SPX and %ld CPX answers\n",
               readers, count, shared[0], shared[1], reader_crashed, shared[2], shared[3], shared[4]);
        bool ok = shared[0] == 0 && shared[1] == 0 && reader_crashed == 0 && shared[2] > 10;
        return ok && shared[3] > 0 && shared[4] > 0 ? 0 : 1;
}
