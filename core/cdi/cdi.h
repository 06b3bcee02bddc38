/* core/cdi: Container Device Interface (CDI) specs: generation from the
 * discovered GPUs, device naming, strict validation of a spec document,
 * comparison of a spec with the live host, and the spec directories
 * (cache.h).  Uses core/base, core/json, core/device and core/oci.
 *
 * A spec is handled as a jansson document.  Validation reports problems as
 * complete lines ("amd.json:4:7: devices[0].name: ...") in a report rather
 * than failing at the first one, so a user sees everything that is wrong. */
#ifndef CTK_CDI_H
#define CTK_CDI_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/device/device.h"
#include "core/base/base.h"

#define CTK_CDI_DEFAULT_OUTPUT CTK_CDI_STATIC_DIR "/amd.json"
#define CTK_CDI_KFD_PATH       "/dev/kfd"
#define CTK_CDI_ALL_DEVICE     "all"

/* ---- names (names.c) ---- */

/* vendor and class: ^[A-Za-z]([A-Za-z0-9_.-]*[A-Za-z0-9])?$ */
bool ctk_cdi_vendor_valid(const char *s);
bool ctk_cdi_class_valid(const char *s);
/* device name: ^[A-Za-z0-9]([A-Za-z0-9_.:-]*[A-Za-z0-9])?$ */
bool ctk_cdi_device_name_valid(const char *s);
/* Splits "vendor/class" at the first '/'.  Returns -1 (outputs NULL) when
 * there is no '/' or a part is empty; the parts are not checked. */
int ctk_cdi_kind_split(const char *kind, char **vendor, char **class_);
/* Marks the GPUs a device name of our spec stands for: an index "N", a
 * UUID "0x...", or "all".  -1 when it names no GPU of gpus. */
int ctk_cdi_gpu_name_mark(const struct ctk_gpu_list *gpus, const char *name, bool *marks);

/* ---- spec versions (version.c) ---- */

/* Known versions, oldest first: "0.1.0" ... "1.1.0". */
extern const char *const ctk_cdi_versions[];
extern const size_t ctk_cdi_nversions;
/* Index of a known version ("0.5.0" or "v0.5.0"), or -1. */
int ctk_cdi_version_index(const char *s);
/* Index of the oldest version that has every feature the document uses
 * (CDI's MinimumRequiredVersion).  *why (optional) names the feature that
 * needs it, or is NULL for the earliest usable version (0.3.0). */
int ctk_cdi_min_version(const json_t *spec, const char **why);

/* ---- problem reports (report.c) ---- */

/* The checks keep the first CTK_CDI_REPORT_MAX lines of each list and
 * count the rest (a spec with 60,000 bad devices makes 100 lines, each
 * located in the text once). */
#define CTK_CDI_REPORT_MAX 100
struct ctk_cdi_report {
        struct ctk_strv errors;
        struct ctk_strv warnings;
        size_t more_errors, more_warnings; /* not kept */
};
/* Adds line (malloc'ed, taken; NULL is ignored) to list (a report's errors
 * or warnings) as one line: control bytes it quotes are escaped. */
void ctk_cdi_report_push(struct ctk_strv *list, char *line);
/* Frees the report's lines and zeroes it. */
void ctk_cdi_report_clear(struct ctk_cdi_report *r);
static inline void ctk_cdi_report_clearp(struct ctk_cdi_report *r)
{
        ctk_cdi_report_clear(r);
}
#define _cleanup_cdi_report_ __attribute__((cleanup(ctk_cdi_report_clearp)))

/* Where a document came from, for messages (every field optional). */
struct ctk_cdi_source {
        const char *file;
        const char *text; /* the JSON text, to find line:column of a problem */
        size_t len;
};

/* ---- strict loading and validation (load.c, check*.c, shape.c) ---- */

struct ctk_cdi_doc {
        char *path;
        char *text;
        size_t len;
        bool yaml;    /* text is YAML (the file name ends in .yaml or .yml) */
        json_t *root; /* NULL when the text is not a document (the report says why) */
};
void ctk_cdi_doc_clear(struct ctk_cdi_doc *d);
static inline void ctk_cdi_doc_clearp(struct ctk_cdi_doc *d)
{
        ctk_cdi_doc_clear(d);
}
#define _cleanup_cdi_doc_ __attribute__((cleanup(ctk_cdi_doc_clearp)))

/* The most a spec file may hold, and the most devices a spec may have:
 * a spec over either is skipped (it never stalls a create that does not
 * name its devices). */
#define CTK_CDI_SPEC_MAX    CTK_FILE_MAX
#define CTK_CDI_MAX_DEVICES 65536

/* Reads a spec file (through the bounded reader: a regular file of at most
 * CTK_CDI_SPEC_MAX bytes) and parses it, rejecting duplicate keys: YAML
 * when its name ends in .yaml or .yml (yaml.c), else JSON.  A file that
 * cannot be read is an error (-1); text that is not a document is a
 * problem in rep ("file:line:column: ...") and leaves doc->root NULL. */
int ctk_cdi_load(const char *path, struct ctk_cdi_doc *doc, struct ctk_cdi_report *rep, struct ctk_error **err);
/* The same for a spec the runtime may use: only a trusted file (see
 * ctk_file_read_trusted; else the error EPERM "PATH is not trusted: ..."). */
int ctk_cdi_load_trusted(const char *path, struct ctk_cdi_doc *doc, struct ctk_cdi_report *rep, struct ctk_error **err);
/* Same for text in memory (file names it in messages and tells the format). */
int ctk_cdi_parse(const char *file, const char *text, size_t len, struct ctk_cdi_doc *doc, struct ctk_cdi_report *rep,
                  struct ctk_error **err);

/* Whether a spec file name is read as YAML (.yaml, .yml). */
bool ctk_cdi_is_yaml_name(const char *file);
/* YAML text into the JSON document of the same content (see yaml.c): 0 and
 * *out, or 0 and *problem ("file:line:column: what", malloc'ed) for text
 * that is no CDI-usable YAML; -1 only when out of memory. */
int ctk_cdi_yaml_to_json(const char *file, const char *text, size_t len, json_t **out, char **problem);
/* In a document read from YAML: plain scalars that YAML resolved to a
 * number or boolean, where the spec wants a string (a device name written
 * `name: 0`), become the string the reference decoder makes of them. */
void ctk_cdi_coerce_yaml_scalars(json_t *doc);
/* The source of a loaded document for ctk_cdi_check's messages (YAML
 * documents are located by path only: their positions are YAML's). */
struct ctk_cdi_source ctk_cdi_doc_source(const struct ctk_cdi_doc *d);

/* Checks a parsed spec against the CDI rules: known keys and their types
 * (keys CDI loaders match without regard to case are accepted with a
 * warning and renamed in doc), cdiVersion known and new enough for the
 * content, kind and device names, unique names, non-empty device edits,
 * env entries, device nodes, mounts, hooks, intelRdt, netDevices.
 * Returns the number of errors added to rep. */
size_t ctk_cdi_check(json_t *doc, const struct ctk_cdi_source *src, struct ctk_cdi_report *rep);

/* ---- the host as CDI sees it (host.c) ---- */

struct ctk_cdi_host_gpu {
        size_t index;
        bool has_uuid;
        uint64_t uuid;
        struct ctk_devnode *nodes; /* card, render (as discovered) */
        size_t n;
};

struct ctk_cdi_host {
        struct ctk_cdi_host_gpu *gpus; /* in index order */
        size_t n;
        struct ctk_devnode kfd;
};

/* Stats every DRM node of the GPUs and /dev/kfd through the backend. */
int ctk_cdi_host_collect(struct ctk_backend *b, const struct ctk_gpu_list *gpus, struct ctk_cdi_host *out,
                         struct ctk_error **err);
/* The same for the GPUs of gpus->v[idx[0..n)] only (the nodes of one
 * directory stat'ed together where the backend offers it). */
int ctk_cdi_host_collect_some(struct ctk_backend *b, const struct ctk_gpu_list *gpus, const size_t *idx, size_t n,
                              struct ctk_cdi_host *out, struct ctk_error **err);
void ctk_cdi_host_clear(struct ctk_cdi_host *h);
static inline void ctk_cdi_host_clearp(struct ctk_cdi_host *h)
{
        ctk_cdi_host_clear(h);
}
#define _cleanup_cdi_host_ __attribute__((cleanup(ctk_cdi_host_clearp)))

/* The CDI devices a host offers: index names "0".."N-1", UUID names
 * ("0x" + upper-case hex; partitions sharing a UUID form one device with all
 * their nodes), and "all".  Each device's nodes are borrowed from the host:
 * its DRM nodes in index order followed by /dev/kfd. */
struct ctk_cdi_device {
        char *name;
        bool is_index;
        size_t index; /* when is_index */
        const struct ctk_devnode **nodes;
        size_t n;
};

struct ctk_cdi_device_list {
        struct ctk_cdi_device *v;
        size_t n;
};

/* The CDI devices of a host: one per GPU index (by_index), one per UUID (by_uuid), then "all". */
int ctk_cdi_host_devices(const struct ctk_cdi_host *h, bool by_index, bool by_uuid, struct ctk_cdi_device_list *out,
                         struct ctk_error **err);
/* Frees the list (the nodes stay the host's). */
void ctk_cdi_device_list_clear(struct ctk_cdi_device_list *l);
/* ---- generation (spec.c) ---- */

struct ctk_cdi_options {
        const char *vendor;   /* default CTK_CDI_DEFAULT_VENDOR */
        const char *class_;   /* default CTK_CDI_DEFAULT_CLASS */
        bool by_index;        /* devices named "0".."N-1" */
        bool by_uuid;         /* devices named by UUID */
        bool additional_gids; /* node groups in additionalGids (needs CDI 0.7.0) */
        const char *root;     /* the host's root: a simulated host's sysfs mounts (simhost.h); NULL: "/" */
};
void ctk_cdi_options_init(struct ctk_cdi_options *o); /* defaults: amd.com/gpu, by index */

/* Builds the spec (cdiVersion = the minimum the content needs). */
int ctk_cdi_spec_build(const struct ctk_cdi_host *h, const struct ctk_cdi_options *o, json_t **out,
                       struct ctk_error **err);
/* The spec text: 2-space indent, keys in insertion order, final newline. */
char *ctk_cdi_spec_dump(const json_t *spec);

/* ---- freshness (fresh.c) ---- */

/* Compares the devices of a spec (already checked) with the host: every
 * device node whose numbers, mode or owner differ, node lists that differ,
 * devices the spec lacks and devices the host no longer has are added to
 * rep as errors ("device 2: /dev/dri/renderD130 is 226:131 on this host,
 * 226:130 in the spec").  Returns the number of errors added. */
size_t ctk_cdi_fresh_check(const json_t *spec, const struct ctk_cdi_host *h, struct ctk_cdi_report *rep);

struct ctk_cdi_node;
/* What a spec states of a node (type, numbers, mode, owner, where stated)
 * against the node as the host has it, for device dev: the lines of
 * ctk_cdi_fresh_check; returns their number. */
size_t ctk_cdi_node_compare(const char *dev, const struct ctk_cdi_node *spec, const struct ctk_cdi_node *host,
                            struct ctk_cdi_report *rep);

/* The spec directories (cache.h), container edits and the device model
 * (edits.h), applying edits to an OCI spec (apply.h), freshness in mode
 * cdi (stale.h) and rewriting a stale spec (refresh.h). */
#include "cache.h"
#include "edits.h"
#include "apply.h"
#include "resolve.h"
#include "stale.h"
#include "refresh.h"
#include "simhost.h"

#endif
