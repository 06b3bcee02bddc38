/* Mounting, detaching and running the FUSE server. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/base/base.h"
#include "devcg.h"
#include "ops.h"
#include "server.h"

static int write_pidfile(const char *path, struct ctk_error **err)
{
        _cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0)
                return ctk_error_errno(err, errno, "writing pid file %s", CTK_CUT(path));
        char buf[32];
        int n = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
        if (write(fd, buf, (size_t)n) != n)
                return ctk_error_errno(err, errno, "writing pid file %s", CTK_CUT(path));
        return 0;
}

/* Creates the fuse instance and mounts it. */
static int mount_fs(struct fakefs_fs *data, const char *mountpoint, struct fuse **out, struct ctk_error **err)
{
        struct stat st;
        if (stat(mountpoint, &st) < 0)
                return ctk_error_errno(err, errno, "mount point %s", CTK_CUT(mountpoint));
        if (!S_ISDIR(st.st_mode))
                return ctk_error_set(err, ENOTDIR, "mount point %s is not a directory", CTK_CUT(mountpoint));
        struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
        if (fuse_opt_add_arg(&args, "amd-ctk-fakefs") < 0 || fuse_opt_add_arg(&args, "-o") < 0 ||
            fuse_opt_add_arg(&args, "allow_other,default_permissions,fsname=amd-ctk-fakefs,subtype=amd-ctk-fakefs") <
                0) {
                fuse_opt_free_args(&args);
                return ctk_error_set(err, ENOMEM, "out of memory");
        }
        struct fuse *f = fuse_new(&args, &fakefs_fuse_ops, sizeof(fakefs_fuse_ops), data);
        fuse_opt_free_args(&args);
        if (f == NULL)
                return ctk_error_set(err, EIO, "cannot set up the FUSE file system");
        if (fuse_mount(f, mountpoint) != 0) {
                fuse_destroy(f);
                return ctk_error_set(err, EIO,
                                     "cannot mount on %s (is /dev/fuse usable, and are we root or is user_allow_other "
                                     "set in /etc/fuse.conf?)",
                                     CTK_CUT(mountpoint));
        }
        *out = f;
        return 0;
}

static int run_loop(struct fuse *f)
{
        struct fuse_session *se = fuse_get_session(f);
        /* libfuse leaves ignored signals alone, and a shell starts background
         * jobs with SIGINT ignored: the server must stop on these anyway. */
        (void)signal(SIGINT, SIG_DFL);
        (void)signal(SIGTERM, SIG_DFL);
        (void)signal(SIGHUP, SIG_DFL);
        if (fuse_set_signal_handlers(se) != 0)
                return -1;
        struct fuse_loop_config *cfg = fuse_loop_cfg_create();
        int rc = -1;
        if (cfg != NULL) {
                fuse_loop_cfg_set_clone_fd(cfg, 0);
                fuse_loop_cfg_set_max_threads(cfg, 32);
                fuse_loop_cfg_set_idle_threads(cfg, 8);
                rc = fuse_loop_mt(f, cfg);
                fuse_loop_cfg_destroy(cfg);
        }
        fuse_remove_signal_handlers(se);
        fuse_unmount(f);
        fuse_destroy(f);
        return rc < 0 ? -1 : 0; /* > 0: ended by that signal, a clean stop */
}

static void detach_stdio(void)
{
        int fd = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (fd < 0)
                return;
        dup2(fd, STDIN_FILENO);
        dup2(fd, STDOUT_FILENO);
        dup2(fd, STDERR_FILENO);
        if (fd > STDERR_FILENO)
                close(fd);
}

/* Parent side of the detach: waits for the child to report. */
static int wait_child(pid_t pid, int rfd, struct ctk_error **err)
{
        char msg[1024];
        size_t n = 0;
        for (;;) {
                ssize_t r = read(rfd, msg + n, sizeof(msg) - 1 - n);
                if (r < 0 && errno == EINTR)
                        continue;
                if (r <= 0 || n + (size_t)r >= sizeof(msg) - 1) {
                        if (r > 0)
                                n += (size_t)r;
                        break;
                }
                n += (size_t)r;
        }
        msg[n] = '\0';
        if (n == 1 && msg[0] == '\n')
                return 0; /* mounted */
        int status;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
        return ctk_error_set_msg(err, EIO, n > 0 ? msg : "the server exited before the mount was up");
}

/* The device cgroup checker of the host's DRM major (in the serving process). */
static int devcg_start(struct fakefs_fs *data, struct ctk_error **err)
{
        if (fakefs_devcg_new(ctk_fakefs_host_profile(data->host)->dri_major, &data->devcg, err) < 0)
                return ctk_error_prefix(err, "amdkfd's device cgroup check");
        return 0;
}

int fakefs_fuse_serve(struct ctk_fakefs_host *host, struct ctk_fakefs_faults *faults,
                      const struct fakefs_mount_opts *opts, struct ctk_error **err)
{
        struct fakefs_fs data = {.host = host, .faults = faults, .start = time(NULL), .debug = opts->debug};
        struct fuse *f = NULL;
        if (opts->foreground) {
                if (devcg_start(&data, err) < 0)
                        return -1;
                if (mount_fs(&data, opts->mountpoint, &f, err) < 0) {
                        fakefs_devcg_free(data.devcg);
                        return -1;
                }
                if (opts->pidfile != NULL && write_pidfile(opts->pidfile, err) < 0) {
                        fuse_unmount(f);
                        fuse_destroy(f);
                        fakefs_devcg_free(data.devcg);
                        return -1;
                }
                int rc = run_loop(f);
                fakefs_devcg_free(data.devcg);
                return rc < 0 ? ctk_error_set(err, EIO, "the FUSE session ended with an error") : 0;
        }
        int p[2];
        if (pipe2(p, O_CLOEXEC) < 0)
                return ctk_error_errno(err, errno, "pipe");
        pid_t pid = fork();
        if (pid < 0) {
                close(p[0]);
                close(p[1]);
                return ctk_error_errno(err, errno, "fork");
        }
        if (pid > 0) {
                close(p[1]);
                int rc = wait_child(pid, p[0], err);
                close(p[0]);
                return rc;
        }
        close(p[0]);
        setsid();
        struct ctk_error *cerr = NULL;
        if (devcg_start(&data, &cerr) < 0 || mount_fs(&data, opts->mountpoint, &f, &cerr) < 0 ||
            (opts->pidfile != NULL && write_pidfile(opts->pidfile, &cerr) < 0)) {
                if (f != NULL) {
                        fuse_unmount(f);
                        fuse_destroy(f);
                }
                fakefs_devcg_free(data.devcg);
                if (write(p[1], cerr->msg, strlen(cerr->msg)) < 0)
                        _exit(1);
                _exit(1);
        }
        if (chdir("/") < 0)
                _exit(1);
        detach_stdio();
        if (write(p[1], "\n", 1) != 1)
                _exit(1);
        close(p[1]);
        int rc = run_loop(f);
        fakefs_devcg_free(data.devcg);
        _exit(rc < 0 ? 1 : 0);
}
