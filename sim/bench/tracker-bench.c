/* GPU tracker latency: allocation + release of one container's GPUs with
 * many containers already tracked, as on the container create/delete path.
 *
 *   tracker-bench PROFILE [TRACKED [ROUNDS]]     (defaults 1000, 200)
 *
 * The state lives under $TMPDIR (default /tmp): on a disk, each write pays
 * two flushes (the file, then its directory).
 *
 * Every tracked container is "running" (its runc state exists in a fake
 * runtime root), so each operation also pays for reconciliation.  Prints
 * the median and 90th percentile in milliseconds. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backends/open.h"
#include "core/base/tests/scratch_dir.h"
#include "core/base/base.h"
#include "core/device/device.h"
#include "core/tracker/tracker.h"

static double now_ms(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;
        return x < y ? -1 : x > y;
}

static double pct(double *v, size_t n, double p)
{
        qsort(v, n, sizeof(*v), cmp_double);
        size_t i = (size_t)(p * (double)(n - 1) + 0.5);
        return v[i];
}

static int parse_count(const char *s, long min, long *out)
{
        char *end;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (errno != 0 || end == s || *end != '\0' || v < min || v > 1000000)
                return -1;
        *out = v;
        return 0;
}

static void container_id(char *buf, size_t n, const char *prefix, long i)
{
        (void)snprintf(buf, n, "%s%0*ld", prefix, (int)(64 - strlen(prefix)), i);
}

/* Makes <root>/<id>/state.json, like runc for a running container. */
static int runc_state(const char *root, const char *id)
{
        _cleanup_free_ char *dir = NULL, *file = NULL;
        if (asprintf(&dir, "%s/%s", root, id) < 0 || asprintf(&file, "%s/state.json", dir) < 0)
                return -1;
        if (mkdir(dir, 0700) < 0)
                return -1;
        FILE *f = fopen(file, "we");
        return f != NULL && fclose(f) == 0 ? 0 : -1;
}

static int bench_fail(const char *what, struct ctk_error *err)
{
        fprintf(stderr, "tracker-bench: %s: %s\n", what, err ? err->msg : strerror(errno));
        ctk_error_free(err);
        return 1;
}

int main(int argc, char **argv)
{
        long tracked = 1000, rounds = 200;
        if (argc < 2 || argc > 4 || (argc > 2 && parse_count(argv[2], 0, &tracked) < 0) ||
            (argc > 3 && parse_count(argv[3], 1, &rounds) < 0)) {
                fprintf(stderr, "usage: tracker-bench PROFILE [TRACKED [ROUNDS]]\n");
                return 2;
        }
        struct ctk_error *err = NULL;
        _cleanup_backend_ struct ctk_backend *b = NULL;
        _cleanup_gpu_list_ struct ctk_gpu_list gpus = {0};
        if (ctk_backend_open(NULL, argv[1], &b, &err) < 0 || ctk_discover_gpus(b, &gpus, &err) < 0)
                return bench_fail(argv[1], err);
        if (gpus.n == 0)
                return bench_fail("the profile has no GPUs", NULL);

        /* TMPDIR on tmpfs (fsync is free there) separates the work from
         * the disk's flush latency. */
        const char *tmp = getenv("TMPDIR");
        _cleanup_free_ char *dir = NULL;
        if (asprintf(&dir, "%s/tracker-bench.XXXXXX", tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp") < 0)
                return bench_fail("asprintf", NULL);
        if (mkdtemp(dir) == NULL)
                return bench_fail("mkdtemp", NULL);
        _cleanup_free_ char *state = NULL, *root = NULL;
        if (asprintf(&state, "%s/state", dir) < 0 || asprintf(&root, "%s/runc", dir) < 0 || mkdir(root, 0700) < 0)
                return bench_fail("setup", NULL);
        struct ctk_tracker_opts o = {.state_dir = state};
        _cleanup_tracker_ struct ctk_tracker *t = NULL;
        bool changed, ok;
        int rc = 0;
        if (ctk_tracker_new(&o, &t, &err) < 0 || ctk_tracker_enable(t, &gpus, &changed, &err) < 0) {
                rc = bench_fail("enable", err);
                goto out;
        }
        /* The already tracked containers: one or two shared GPUs each.  Built
         * in memory and saved once (allocating them one by one would reread
         * a growing state a thousand times). */
        {
                _cleanup_tracker_state_ struct ctk_tracker_state st = {0};
                bool missing;
                if (ctk_tracker_load(&t->paths, &st, &missing, &err) < 0) {
                        rc = bench_fail("loading the state", err);
                        goto out;
                }
                for (long i = 0; i < tracked; i++) {
                        char id[80];
                        container_id(id, sizeof(id), "bench", i);
                        size_t idx[2] = {(size_t)i % gpus.n, (size_t)(i * 7 + 3) % gpus.n};
                        struct ctk_tracker_container who = {.id = id, .runtime_root = root};
                        if (runc_state(root, id) < 0 ||
                            ctk_tracker_state_alloc(&st, &who, idx, 1 + (size_t)(i % 2), &changed, &err) < 0) {
                                rc = bench_fail("tracking the initial containers", err);
                                goto out;
                        }
                }
                if (ctk_tracker_save(&t->paths, &st, &err) < 0) {
                        rc = bench_fail("saving the initial state", err);
                        goto out;
                }
        }
        /* The measured container asks for 8 GPUs (one MI300X in CPX mode). */
        size_t want = gpus.n < 8 ? gpus.n : 8;
        size_t idx[8];
        double *alloc_ms = calloc((size_t)rounds, sizeof(double));
        double *release_ms = calloc((size_t)rounds, sizeof(double));
        double *both_ms = calloc((size_t)rounds, sizeof(double));
        for (long r = 0; alloc_ms && release_ms && both_ms && r < rounds; r++) {
                char id[80];
                container_id(id, sizeof(id), "measured", r);
                for (size_t k = 0; k < want; k++)
                        idx[k] = ((size_t)r * 8 + k) % gpus.n;
                struct ctk_tracker_request req = {
                    .container_id = id, .idx = idx, .n = want, .runtime_root = root, .pid = getpid()};
                double t0 = now_ms();
                if (ctk_tracker_allocate(t, &gpus, &req, &ok, &err) < 0) {
                        rc = bench_fail("allocate", err);
                        break;
                }
                double t1 = now_ms();
                if (ctk_tracker_release(t, id, NULL, &err) < 0) {
                        rc = bench_fail("release", err);
                        break;
                }
                double t2 = now_ms();
                alloc_ms[r] = t1 - t0;
                release_ms[r] = t2 - t1;
                both_ms[r] = t2 - t0;
        }
        if (rc == 0 && alloc_ms && release_ms && both_ms) {
                double m = pct(both_ms, (size_t)rounds, 0.5), p90 = pct(both_ms, (size_t)rounds, 0.9);
                double ma = pct(alloc_ms, (size_t)rounds, 0.5), mr = pct(release_ms, (size_t)rounds, 0.5);
                printf("tracker: allocate+release, %zu GPUs, %ld containers tracked, %ld rounds: "
                       "median %.3f ms (allocate %.3f, release %.3f), p90 %.3f ms\n",
                       gpus.n, tracked, rounds, m, ma, mr, p90);
        }
        free(alloc_ms);
        free(release_ms);
        free(both_ms);
out:
        if (scratch_dir_remove(dir) < 0)
                fprintf(stderr, "tracker-bench: cannot remove %s\n", dir);
        return rc;
}
