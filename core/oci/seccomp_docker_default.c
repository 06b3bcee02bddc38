/* Docker's default seccomp profile, built as a Docker-format JSON document.
 *
 * The rules below are the facts of Docker's default profile (moby
 * profiles/seccomp v0.2.3, the default of Docker 28/29): which syscalls every
 * container may use, which ones only some architectures, capabilities or
 * kernels get, and the argument filters for socket, personality and clone.
 * `amd-ctk seccomp profile` prints this document with the NUMA rule added. */
#include "seccomp_docker_default.h"

#include <stdbool.h>
#include <stdint.h>

#include "core/base/base.h"
#include "core/json/json.h"

#define ALLOW      "SCMP_ACT_ALLOW"
#define NAMES(...) ((const char *const[]){__VA_ARGS__, NULL})

struct filter {
        const char *const *caps;   /* capabilities, e.g. "CAP_SYS_ADMIN" */
        const char *const *arches; /* Go architecture names, e.g. "amd64" */
        const char *min_kernel;    /* "4.8" */
};

struct arg_cond {
        unsigned index;
        uint64_t value;
        const char *op;
};

struct rule {
        const char *const *names;
        const char *action;
        int errno_ret;       /* 0: none */
        struct arg_cond arg; /* used when arg.op != NULL (the profile needs at most one) */
        const char *comment;
        struct filter includes, excludes;
};

/* Allowed to every container. */
/* clang-format off */
static const char *const always_allowed[] = {
        "accept", "accept4", "access", "adjtimex", "alarm", "bind", "brk", "cachestat", "capget", "capset", "chdir",
        "chmod", "chown", "chown32", "clock_adjtime", "clock_adjtime64", "clock_getres", "clock_getres_time64",
        "clock_gettime", "clock_gettime64", "clock_nanosleep", "clock_nanosleep_time64", "close", "close_range",
        "connect", "copy_file_range", "creat", "dup", "dup2", "dup3", "epoll_create", "epoll_create1", "epoll_ctl",
        "epoll_ctl_old", "epoll_pwait", "epoll_pwait2", "epoll_wait", "epoll_wait_old", "eventfd", "eventfd2",
        "execve", "execveat", "exit", "exit_group", "faccessat", "faccessat2", "fadvise64", "fadvise64_64",
        "fallocate", "fanotify_mark", "fchdir", "fchmod", "fchmodat", "fchmodat2", "fchown", "fchown32", "fchownat",
        "fcntl", "fcntl64", "fdatasync", "fgetxattr", "flistxattr", "flock", "fork", "fremovexattr", "fsetxattr",
        "fstat", "fstat64", "fstatat64", "fstatfs", "fstatfs64", "fsync", "ftruncate", "ftruncate64", "futex",
        "futex_requeue", "futex_time64", "futex_wait", "futex_waitv", "futex_wake", "futimesat", "getcpu", "getcwd",
        "getdents", "getdents64", "getegid", "getegid32", "geteuid", "geteuid32", "getgid", "getgid32", "getgroups",
        "getgroups32", "getitimer", "getpeername", "getpgid", "getpgrp", "getpid", "getppid", "getpriority",
        "getrandom", "getresgid", "getresgid32", "getresuid", "getresuid32", "getrlimit", "get_robust_list",
        "getrusage", "getsid", "getsockname", "getsockopt", "get_thread_area", "gettid", "gettimeofday", "getuid",
        "getuid32", "getxattr", "getxattrat", "inotify_add_watch", "inotify_init", "inotify_init1",
        "inotify_rm_watch", "io_cancel", "ioctl", "io_destroy", "io_getevents", "io_pgetevents",
        "io_pgetevents_time64", "ioprio_get", "ioprio_set", "io_setup", "io_submit", "ipc", "kill",
        "landlock_add_rule", "landlock_create_ruleset", "landlock_restrict_self", "lchown", "lchown32", "lgetxattr",
        "link", "linkat", "listen", "listmount", "listxattr", "listxattrat", "llistxattr", "_llseek", "lremovexattr",
        "lseek", "lsetxattr", "lstat", "lstat64", "madvise", "map_shadow_stack", "membarrier", "memfd_create",
        "memfd_secret", "mincore", "mkdir", "mkdirat", "mknod", "mknodat", "mlock", "mlock2", "mlockall", "mmap",
        "mmap2", "mprotect", "mq_getsetattr", "mq_notify", "mq_open", "mq_timedreceive", "mq_timedreceive_time64",
        "mq_timedsend", "mq_timedsend_time64", "mq_unlink", "mremap", "mseal", "msgctl", "msgget", "msgrcv", "msgsnd",
        "msync", "munlock", "munlockall", "munmap", "name_to_handle_at", "nanosleep", "newfstatat", "_newselect",
        "open", "openat", "openat2", "pause", "pidfd_open", "pidfd_send_signal", "pipe", "pipe2", "pkey_alloc",
        "pkey_free", "pkey_mprotect", "poll", "ppoll", "ppoll_time64", "prctl", "pread64", "preadv", "preadv2",
        "prlimit64", "process_mrelease", "pselect6", "pselect6_time64", "pwrite64", "pwritev", "pwritev2", "read",
        "readahead", "readlink", "readlinkat", "readv", "recv", "recvfrom", "recvmmsg", "recvmmsg_time64", "recvmsg",
        "remap_file_pages", "removexattr", "removexattrat", "rename", "renameat", "renameat2", "restart_syscall",
        "riscv_hwprobe", "rmdir", "rseq", "rt_sigaction", "rt_sigpending", "rt_sigprocmask", "rt_sigqueueinfo",
        "rt_sigreturn", "rt_sigsuspend", "rt_sigtimedwait", "rt_sigtimedwait_time64", "rt_tgsigqueueinfo",
        "sched_getaffinity", "sched_getattr", "sched_getparam", "sched_get_priority_max", "sched_get_priority_min",
        "sched_getscheduler", "sched_rr_get_interval", "sched_rr_get_interval_time64", "sched_setaffinity",
        "sched_setattr", "sched_setparam", "sched_setscheduler", "sched_yield", "seccomp", "select", "semctl",
        "semget", "semop", "semtimedop", "semtimedop_time64", "send", "sendfile", "sendfile64", "sendmmsg", "sendmsg",
        "sendto", "setfsgid", "setfsgid32", "setfsuid", "setfsuid32", "setgid", "setgid32", "setgroups",
        "setgroups32", "setitimer", "setpgid", "setpriority", "setregid", "setregid32", "setresgid", "setresgid32",
        "setresuid", "setresuid32", "setreuid", "setreuid32", "setrlimit", "set_robust_list", "setsid", "setsockopt",
        "set_thread_area", "set_tid_address", "setuid", "setuid32", "setxattr", "setxattrat", "shmat", "shmctl",
        "shmdt", "shmget", "shutdown", "sigaltstack", "signalfd", "signalfd4", "sigprocmask", "sigreturn",
        "socketcall", "socketpair", "splice", "stat", "stat64", "statfs", "statfs64", "statmount", "statx", "symlink",
        "symlinkat", "sync", "sync_file_range", "syncfs", "sysinfo", "tee", "tgkill", "time", "timer_create",
        "timer_delete", "timer_getoverrun", "timer_gettime", "timer_gettime64", "timer_settime", "timer_settime64",
        "timerfd_create", "timerfd_gettime", "timerfd_gettime64", "timerfd_settime", "timerfd_settime64", "times",
        "tkill", "truncate", "truncate64", "ugetrlimit", "umask", "uname", "unlink", "unlinkat", "uretprobe", "utime",
        "utimensat", "utimensat_time64", "utimes", "vfork", "vmsplice", "wait4", "waitid", "waitpid", "write",
        "writev", NULL
};
/* clang-format on */

static const struct rule rules[] = {
    {.names = always_allowed, .action = ALLOW},
    {.names = NAMES("process_vm_readv", "process_vm_writev", "ptrace"),
     .action = ALLOW,
     .includes = {.min_kernel = "4.8"}},
    /* every socket family except AF_ALG (38) and AF_VSOCK (40) */
    {.names = NAMES("socket"), .action = ALLOW, .arg = {0, 38, "SCMP_CMP_LT"}},
    {.names = NAMES("socket"), .action = ALLOW, .arg = {0, 39, "SCMP_CMP_EQ"}},
    {.names = NAMES("socket"), .action = ALLOW, .arg = {0, 40, "SCMP_CMP_GT"}},
    /* personality: PER_LINUX, PER_LINUX32, UNAME26, UNAME26|PER_LINUX32, query */
    {.names = NAMES("personality"), .action = ALLOW, .arg = {0, 0x0, "SCMP_CMP_EQ"}},
    {.names = NAMES("personality"), .action = ALLOW, .arg = {0, 0x8, "SCMP_CMP_EQ"}},
    {.names = NAMES("personality"), .action = ALLOW, .arg = {0, 0x20000, "SCMP_CMP_EQ"}},
    {.names = NAMES("personality"), .action = ALLOW, .arg = {0, 0x20008, "SCMP_CMP_EQ"}},
    {.names = NAMES("personality"), .action = ALLOW, .arg = {0, 0xffffffff, "SCMP_CMP_EQ"}},
    {.names = NAMES("sync_file_range2", "swapcontext"), .action = ALLOW, .includes = {.arches = NAMES("ppc64le")}},
    {.names =
         NAMES("arm_fadvise64_64", "arm_sync_file_range", "sync_file_range2", "breakpoint", "cacheflush", "set_tls"),
     .action = ALLOW,
     .includes = {.arches = NAMES("arm", "arm64")}},
    {.names = NAMES("arch_prctl"), .action = ALLOW, .includes = {.arches = NAMES("amd64", "x32")}},
    {.names = NAMES("modify_ldt"), .action = ALLOW, .includes = {.arches = NAMES("amd64", "x32", "x86")}},
    {.names = NAMES("s390_pci_mmio_read", "s390_pci_mmio_write", "s390_runtime_instr"),
     .action = ALLOW,
     .includes = {.arches = NAMES("s390", "s390x")}},
    {.names = NAMES("riscv_flush_icache"), .action = ALLOW, .includes = {.arches = NAMES("riscv64")}},
    {.names = NAMES("open_by_handle_at"), .action = ALLOW, .includes = {.caps = NAMES("CAP_DAC_READ_SEARCH")}},
    {.names = NAMES("bpf", "clone", "clone3", "fanotify_init", "fsconfig", "fsmount", "fsopen", "fspick",
                    "lookup_dcookie", "lsm_get_self_attr", "lsm_list_modules", "lsm_set_self_attr", "mount",
                    "mount_setattr", "move_mount", "open_tree", "perf_event_open", "quotactl", "quotactl_fd",
                    "setdomainname", "sethostname", "setns", "syslog", "umount", "umount2", "unshare"),
     .action = ALLOW,
     .includes = {.caps = NAMES("CAP_SYS_ADMIN")}},
    /* clone without namespace flags (CLONE_NEWNS|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET|NEWCGROUP) */
    {.names = NAMES("clone"),
     .action = ALLOW,
     .arg = {0, 0x7e020000, "SCMP_CMP_MASKED_EQ"},
     .excludes = {.caps = NAMES("CAP_SYS_ADMIN"), .arches = NAMES("s390", "s390x")}},
    {.names = NAMES("clone"),
     .action = ALLOW,
     .arg = {1, 0x7e020000, "SCMP_CMP_MASKED_EQ"},
     .comment = "s390 parameter ordering for clone is different",
     .includes = {.arches = NAMES("s390", "s390x")},
     .excludes = {.caps = NAMES("CAP_SYS_ADMIN")}},
    /* clone3 cannot be filtered by flags: ENOSYS makes libc fall back to clone */
    {.names = NAMES("clone3"),
     .action = "SCMP_ACT_ERRNO",
     .errno_ret = 38,
     .excludes = {.caps = NAMES("CAP_SYS_ADMIN")}},
    {.names = NAMES("reboot"), .action = ALLOW, .includes = {.caps = NAMES("CAP_SYS_BOOT")}},
    {.names = NAMES("chroot"), .action = ALLOW, .includes = {.caps = NAMES("CAP_SYS_CHROOT")}},
    {.names = NAMES("delete_module", "init_module", "finit_module"),
     .action = ALLOW,
     .includes = {.caps = NAMES("CAP_SYS_MODULE")}},
    {.names = NAMES("acct"), .action = ALLOW, .includes = {.caps = NAMES("CAP_SYS_PACCT")}},
    {.names = NAMES("kcmp", "pidfd_getfd", "process_madvise", "process_vm_readv", "process_vm_writev", "ptrace"),
     .action = ALLOW,
     .includes = {.caps = NAMES("CAP_SYS_PTRACE")}},
    {.names = NAMES("iopl", "ioperm"), .action = ALLOW, .includes = {.caps = NAMES("CAP_SYS_RAWIO")}},
    {.names = NAMES("settimeofday", "stime", "clock_settime", "clock_settime64"),
     .action = ALLOW,
     .includes = {.caps = NAMES("CAP_SYS_TIME")}},
    {.names = NAMES("vhangup"), .action = ALLOW, .includes = {.caps = NAMES("CAP_SYS_TTY_CONFIG")}},
    {.names = NAMES("get_mempolicy", "mbind", "set_mempolicy", "set_mempolicy_home_node"),
     .action = ALLOW,
     .includes = {.caps = NAMES("CAP_SYS_NICE")}},
    {.names = NAMES("syslog"), .action = ALLOW, .includes = {.caps = NAMES("CAP_SYSLOG")}},
    {.names = NAMES("bpf"), .action = ALLOW, .includes = {.caps = NAMES("CAP_BPF")}},
    {.names = NAMES("perf_event_open"), .action = ALLOW, .includes = {.caps = NAMES("CAP_PERFMON")}},
};

/* Architectures Docker knows, each with the ones its kernel also runs. */
static const struct {
        const char *arch;
        const char *const *sub; /* NULL: none */
} arch_map[] = {
    {"SCMP_ARCH_X86_64", NAMES("SCMP_ARCH_X86", "SCMP_ARCH_X32")},
    {"SCMP_ARCH_AARCH64", NAMES("SCMP_ARCH_ARM")},
    {"SCMP_ARCH_MIPS64", NAMES("SCMP_ARCH_MIPS", "SCMP_ARCH_MIPS64N32")},
    {"SCMP_ARCH_MIPS64N32", NAMES("SCMP_ARCH_MIPS", "SCMP_ARCH_MIPS64")},
    {"SCMP_ARCH_MIPSEL64", NAMES("SCMP_ARCH_MIPSEL", "SCMP_ARCH_MIPSEL64N32")},
    {"SCMP_ARCH_MIPSEL64N32", NAMES("SCMP_ARCH_MIPSEL", "SCMP_ARCH_MIPSEL64")},
    {"SCMP_ARCH_S390X", NAMES("SCMP_ARCH_S390")},
    {"SCMP_ARCH_RISCV64", NULL},
    {"SCMP_ARCH_LOONGARCH64", NULL},
};

static json_t *string_array(const char *const *v)
{
        json_t *arr = json_array();
        for (size_t i = 0; arr != NULL && v[i] != NULL; i++) {
                if (json_array_append_new(arr, json_string(v[i])) < 0) {
                        json_decref(arr);
                        return NULL;
                }
        }
        return arr;
}

/* obj[key] = value, taking value; false when value is NULL (out of memory) or
 * the member cannot be set. */
static bool put(json_t *obj, const char *key, json_t *value)
{
        return value != NULL && json_object_set_new(obj, key, value) == 0;
}

static bool filter_empty(const struct filter *f)
{
        return f->caps == NULL && f->arches == NULL && f->min_kernel == NULL;
}

static json_t *filter_json(const struct filter *f)
{
        _cleanup_json_ json_t *o = json_object();
        if (o == NULL || (f->caps != NULL && !put(o, "caps", string_array(f->caps))) ||
            (f->arches != NULL && !put(o, "arches", string_array(f->arches))) ||
            (f->min_kernel != NULL && !put(o, "minKernel", json_string(f->min_kernel))))
                return NULL;
        return ctk_steal(&o);
}

static json_t *args_json(const struct arg_cond *a)
{
        return json_pack("[{s:I, s:I, s:s}]", "index", (json_int_t)a->index, "value", (json_int_t)a->value, "op",
                         a->op);
}

static json_t *rule_json(const struct rule *r)
{
        _cleanup_json_ json_t *o = json_object();
        if (o == NULL || !put(o, "names", string_array(r->names)) || !put(o, "action", json_string(r->action)) ||
            (r->errno_ret != 0 && !put(o, "errnoRet", json_integer(r->errno_ret))) ||
            (r->arg.op != NULL && !put(o, "args", args_json(&r->arg))) ||
            (r->comment != NULL && !put(o, "comment", json_string(r->comment))) ||
            (!filter_empty(&r->includes) && !put(o, "includes", filter_json(&r->includes))) ||
            (!filter_empty(&r->excludes) && !put(o, "excludes", filter_json(&r->excludes))))
                return NULL;
        return ctk_steal(&o);
}

json_t *ctk_seccomp_docker_default_profile(void)
{
        _cleanup_json_ json_t *map = json_array();
        for (size_t i = 0; map != NULL && i < sizeof(arch_map) / sizeof(arch_map[0]); i++) {
                json_t *sub = arch_map[i].sub != NULL ? string_array(arch_map[i].sub) : json_null();
                if (sub == NULL || json_array_append_new(map, json_pack("{s:s, s:o}", "architecture", arch_map[i].arch,
                                                                        "subArchitectures", sub)) < 0)
                        return NULL;
        }
        _cleanup_json_ json_t *calls = json_array();
        for (size_t i = 0; calls != NULL && i < sizeof(rules) / sizeof(rules[0]); i++)
                if (json_array_append_new(calls, rule_json(&rules[i])) < 0)
                        return NULL;
        if (map == NULL || calls == NULL)
                return NULL;
        return json_pack("{s:s, s:i, s:O, s:O}", "defaultAction", "SCMP_ACT_ERRNO", "defaultErrnoRet", 1, "archMap",
                         map, "syscalls", calls);
}
