/* The build's version stamp.  Defined by a file generated at build time
 * (sim/version.sh writes build/gen/version.c from git: a build of a modified
 * tree says "-dirty"; the file changes, and the programs are relinked, when
 * that description or the commit changes). */
#ifndef CTK_VERSION_H
#define CTK_VERSION_H

extern const char ctk_version[];    /* git describe --tags --always --dirty ("d3f4287-dirty") */
extern const char ctk_git_commit[]; /* the commit, abbreviated */
extern const char ctk_build_date[]; /* when the stamp was written, "2026-11-26T15:54:36+0000" */

#endif
