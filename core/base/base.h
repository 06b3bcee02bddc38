/* core/base: what every other folder builds on.  Owns the error convention
 * (struct ctk_error: fallible functions return an int < 0 and fill *err;
 * callers add context with ctk_error_prefix; only a command's edge prints),
 * scope-bound cleanup helpers, logging, whole-file and atomic file I/O,
 * directory handles, flock, string vectors, program look-up on PATH,
 * strict number parsing, UTF-8, trusted files, messages with their values
 * cut, the command-line grammar of the programs (parsing, help, man
 * pages), and the names the programs share (names.h).  Uses libc only, and
 * nothing else of core/. */
#ifndef CTK_BASE_H
#define CTK_BASE_H

#include "cmdline.h"
#include "cleanup.h"
#include "error.h"
#include "fileio.h"
#include "format.h"
#include "flock.h"
#include "fsdir.h"
#include "log.h"
#include "names.h"
#include "number.h"
#include "pathsearch.h"
#include "strv.h"
#include "trust.h"
#include "utf8.h"
#include "version.h"

#endif
