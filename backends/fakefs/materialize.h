/* Writes a tree as a plain directory tree: DIR/sys, DIR/dev with real
 * character device nodes (mknod, needs CAP_MKNOD), symbolic links, file
 * modes and device owners as in the tree.  DIR/sys and DIR/dev must not
 * exist; on failure everything created is removed again. */
#ifndef CTK_FAKEFS_MATERIALIZE_H
#define CTK_FAKEFS_MATERIALIZE_H

#include "backends/fakefs/tree.h"
#include "core/base/base.h"

/* Writes tree t as files, directories, links and device nodes below dir. */
int ctk_fakefs_materialize(const struct ctk_fakefs_tree *t, const char *dir, struct ctk_error **err);

#endif
