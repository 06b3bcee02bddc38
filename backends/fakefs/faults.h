/* Fault injection rules of the FUSE fake host (MOUNTPOINT/.fakefs/ctl and
 * `mount --faults FILE`), one rule per line:
 *
 *   eio GLOB        opening, reading or listing a matching path fails with EIO
 *   enoent GLOB     matching paths vanish (ENOENT, left out of listings)
 *   delay MS GLOB   operations on matching paths wait MS milliseconds first
 *   huge BYTES GLOB matching files are BYTES long: their content, then
 *                   spaces (a broken driver's endless attribute)
 *   unplug BDF      hot-unplug the GPU at PCI address BDF with all its nodes
 *   plug BDF        plug it back
 *   clear           drop every rule and plug every unplugged GPU back
 *
 * GLOB is an fnmatch(3) pattern (FNM_PATHNAME: '*' stays within one path
 * component) on host-absolute paths such as
 * /sys/class/kfd/kfd/topology/nodes/3/properties.  Blank lines and lines
 * starting with '#' are ignored.  Thread-safe. */
#ifndef CTK_FAKEFS_FAULTS_H
#define CTK_FAKEFS_FAULTS_H

#include <stdbool.h>
#include <stdint.h>

#include "backends/fakefs/host.h"
#include "core/base/base.h"

#define CTK_FAKEFS_MAX_DELAY_MS 60000
#define CTK_FAKEFS_MAX_HUGE     (UINT64_C(1) << 40)

struct ctk_fakefs_faults;

/* An empty fault table for host (rules come from ctk_fakefs_faults_apply). */
int ctk_fakefs_faults_new(struct ctk_fakefs_host *host, struct ctk_fakefs_faults **out, struct ctk_error **err);
/* Frees the table (NULL is fine). */
void ctk_fakefs_faults_free(struct ctk_fakefs_faults *f);

/* Applies every line of text (a control-file write or a faults file; `where`
 * names it in messages, with the line number).  Stops at the first bad line:
 * the lines before it stay applied.  Errors: EINVAL (syntax), ENOENT/ENODEV
 * from unplug/plug. */
int ctk_fakefs_faults_apply(struct ctk_fakefs_faults *f, const char *text, const char *where, struct ctk_error **err);
int ctk_fakefs_faults_apply_file(struct ctk_fakefs_faults *f, const char *path, struct ctk_error **err);

/* The active rules (fault rules, then "unplug BDF" for unplugged GPUs), one
 * per line; owned by the caller. */
char *ctk_fakefs_faults_list(struct ctk_fakefs_faults *f);

/* What applies to an operation on path: the errno to fail with (0 if none)
 * after waiting *delay_ms.  ENOENT applies to every operation, EIO only
 * when `content` (open, read, readdir, readlink; not getattr).  _hidden:
 * must a directory entry with this path be left out of a listing? */
int ctk_fakefs_faults_check(struct ctk_fakefs_faults *f, const char *path, bool content, unsigned int *delay_ms);
bool ctk_fakefs_faults_hidden(struct ctk_fakefs_faults *f, const char *path);
/* Is any rule but unplug set? */
bool ctk_fakefs_faults_any(struct ctk_fakefs_faults *f);

/* The size a huge rule gives path's content, 0 when none matches. */
uint64_t ctk_fakefs_faults_size(struct ctk_fakefs_faults *f, const char *path);

#endif
