/* rocm-smi stand-in for the simulation's test images.
 *
 * The real rocm-smi talks to the GPU driver; inside a simulated container
 * there is no driver, only the device nodes the runtime injected.  This
 * program prints exactly what it can see: every character device in /dev/dri
 * (card*, renderD*) and /dev/kfd, with major:minor, mode and owner, and it
 * says plainly that it is a stand-in.  Static, libc only. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#define KFD   "/dev/kfd"
#define TITLE "=========== ROCm SMI stand-in: the GPU device nodes this container sees ==========="
#define RULE  "=================================================================================="

struct node {
        char *path;
        struct stat st;
};

struct nodes {
        struct node *v;
        size_t n;
};

/* "renderD128" -> prefix "renderD", number 128; names without a number sort
 * by name.  Natural order: card2 before card10. */
static int split_name(const char *name, size_t *prefix_len, unsigned long *num)
{
        size_t len = strlen(name), i = len;
        while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9')
                i--;
        *prefix_len = i;
        if (i == len || len - i > 9)
                return -1;
        *num = strtoul(name + i, NULL, 10);
        return 0;
}

static int node_cmp(const void *a, const void *b)
{
        const char *x = ((const struct node *)a)->path, *y = ((const struct node *)b)->path;
        if (strcmp(x, KFD) == 0 || strcmp(y, KFD) == 0) /* /dev/kfd first */
                return strcmp(y, KFD) == 0 ? (strcmp(x, KFD) != 0) : -1;
        size_t px, py;
        unsigned long nx, ny;
        if (split_name(x, &px, &nx) == 0 && split_name(y, &py, &ny) == 0 && px == py && strncmp(x, y, px) == 0)
                return nx < ny ? -1 : nx > ny;
        return strcmp(x, y);
}

static int add_node(struct nodes *ns, const char *path)
{
        struct stat st;
        if (stat(path, &st) < 0 || !S_ISCHR(st.st_mode))
                return 0;
        struct node *v = realloc(ns->v, (ns->n + 1) * sizeof(*v));
        if (v == NULL)
                return -1;
        ns->v = v;
        ns->v[ns->n].path = strdup(path);
        if (ns->v[ns->n].path == NULL)
                return -1;
        ns->v[ns->n++].st = st;
        return 0;
}

/* Adds the character devices directly in /dev/dri (not by-path/). */
static int scan_dri(struct nodes *ns, const char *dir)
{
        DIR *d = opendir(dir);
        if (d == NULL)
                return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
        struct dirent *e;
        int rc = 0;
        while (rc == 0 && (e = readdir(d)) != NULL) {
                if (e->d_name[0] == '.')
                        continue;
                char *path;
                if (asprintf(&path, "%s/%s", dir, e->d_name) < 0) {
                        rc = -1;
                        break;
                }
                rc = add_node(ns, path);
                free(path);
        }
        closedir(d);
        return rc;
}

static void mode_string(mode_t m, char out[11])
{
        const char *rwx = "rwxrwxrwx";
        out[0] = S_ISCHR(m) ? 'c' : '?';
        for (int i = 0; i < 9; i++) {
                out[i + 1] = '-';
                if ((m & (1u << (8 - i))) != 0)
                        out[i + 1] = rwx[i];
        }
        out[10] = '\0';
}

static size_t count_prefix(const struct nodes *ns, const char *prefix)
{
        size_t c = 0;
        for (size_t i = 0; i < ns->n; i++)
                if (strncmp(ns->v[i].path, prefix, strlen(prefix)) == 0)
                        c++;
        return c;
}

static void usage(FILE *f)
{
        fputs("usage: rocm-smi [-h]\n"
              "Stand-in for AMD's rocm-smi in amd-container-toolkit's simulation images.\n"
              "It lists the GPU device nodes visible in this container (/dev/kfd,\n"
              "/dev/dri/card*, /dev/dri/renderD*) with their device numbers and owners.\n",
              f);
}

int main(int argc, char **argv)
{
        if (argc > 1) {
                if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
                        usage(stdout);
                        return 0;
                }
                fprintf(stderr,
                        "rocm-smi (stand-in): option '%s' is not supported; this stand-in only lists device nodes\n",
                        argv[1]);
                return 2;
        }
        struct nodes ns = {0};
        if (add_node(&ns, KFD) < 0 || scan_dri(&ns, "/dev/dri") < 0) {
                fprintf(stderr, "rocm-smi (stand-in): cannot list /dev/dri: %s\n", strerror(errno));
                return 1;
        }
        if (ns.n > 1)
                qsort(ns.v, ns.n, sizeof(*ns.v), node_cmp);

        printf("%s\n", TITLE);
        if (ns.n == 0) {
                printf("No GPU device nodes visible (no /dev/kfd, no /dev/dri/card*, no /dev/dri/renderD*)\n");
        } else {
                printf("%-22s %-12s %-11s %-5s %s\n", "Device Node", "Major:Minor", "Mode", "UID", "GID");
                for (size_t i = 0; i < ns.n; i++) {
                        char mode[11];
                        mode_string(ns.v[i].st.st_mode, mode);
                        char mm[32];
                        (void)snprintf(mm, sizeof(mm), "%u:%u", major(ns.v[i].st.st_rdev), minor(ns.v[i].st.st_rdev));
                        printf("%-22s %-12s %-11s %-5u %u\n", ns.v[i].path, mm, mode, (unsigned)ns.v[i].st.st_uid,
                               (unsigned)ns.v[i].st.st_gid);
                }
        }
        printf("GPU render nodes: %zu   card nodes: %zu   /dev/kfd: %s\n%s\n", count_prefix(&ns, "/dev/dri/renderD"),
               count_prefix(&ns, "/dev/dri/card"), count_prefix(&ns, KFD) > 0 ? "yes" : "no", RULE);
        for (size_t i = 0; i < ns.n; i++)
                free(ns.v[i].path);
        free(ns.v);
        return 0;
}
