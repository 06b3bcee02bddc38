/* The least a shim can cost (sim/bench.sh): exec the next program, nothing else. */
#include <unistd.h>

int main(int argc, char **argv)
{
        (void)argc;
        execv(argv[1], argv + 1);
        return 127;
}
