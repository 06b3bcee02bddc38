/* numa-probe: tries the NUMA memory-policy syscalls (and two that a container
 * profile must keep denying) and prints one line per call:
 *
 *   get_mempolicy: ok
 *   set_mempolicy: EPERM
 *   mount: error EFAULT
 *
 * Usage: numa-probe [CALL...]   (default: every call below, in this order)
 *
 * The arguments are harmless: MPOL_DEFAULT policies on a page of our own,
 * unshare(CLONE_NEWNS) (only this process), and mount with NULL pointers.
 * Static, for test images; exits 0 unless a CALL is unknown (2). */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_set_mempolicy_home_node
#define SYS_set_mempolicy_home_node 450 /* the same number on every architecture */
#endif

#define MPOL_DEFAULT 0

static void *page;
static long pagesize;

static long call_get_mempolicy(void)
{
        int mode = -1;
        return syscall(SYS_get_mempolicy, &mode, NULL, 0UL, NULL, 0UL);
}

static long call_set_mempolicy(void)
{
        return syscall(SYS_set_mempolicy, MPOL_DEFAULT, NULL, 0UL);
}

static long call_mbind(void)
{
        return syscall(SYS_mbind, page, (unsigned long)pagesize, MPOL_DEFAULT, NULL, 0UL, 0U);
}

static long call_set_mempolicy_home_node(void)
{
        /* Our page has no policy of its own: ok or an errno other than EPERM when the call
         * is allowed, EPERM when seccomp denies it. */
        return syscall(SYS_set_mempolicy_home_node, (unsigned long)page, (unsigned long)pagesize, 0UL, 0UL);
}

static long call_unshare(void)
{
        return syscall(SYS_unshare, CLONE_NEWNS);
}

static long call_mount(void)
{
        return syscall(SYS_mount, NULL, NULL, NULL, 0UL, NULL);
}

static const struct {
        const char *name;
        long (*call)(void);
} calls[] = {
    {"get_mempolicy", call_get_mempolicy},
    {"set_mempolicy", call_set_mempolicy},
    {"mbind", call_mbind},
    {"set_mempolicy_home_node", call_set_mempolicy_home_node},
    {"unshare", call_unshare},
    {"mount", call_mount},
};
#define NCALLS (sizeof(calls) / sizeof(calls[0]))

static void probe(size_t i)
{
        errno = 0;
        long r = calls[i].call();
        if (r >= 0)
                printf("%s: ok\n", calls[i].name);
        else if (errno == EPERM)
                printf("%s: EPERM\n", calls[i].name);
        else
                printf("%s: error %s\n", calls[i].name, strerrorname_np(errno) ? strerrorname_np(errno) : "?");
        (void)fflush(stdout);
}

int main(int argc, char **argv)
{
        pagesize = sysconf(_SC_PAGESIZE);
        page = mmap(NULL, (size_t)pagesize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (page == MAP_FAILED) {
                perror("numa-probe: mmap");
                return 1;
        }
        if (argc < 2) {
                for (size_t i = 0; i < NCALLS; i++)
                        probe(i);
                return 0;
        }
        for (int a = 1; a < argc; a++) {
                size_t i = 0;
                while (i < NCALLS && strcmp(calls[i].name, argv[a]) != 0)
                        i++;
                if (i == NCALLS) {
                        fprintf(stderr, "numa-probe: unknown call '%s'\n", argv[a]);
                        return 2;
                }
                probe(i);
        }
        return 0;
}
