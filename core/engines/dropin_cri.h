/* containerd's drop-in (dropins.h): before 2.1, containerd replaces a
 * whole plugin section of config.toml with the one of an imported file
 * (mergeConfig copies each plugins.<name> over), so the drop-in carries a
 * copy of config.toml's CRI plugin section (its tables and keys, values
 * byte for byte; comments go) with the amd runtime, CDI and the default
 * runtime set in it. */
#ifndef CTK_ENGINES_DROPIN_CRI_H
#define CTK_ENGINES_DROPIN_CRI_H

#include <stdio.h>

#include "core/base/base.h"
#include "dropins.h"

/* Writes the drop-in's version line and CRI section to f, from d->source,
 * with d's runtime name and executable as TOML strings (name_q, path_q, as
 * ctk_toml_quote gives them); a source whose CRI section cannot be copied
 * faithfully is one error NAME:LINE:COLUMN saying what to change. */
int ctk_dropin_cri_write(FILE *f, const struct ctk_dropin *d, const char *name_q, const char *path_q,
                         struct ctk_error **err);

#endif
