/* The bundle's spec file, and the cheap test for a GPU request in it: a
 * create whose spec cannot ask for GPUs is handed to the low-level runtime
 * before the spec is parsed. */
#ifndef RT_BUNDLE_H
#define RT_BUNDLE_H

#include <stdbool.h>
#include <stddef.h>

#include "args.h"
#include "core/base/base.h"

/* The path of the spec file of a create/run call: BUNDLE/config.json
 * (bundle default "."; crun's --config names another file).  malloc'ed. */
char *rt_spec_path(const struct rt_args *a);

/* The largest spec file read (runc sets none; a spec this large is already
 * 1.5 GB in memory once parsed). */
#define RT_SPEC_MAX ((size_t)128 << 20)

/* False when the spec text cannot request GPUs or CDI devices: it names
 * none of the variables (AMD_VISIBLE_DEVICES, DOCKER_RESOURCE_<KIND>), no
 * annotation key with one of prefixes (config key cdi-annotation-prefixes,
 * CDI's cdi.k8s.io/ by default), and has no \u escape of a character of
 * those names that could spell one.  True means "parse it and see". */
bool rt_spec_may_request_gpus(const char *data, size_t len, const struct ctk_strv *prefixes);

#endif
