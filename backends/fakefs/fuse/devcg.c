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

struct answer {
        char *key;        /* "v1 path\nv2 path" */
        ino_t ino1, ino2; /* of the cgroup directories (0: none) */
        unsigned int minor;
        uint64_t generation;
        bool allowed;
};

struct fakefs_devcg {
        unsigned int major;
        char *v1; /* the devices hierarchy's mount point, or NULL */
        char *v2; /* the cgroup2 mount point, or NULL */
        pthread_mutex_t lock;
        struct answer *v;
        size_t n, cap;
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
        free(c->v);
        free(c->v1);
        free(c->v2);
        pthread_mutex_destroy(&c->lock);
        free(c);
}

/* pid's devices (v1) and unified (v2) cgroup paths from /proc/PID/cgroup. */
static int reader_cgroups(const struct fakefs_devcg *c, pid_t pid, char **p1, char **p2)
{
        char path[64], line[4096];
        (void)snprintf(path, sizeof(path), "/proc/%ld/cgroup", (long)pid);
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        if (f == NULL)
                return -ESRCH;
        while (fgets(line, sizeof(line), f) != NULL) {
                line[strcspn(line, "\n")] = '\0';
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

/* The probe: joins the cgroups (v1 devices dir d1, v2 dir d2) and opens a
 * node of the numbers it makes in a tmpfs of a mount namespace of its own
 * (nothing is left behind, whatever ends the server). */
static int probe(const char *d1, const char *d2, dev_t rdev)
{
        char procs1[PATH_MAX], procs2[PATH_MAX];
        (void)snprintf(procs1, sizeof(procs1), "%s/cgroup.procs", d1 != NULL ? d1 : "");
        (void)snprintf(procs2, sizeof(procs2), "%s/cgroup.procs", d2 != NULL ? d2 : "");
        int p[2];
        if (pipe2(p, O_CLOEXEC) < 0)
                return -EIO;
        pid_t child = fork();
        if (child < 0) {
                close(p[0]);
                close(p[1]);
                return -EIO;
        }
        if (child == 0) {
                char verdict = 'x';
                /* the node first: making it is the device cgroup's business too ('m') */
                if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
                    mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NOEXEC, "size=16k,mode=0700") < 0 ||
                    mknod("/tmp/probe", S_IFCHR | 0600, rdev) < 0)
                        verdict = 'e';
                const char *procs[2] = {d1 != NULL ? procs1 : NULL, d2 != NULL ? procs2 : NULL};
                for (int i = 0; verdict == 'x' && i < 2; i++) {
                        if (procs[i] == NULL)
                                continue;
                        int fd = open(procs[i], O_WRONLY | O_CLOEXEC);
                        if (fd < 0 || write(fd, "0", 1) != 1) {
                                verdict = 'g'; /* the cgroup is gone */
                                break;
                        }
                        close(fd);
                }
                if (verdict == 'x') {
                        int fd = open("/tmp/probe", O_RDWR | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
                        verdict = fd >= 0 || errno == ENXIO || errno == ENODEV ? 'a' : errno == EPERM ? 'd' : 'e';
                        if (fd >= 0)
                                close(fd);
                }
                if (write(p[1], &verdict, 1) != 1)
                        _exit(1);
                _exit(0);
        }
        close(p[1]);
        struct pollfd pfd = {.fd = p[0], .events = POLLIN};
        char verdict = 'e';
        int r;
        while ((r = poll(&pfd, 1, PROBE_TIMEOUT_MS)) < 0 && errno == EINTR)
                ;
        if (r == 1 && read(p[0], &verdict, 1) != 1)
                verdict = 'e';
        if (r != 1)
                kill(child, SIGKILL);
        close(p[0]);
        while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
                ;
        return verdict == 'a' ? 1 : verdict == 'd' ? 0 : verdict == 'g' ? -ESRCH : -EIO;
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
        pthread_mutex_lock(&c->lock);
        for (size_t i = 0; i < c->n; i++) {
                const struct answer *a = &c->v[i];
                if (a->minor == minor && a->generation == generation && a->ino1 == i1 && a->ino2 == i2 &&
                    strcmp(a->key, key) == 0) {
                        bool allowed = a->allowed;
                        pthread_mutex_unlock(&c->lock);
                        return allowed;
                }
        }
        pthread_mutex_unlock(&c->lock);
        rc = probe(d1, d2, makedev(c->major, minor));
        if (rc < 0)
                return rc;
        pthread_mutex_lock(&c->lock);
        prune(c, generation);
        if (c->n == c->cap) {
                size_t cap = c->cap ? 2 * c->cap : 64;
                struct answer *nv = realloc(c->v, cap * sizeof(*nv));
                if (nv == NULL) {
                        pthread_mutex_unlock(&c->lock);
                        return rc;
                }
                c->v = nv;
                c->cap = cap;
        }
        c->v[c->n++] = (struct answer){ctk_steal(&key), i1, i2, minor, generation, rc == 1};
        pthread_mutex_unlock(&c->lock);
        return rc;
}
