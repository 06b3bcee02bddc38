/* Reading a KFD topology capture: a copy of /sys/class/kfd/kfd/topology
 * (nodes/<n>/properties, optional nodes/<n>/{gpu_id,name}, optional
 * nodes/<n>/{io_links,p2p_links,mem_banks,caches}/<i>/properties and a
 * bank's used_memory, optional generation_id). */
#ifndef CTK_FAKEFS_KFD_CAPTURE_H
#define CTK_FAKEFS_KFD_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/fakefs/profile.h"
#include "core/base/base.h"

/* A link as captured: the node at its other end and its other keys. */
struct ctk_kfd_capture_link {
        int to;
        struct ctk_fakefs_props props; /* without node_from and node_to */
};

struct ctk_kfd_capture_links {
        bool present; /* the directory exists */
        struct ctk_kfd_capture_link *v;
        size_t n;
};

/* Property sets as captured (mem_banks/<i>, caches/<i>). */
struct ctk_kfd_capture_sets {
        bool present;
        struct ctk_fakefs_props *v; /* a bank's used_memory is its last key */
        size_t n;
};

struct ctk_kfd_capture_node {
        int id;
        struct ctk_fakefs_props props; /* in file order; values are decimal digits */
        bool has_gpu_id;
        uint64_t gpu_id;
        char *name; /* NULL without a name file; trailing newline removed */
        struct ctk_kfd_capture_links io, p2p;
        struct ctk_kfd_capture_sets banks, caches;
};

struct ctk_kfd_capture {
        struct ctk_kfd_capture_node *nodes; /* ascending node id */
        size_t n;
        bool has_generation_id;
        uint64_t generation_id;
};

/* Lines are "key value" (CRLF accepted); a malformed line is an error
 * naming file and line. */
int ctk_kfd_capture_read(const char *dir, struct ctk_kfd_capture *out, struct ctk_error **err);
void ctk_kfd_capture_clear(struct ctk_kfd_capture *c);

/* Internal to the reader (kfd_capture.c, kfd_capture_topo.c). */
int ctk_kfd_capture_slurp(const char *path, bool missing_ok, char **out, struct ctk_error **err);
/* "key value" lines; any_value: values of digits and commas (a cache's sibling_map). */
int ctk_kfd_capture_parse_props(const char *path, char *text, bool any_value, struct ctk_fakefs_props *out,
                                struct ctk_error **err);
/* n's io_links/, p2p_links/, mem_banks/ and caches/ below dir/nodes/<id>. */
int ctk_kfd_capture_read_topo(const char *dir, struct ctk_kfd_capture_node *n, struct ctk_error **err);
void ctk_kfd_capture_topo_clear(struct ctk_kfd_capture_node *n);

/* A property as a number; -1 if absent or not a number. */
int ctk_kfd_capture_u64(const struct ctk_kfd_capture_node *n, const char *key, uint64_t *out);

#endif
