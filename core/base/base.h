/* core/base: what every other folder builds on.  Owns the error convention
 * (struct ctk_error: fallible functions return an int < 0 and fill *err;
 * callers add context with ctk_error_prefix; only a command's edge prints),
 * scope-bound cleanup helpers, logging, whole-file and atomic file I/O,
 * directory handles, flock, string vectors, strict number parsing and
 * the command-line grammar of the programs (parsing, help, man pages).
 * Uses libc only (the musl launcher links it), and
 * nothing else of core/. */
#ifndef CTK_BASE_H
#define CTK_BASE_H

#include "cmdline.h"
#include "cleanup.h"
#include "error.h"
#include "fileio.h"
#include "flock.h"
#include "fsdir.h"
#include "log.h"
#include "number.h"
#include "strv.h"
#include "version.h"

#endif
