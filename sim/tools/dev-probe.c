/* dev-probe: proves device access by what the kernel answers, inside a
 * container.  It opens every device node it is given and every node of a
 * directory of the host's nodes, and prints one line per node:
 *
 *   /dev/dri/card3 226:3 ENXIO allowed
 *   /host-dev/dri/card2 226:2 EPERM denied
 *   dev-probe: 3 given allowed, 6 others denied
 *
 * Usage: dev-probe [--host DIR]... [PATH...]
 *
 *   PATH     a node the container was given, or a directory whose character
 *            and block devices (and those of its subdirectories) it was
 *            given; default /dev/dri and /dev/kfd.  A PATH that does not
 *            exist gives no node.
 *   --host   a directory of the host's nodes (a materialized tree, or nodes
 *            made with mknod, bind-mounted in from a file system that allows
 *            device files): each node whose numbers are not among the given
 *            ones is an "other" node (one also given by its path is probed
 *            once, as given).
 *
 * A given node must open, or fail with ENXIO (the device cgroup or eBPF
 * program let the open through and no driver answers: a simulated GPU's
 * node); an other node must fail with EPERM (the device rules refused it,
 * which the kernel checks before it looks for a driver).  Rules match
 * numbers, not paths, so a host node with a given node's numbers is
 * checked as given.  Anything else is a line ending in "WRONG (...)".
 * Exits 0 when no line is wrong, 1 otherwise, 2 on a usage error.  Static,
 * for test images. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define MAX_NODES 4096

struct node {
        char path[512];
        dev_t rdev;
        bool block;
};

struct list {
        struct node v[MAX_NODES];
        size_t n;
};

static struct list given, host;

static void add(struct list *l, const char *path, const struct stat *st)
{
        if (l->n == MAX_NODES) {
                fprintf(stderr, "dev-probe: more than %d nodes\n", MAX_NODES);
                exit(2);
        }
        struct node *n = &l->v[l->n++];
        (void)snprintf(n->path, sizeof(n->path), "%s", path);
        n->rdev = st->st_rdev;
        n->block = S_ISBLK(st->st_mode);
}

/* path's device nodes (a node, or a directory walked to depth 3) into l */
static void collect(struct list *l, const char *path, int depth)
{
        struct stat st;
        if (lstat(path, &st) < 0)
                return;
        if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
                add(l, path, &st);
                return;
        }
        if (!S_ISDIR(st.st_mode) || depth > 3)
                return;
        struct dirent **names = NULL;
        int n = scandir(path, &names, NULL, alphasort);
        for (int i = 0; i < n; i++) {
                if (strcmp(names[i]->d_name, ".") != 0 && strcmp(names[i]->d_name, "..") != 0) {
                        char sub[512];
                        if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", path, names[i]->d_name) < sizeof(sub))
                                collect(l, sub, depth + 1);
                }
                free(names[i]);
        }
        free(names);
}

static bool is_given_path(const struct node *n)
{
        for (size_t i = 0; i < given.n; i++)
                if (strcmp(given.v[i].path, n->path) == 0)
                        return true;
        return false;
}

static bool is_given(const struct node *n)
{
        for (size_t i = 0; i < given.n; i++)
                if (given.v[i].rdev == n->rdev && given.v[i].block == n->block)
                        return true;
        return false;
}

static const char *errno_name(int e)
{
        switch (e) {
        case 0:
                return "opened";
        case ENXIO:
                return "ENXIO";
        case EPERM:
                return "EPERM";
        case EACCES:
                return "EACCES";
        case ENODEV:
                return "ENODEV";
        case ENOENT:
                return "ENOENT";
        case EBUSY:
                return "EBUSY";
        case EINVAL:
                return "EINVAL";
        default:
                return strerror(e);
        }
}

/* opens n read-write, prints its line; 1 when the answer is not the one expected */
static int probe(const struct node *n, bool want_allowed)
{
        int fd = open(n->path, O_RDWR | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        int e = fd < 0 ? errno : 0;
        if (fd >= 0)
                close(fd);
        bool allowed = e == 0 || e == ENXIO;
        bool denied = e == EPERM;
        bool right = want_allowed ? allowed : denied;
        printf("%s %u:%u %s %s%s\n", n->path, major(n->rdev), minor(n->rdev), errno_name(e),
               allowed  ? "allowed"
               : denied ? "denied"
                        : "neither",
               right          ? ""
               : want_allowed ? " WRONG (a given node must open or fail with ENXIO)"
                              : " WRONG (an other node must fail with EPERM)");
        return right ? 0 : 1;
}

int main(int argc, char **argv)
{
        const char *hosts[64];
        size_t nhosts = 0;
        int npaths = 0;
        for (int i = 1; i < argc; i++) {
                if (strcmp(argv[i], "--host") == 0) {
                        if (i + 1 >= argc || nhosts == sizeof(hosts) / sizeof(hosts[0])) {
                                fputs("usage: dev-probe [--host DIR]... [PATH...]\n", stderr);
                                return 2;
                        }
                        hosts[nhosts++] = argv[++i];
                } else if (argv[i][0] == '-') {
                        fprintf(stderr, "dev-probe: unknown option %s\nusage: dev-probe [--host DIR]... [PATH...]\n",
                                argv[i]);
                        return 2;
                } else {
                        collect(&given, argv[i], 0);
                        npaths++;
                }
        }
        if (npaths == 0) {
                collect(&given, "/dev/dri", 0);
                collect(&given, "/dev/kfd", 0);
        }
        for (size_t i = 0; i < nhosts; i++)
                collect(&host, hosts[i], 0);
        int wrong = 0;
        size_t nallowed = 0, ndenied = 0;
        for (size_t i = 0; i < given.n; i++) {
                wrong += probe(&given.v[i], true);
                nallowed++;
        }
        for (size_t i = 0; i < host.n; i++) {
                if (is_given_path(&host.v[i]))
                        continue; /* probed above */
                bool g = is_given(&host.v[i]);
                wrong += probe(&host.v[i], g);
                if (!g)
                        ndenied++;
        }
        if (wrong > 0)
                printf("dev-probe: %d WRONG\n", wrong);
        else
                printf("dev-probe: %zu given allowed, %zu others denied\n", nallowed, ndenied);
        return fflush(stdout) == 0 && wrong == 0 ? 0 : 1;
}
