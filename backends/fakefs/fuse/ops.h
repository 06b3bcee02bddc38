/* The FUSE operations of the fake host (high-level, path-based API). */
#ifndef CTK_FAKEFS_FUSE_OPS_H
#define CTK_FAKEFS_FUSE_OPS_H

#define FUSE_USE_VERSION 312
#include <fuse.h>
#include <stdbool.h>
#include <time.h>

#include "backends/fakefs/faults.h"
#include "backends/fakefs/host.h"

/* fuse private_data */
struct fakefs_fs {
        struct ctk_fakefs_host *host;
        struct ctk_fakefs_faults *faults;
        time_t start;
        bool debug;
};

#define FAKEFS_CTL_DIR "/.fakefs"
#define FAKEFS_CTL     "/.fakefs/ctl"

extern const struct fuse_operations fakefs_fuse_ops;

#endif
