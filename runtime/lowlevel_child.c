#include "lowlevel_child.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lowlevel.h"

extern char **environ;

int rt_lowlevel_spawn(const char *runtime, char *const args[], int n, bool quiet, pid_t *child, struct ctk_error **err)
{
        char **argv = rt_lowlevel_argv(runtime, args, n);
        if (argv == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        posix_spawn_file_actions_t fa;
        int e = posix_spawn_file_actions_init(&fa);
        if (e == 0 && quiet)
                e = posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
        if (e == 0 && quiet)
                e = posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
        /* glibc's posix_spawn shares the memory until the exec (no copy of
         * the page tables) and reports a failed exec as its result. */
        if (e == 0)
                e = posix_spawn(child, runtime, &fa, NULL, argv, environ);
        posix_spawn_file_actions_destroy(&fa);
        free(argv);
        return e == 0 ? 0 : ctk_error_errno(err, e, "cannot execute %s", CTK_CUT(runtime));
}

int rt_lowlevel_wait(pid_t child)
{
        int status;
        while (waitpid(child, &status, 0) < 0)
                if (errno != EINTR)
                        return 1;
        if (WIFEXITED(status))
                return WEXITSTATUS(status);
        return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
}
