/* Command-line scanning shared by amd-ctk and amd-ctk-fakefs. */
#ifndef CTK_ARGV_H
#define CTK_ARGV_H

#include <stdbool.h>

/* True if argv[1..argc-1] contains -h or --help before any "--". */
bool ctk_argv_wants_help(int argc, char **argv);

/* The value of option `name` at argv[*i]: "NAME VALUE", or "NAME=VALUE" for
 * a long option ("--name"); *i is advanced past a separate value.  NULL if
 * argv[*i] is not that option, or if its value is missing (then *missing is
 * set). */
const char *ctk_argv_option_value(int argc, char **argv, int *i, const char *name, bool *missing);

#endif
