#include "devcg.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/base/base.h"

#define PROBE_TIMEOUT_MS 5000

/* One probe answers for a block of BLOCK minors: a container reading the
 * KFD topology of 64 partitions costs one probe, not 64. */
#define BLOCK 64
_Static_assert(BLOCK <= 64, "one bit per minor of a block in a uint64_t");

struct answer {
        char *key;         /* "v1 path\nv2 path" */
        ino_t ino1, ino2;  /* of the cgroup directories (0: none) */
        unsigned int base; /* the block's first minor */
        uint64_t generation;
        uint64_t known, allowed; /* bit i: minor base + i was probed, allowed */
};

/* A reader's /proc/PID/cgroup, kept open: a tool opens thousands of KFD
 * files, and a pread of the open file costs a quarter of an open, a read
 * and a close.  The file answers for its process only: once that exits,
 * reads fail with ESRCH, and a later process given the same pid gets a
 * fresh open. */
#define READERS 16
struct reader {
        pid_t pid;
        int fd; /* -1: none */
};

struct fakefs_devcg {
        unsigned int major;
        char *v1; /* the devices hierarchy's mount point, or NULL */
        char *v2; /* the cgroup2 mount point, or NULL */
        pthread_mutex_t lock;
        struct answer *v;
        size_t n, cap;
        struct reader readers[READERS];
        unsigned int next_reader; /* the slot a new reader takes */
};

/* The mount points of the cgroup2 file system and of the v1 devices
 * hierarchy (/proc/self/mountinfo: "... MOUNTPOINT ... - FSTYPE SOURCE OPTIONS"). */
static int find_mounts(struct fakefs_devcg *c, struct ctk_error **err)
{
        _cleanup_fclose_ FILE *f = fopen("/proc/self/mountinfo", "re");
        if (f == NULL)
                return ctk_error_errno(err, errno, "reading /proc/self/mountinfo");
        char line[4096];
        while (fgets(line, sizeof(line), f) != NULL) {
                char mnt[1024], fstype[64], opts[1024];
                const char *dash = strstr(line, " - ");
                if (dash == NULL || sscanf(line, "%*s %*s %*s %*s %1023s", mnt) != 1 ||
                    sscanf(dash + 3, "%63s %*s %1023s", fstype, opts) != 2)
                        continue;
                char **slot = NULL;
                if (strcmp(fstype, "cgroup2") == 0 && c->v2 == NULL)
                        slot = &c->v2;
                else if (strcmp(fstype, "cgroup") == 0 && c->v1 == NULL &&
                         (strstr(opts, ",devices") != NULL || strncmp(opts, "devices", 7) == 0))
                        slot = &c->v1;
                if (slot != NULL && (*slot = strdup(mnt)) == NULL)
                        return ctk_error_set(err, ENOMEM, "out of memory");
        }
        return 0;
}

int fakefs_devcg_new(unsigned int major, struct fakefs_devcg **out, struct ctk_error **err)
{
        struct fakefs_devcg *c = calloc(1, sizeof(*c));
        if (c == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        c->major = major;
        for (size_t i = 0; i < READERS; i++)
                c->readers[i].fd = -1;
        pthread_mutex_init(&c->lock, NULL);
        if (find_mounts(c, err) < 0) {
                fakefs_devcg_free(c);
                return -1;
        }
        *out = c;
        return 0;
}

void fakefs_devcg_free(struct fakefs_devcg *c)
{
        if (c == NULL)
                return;
        for (size_t i = 0; i < c->n; i++)
                free(c->v[i].key);
        for (size_t i = 0; i < READERS; i++)
                if (c->readers[i].fd >= 0)
                        close(c->readers[i].fd);
        free(c->v);
        free(c->v1);
        free(c->v2);
        pthread_mutex_destroy(&c->lock);
        free(c);
}

/* pid's /proc/PID/cgroup into text (size bytes at most), through its
 * reader's open file: the length read, or -1. */
static ssize_t cgroup_text(struct fakefs_devcg *c, pid_t pid, char *text, size_t size)
{
        pthread_mutex_lock(&c->lock);
        struct reader *r = NULL;
        for (size_t i = 0; i < READERS && r == NULL; i++)
                if (c->readers[i].fd >= 0 && c->readers[i].pid == pid)
                        r = &c->readers[i];
        ssize_t len = r != NULL ? pread(r->fd, text, size, 0) : -1;
        if (len < 0) { /* a new reader, or the process that had pid is gone */
                if (r == NULL)
                        r = &c->readers[c->next_reader++ % READERS];
                if (r->fd >= 0)
                        close(r->fd);
                char path[64];
                (void)snprintf(path, sizeof(path), "/proc/%ld/cgroup", (long)pid);
                r->pid = pid;
                r->fd = open(path, O_RDONLY | O_CLOEXEC);
                len = r->fd >= 0 ? pread(r->fd, text, size, 0) : -1;
        }
        pthread_mutex_unlock(&c->lock);
        return len;
}

/* pid's devices (v1) and unified (v2) cgroup paths from /proc/PID/cgroup. */
static int reader_cgroups(struct fakefs_devcg *c, pid_t pid, char **p1, char **p2)
{
        char text[8192];
        ssize_t len = cgroup_text(c, pid, text, sizeof(text) - 1);
        if (len < 0)
                return -ESRCH;
        if ((size_t)len == sizeof(text) - 1)
                return -EIO; /* (cgroup paths of 8 KiB: refused, not cut) */
        text[len] = '\0';
        char *save = NULL;
        for (char *line = strtok_r(text, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
                char *a = strchr(line, ':'), *b = a != NULL ? strchr(a + 1, ':') : NULL;
                if (b == NULL)
                        continue;
                *b = '\0';
                const char *ctrl = a + 1, *cg = b + 1;
                char **slot = NULL;
                if (ctrl[0] == '\0' && a == line + 1 && line[0] == '0' && c->v2 != NULL)
                        slot = p2;
                else if (c->v1 != NULL && (strcmp(ctrl, "devices") == 0 || strstr(ctrl, ",devices") != NULL ||
                                           strncmp(ctrl, "devices,", 8) == 0))
                        slot = p1;
                if (slot != NULL && *slot == NULL && asprintf(slot, "%s%s", slot == p1 ? c->v1 : c->v2, cg) < 0) {
                        *slot = NULL;
                        return -ENOMEM;
                }
        }
        return 0;
}

static ino_t ino_of(const char *dir)
{
        struct stat st;
        return dir != NULL && stat(dir, &st) == 0 ? st.st_ino : 0;
}

/* Forgets answers of another topology or of cgroups that went away. */
static void prune(struct fakefs_devcg *c, uint64_t generation)
{
        size_t k = 0;
        for (size_t i = 0; i < c->n; i++) {
                struct answer *a = &c->v[i];
                char *nl = strchr(a->key, '\n');
                *nl = '\0';
                bool live = a->generation == generation && ino_of(a->key[0] ? a->key : NULL) == a->ino1 &&
                            ino_of(nl[1] ? nl + 1 : NULL) == a->ino2;
                *nl = '\n';
                if (live)
                        c->v[k++] = *a;
                else
                        free(a->key);
        }
        c->n = k;
}

/* "/tmp/NN", the node of minor base + i (no stdio: a child of a threaded process) */
static void node_name(char node[8], unsigned int i)
{
        memcpy(node, "/tmp/", 5);
        node[5] = (char)('0' + i / 10);
        node[6] = (char)('0' + i % 10);
        node[7] = '\0';
}

/* The probe child: makes nodes of the block's numbers in a tmpfs of a
 * mount namespace of its own (nothing is left behind, whatever ends the
 * server), joins the cgroups and opens each node; writes a verdict per
 * minor to fd: 'a' allowed, 'd' denied, 'g' the cgroup is gone, 'e' error. */
static _Noreturn void probe_child(const char *const procs[2], unsigned int major, unsigned int base, int fd)
{
        char verdict[BLOCK], node[8];
        memset(verdict, 'x', sizeof(verdict));
        /* the nodes first: making them is the device cgroup's business too ('m') */
        bool ok = unshare(CLONE_NEWNS) == 0 && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 &&
                  mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NOEXEC, "size=16k,mode=0700") == 0;
        for (unsigned int i = 0; i < BLOCK; i++) {
                node_name(node, i);
                if (!ok || mknod(node, S_IFCHR | 0600, makedev(major, base + i)) < 0)
                        verdict[i] = 'e';
        }
        for (int k = 0; k < 2; k++) {
                if (procs[k] == NULL)
                        continue;
                int cg = open(procs[k], O_WRONLY | O_CLOEXEC);
                if (cg < 0 || write(cg, "0", 1) != 1) {
                        memset(verdict, 'g', sizeof(verdict));
                        break;
                }
                close(cg);
        }
        for (unsigned int i = 0; i < BLOCK; i++) {
                if (verdict[i] != 'x')
                        continue;
                node_name(node, i);
                int n = open(node, O_RDWR | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
                verdict[i] = n >= 0 || errno == ENXIO || errno == ENODEV ? 'a' : errno == EPERM ? 'd' : 'e';
                if (n >= 0)
                        close(n);
        }
        _exit(write(fd, verdict, sizeof(verdict)) == (ssize_t)sizeof(verdict) ? 0 : 1);
}

/* The probe of the block at base for the cgroups (v1 devices dir d1, v2
 * dir d2): fills verdict (see probe_child), 0 or -EIO. */
static int probe(const char *d1, const char *d2, unsigned int major, unsigned int base, char verdict[BLOCK])
{
        char procs1[PATH_MAX], procs2[PATH_MAX];
        (void)snprintf(procs1, sizeof(procs1), "%s/cgroup.procs", d1 != NULL ? d1 : "");
        (void)snprintf(procs2, sizeof(procs2), "%s/cgroup.procs", d2 != NULL ? d2 : "");
        const char *const procs[2] = {d1 != NULL ? procs1 : NULL, d2 != NULL ? procs2 : NULL};
        int p[2];
        if (pipe2(p, O_CLOEXEC) < 0)
                return -EIO;
        pid_t child = fork();
        if (child < 0) {
                close(p[0]);
                close(p[1]);
                return -EIO;
        }
        if (child == 0)
                probe_child(procs, major, base, p[1]);
        close(p[1]);
        struct pollfd pfd = {.fd = p[0], .events = POLLIN};
        int r;
        while ((r = poll(&pfd, 1, PROBE_TIMEOUT_MS)) < 0 && errno == EINTR)
                ;
        /* BLOCK bytes are less than PIPE_BUF: one write, one read */
        int rc = r == 1 && read(p[0], verdict, BLOCK) == BLOCK ? 0 : -EIO;
        if (r != 1)
                kill(child, SIGKILL);
        close(p[0]);
        while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
                ;
        return rc;
}

/* The answer for minor in *a, or -1 when it has none. */
static int answer_of(const struct answer *a, unsigned int minor)
{
        uint64_t bit = UINT64_C(1) << (minor - a->base);
        return (a->known & bit) ? (a->allowed & bit) != 0 : -1;
}

int fakefs_devcg_allowed(struct fakefs_devcg *c, pid_t pid, unsigned int minor, uint64_t generation)
{
        if (c->v1 == NULL && c->v2 == NULL)
                return 1;
        _cleanup_free_ char *d1 = NULL, *d2 = NULL, *key = NULL;
        int rc = reader_cgroups(c, pid, &d1, &d2);
        if (rc < 0)
                return rc;
        if (asprintf(&key, "%s\n%s", d1 != NULL ? d1 : "", d2 != NULL ? d2 : "") < 0) {
                key = NULL;
                return -ENOMEM;
        }
        ino_t i1 = ino_of(d1), i2 = ino_of(d2);
        unsigned int base = minor - minor % BLOCK;
        pthread_mutex_lock(&c->lock);
        for (size_t i = 0; i < c->n; i++) {
                const struct answer *a = &c->v[i];
                if (a->base == base && a->generation == generation && a->ino1 == i1 && a->ino2 == i2 &&
                    strcmp(a->key, key) == 0 && (rc = answer_of(a, minor)) >= 0) {
                        pthread_mutex_unlock(&c->lock);
                        return rc;
                }
        }
        pthread_mutex_unlock(&c->lock);
        char verdict[BLOCK];
        if ((rc = probe(d1, d2, c->major, base, verdict)) < 0)
                return rc;
        struct answer fresh = {.ino1 = i1, .ino2 = i2, .base = base, .generation = generation};
        for (unsigned int i = 0; i < BLOCK; i++) {
                if (verdict[i] == 'a' || verdict[i] == 'd')
                        fresh.known |= UINT64_C(1) << i;
                if (verdict[i] == 'a')
                        fresh.allowed |= UINT64_C(1) << i;
        }
        char mine = verdict[minor - base];
        if (mine != 'a' && mine != 'd')
                return mine == 'g' ? -ESRCH : -EIO;
        pthread_mutex_lock(&c->lock);
        prune(c, generation);
        if (c->n == c->cap) {
                size_t cap = c->cap ? 2 * c->cap : 64;
                struct answer *nv = realloc(c->v, cap * sizeof(*nv));
                if (nv == NULL) {
                        pthread_mutex_unlock(&c->lock);
                        return mine == 'a';
                }
                c->v = nv;
                c->cap = cap;
        }
        fresh.key = ctk_steal(&key);
        c->v[c->n++] = fresh;
        pthread_mutex_unlock(&c->lock);
        return mine == 'a';
}
