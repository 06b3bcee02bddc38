/* The launcher's reader of the toolkit configuration file: no JSON library,
 * only the plain subset of JSON a hand-written configuration uses. */
#ifndef RT_CONFIG_SCAN_H
#define RT_CONFIG_SCAN_H

#include <stddef.h>

#include "core/config/config.h"

/* Reads text (blank = all defaults) into *out over the defaults, when it is
 * one JSON object whose values are null, true, false, strings or arrays of
 * strings, in printable ASCII without \u escapes, no key twice, and the
 * values pass the checks of core/config/fields.c.  Returns 0 then; -1 for
 * anything else (*out is left cleared): the full runtime reads such a file
 * with jansson and reports what is wrong with it. */
int rt_config_scan(const char *text, size_t len, struct ctk_config *out);

#endif
