/* cpu-time OUT CMD...: runs CMD as a child and writes "WALL_US CPU_US
 * MAXRSS_KIB" to OUT (CPU: the child's user + system time, and its peak
 * resident memory, from wait4); exits with the child's status
 * (sim/bench.sh, sim/bench-counts.sh). */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
        struct timespec t0, t1;
        struct rusage ru;
        int st = 0;
        if (argc < 3)
                return 126;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        pid_t pid = fork();
        if (pid == 0) {
                execv(argv[2], argv + 2);
                _exit(127);
        }
        if (pid < 0 || wait4(pid, &st, 0, &ru) < 0)
                return 126;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        FILE *f = fopen(argv[1], "w");
        if (f == NULL)
                return 126;
        fprintf(f, "%ld %ld %ld\n", (t1.tv_sec - t0.tv_sec) * 1000000L + (t1.tv_nsec - t0.tv_nsec) / 1000,
                (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000L + ru.ru_utime.tv_usec + ru.ru_stime.tv_usec,
                ru.ru_maxrss);
        return fclose(f) == 0 && WIFEXITED(st) ? WEXITSTATUS(st) : 125;
}
