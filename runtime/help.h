/* amd-container-runtime's own help, version line and man page: what it
 * prints before the low-level runtime's for --help and --version. */
#ifndef RT_HELP_H
#define RT_HELP_H

#include "core/base/base.h"

/* The program as a command (core/base/cmdline.h): its options and documentation. */
extern const struct ctk_cmd rt_program;

/* "amd-container-runtime version V (COMMIT)" on stdout. */
void rt_print_version(void);

#endif
