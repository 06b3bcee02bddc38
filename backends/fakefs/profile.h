/* Host profiles: a JSON description of a simulated host (GPUs, partitions,
 * KFD topology, device nodes), parsed into plain structs.  The format is
 * documented in sim/profiles/README.md. */
#ifndef CTK_FAKEFS_PROFILE_H
#define CTK_FAKEFS_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/base/base.h"

#define CTK_FAKEFS_MAX_PARTITIONS 8 /* partition k lives in PCI function bits k (3 bits) */
#define CTK_FAKEFS_MAX_MINOR      0xfffffu
#define CTK_FAKEFS_MAX_KFD_NODE   4095

/* One "key value" line of a KFD properties file; value NULL marks the
 * position of a key the builder computes (vendor_id, location_id, ...). */
struct ctk_fakefs_prop {
        char *key;
        char *value; /* decimal digits */
};

struct ctk_fakefs_props {
        struct ctk_fakefs_prop *v;
        size_t n;
};

struct ctk_fakefs_template {
        char *name;
        struct ctk_fakefs_props props;
};

/* A named list of property sets: a node's KFD memory banks or caches
 * (mem_banks/<i>/properties, caches/<i>/properties). */
struct ctk_fakefs_set {
        char *name;
        struct ctk_fakefs_props *items;
        size_t n;
};

/* A link of a KFD node as the profile names it: a link template and the
 * profile's KFD node at its other end. */
struct ctk_fakefs_link_ref {
        const struct ctk_fakefs_template *template; /* points into the profile */
        int node;
};

struct ctk_fakefs_links {
        bool given; /* false: derived like the driver (kfd_links.h) */
        struct ctk_fakefs_link_ref *v;
        size_t n;
};

/* What a KFD node has beside its properties: io_links/, p2p_links/,
 * mem_banks/, caches/ (each NULL or ungiven: derived). */
struct ctk_fakefs_node_extra {
        struct ctk_fakefs_links io, p2p;
        const struct ctk_fakefs_set *banks;  /* points into the profile */
        const struct ctk_fakefs_set *caches; /* points into the profile */
};

/* What a GPU's sysfs shows beyond its identity: PCI attributes, hwmon
 * sensors, clocks and counters (sim/profiles/README.md, "sensors").  A
 * member not given is a file not served. */
struct ctk_fakefs_dpm {
        unsigned int *mhz; /* levels, ascending */
        size_t n;
        size_t current;
};

struct ctk_fakefs_sensors {
        bool has_temp_edge, has_temp_junction, has_temp_mem, has_power_average, has_power_cap, has_fan;
        int64_t temp_edge, temp_junction, temp_mem;       /* millidegrees C */
        uint64_t power_average, power_cap, power_cap_max; /* microwatts */
        unsigned int fan_pwm;                             /* 0-255 */
        struct ctk_fakefs_dpm sclk, mclk, fclk, socclk;
        char *perf_level;
        bool has_vram, has_busy, has_mem_busy;
        uint64_t vram_total, vram_used, vis_vram_total, gtt_total, gtt_used;
        unsigned int busy_percent, mem_busy_percent;
};

struct ctk_fakefs_pci_attrs {
        unsigned int subsystem_vendor, subsystem_device, revision;
        char *product_name, *product_number, *serial_number, *vbios_version;
};

struct ctk_fakefs_node_attr {
        mode_t mode;
        uid_t uid;
        gid_t gid;
};

struct ctk_fakefs_cpu {
        int kfd_node;
        const struct ctk_fakefs_props *template; /* points into the profile */
        struct ctk_fakefs_props props;           /* overrides */
        struct ctk_fakefs_node_extra extra;
};

/* A partition as captured (explicit partitions of a GPU, index k = position). */
struct ctk_fakefs_part {
        int kfd_node;
        int render_minor;
        int card_minor;      /* -1: GPU card_minor + k */
        int64_t location_id; /* -1: the GPU's with function bits k */
        bool has_unique_id;  /* false: the GPU's */
        uint64_t unique_id;
        int64_t gpu_id;                /* -1: synthesised */
        struct ctk_fakefs_props props; /* overrides */
        struct ctk_fakefs_node_extra extra;
};

struct ctk_fakefs_partitioning {
        bool supported;
        char *compute; /* current mode, upper case ("SPX") */
        char *memory;  /* current mode, upper case ("NPS1") */
        unsigned int xcds;
        struct ctk_strv available_compute; /* upper case, profile order */
        struct ctk_strv available_memory;
};

struct ctk_fakefs_gpu {
        char *pci; /* canonical "dddd:bb:dd.f" */
        unsigned int domain, bus, dev, fn;
        unsigned int vendor_id, device_id, pci_class;
        char *driver; /* "amdgpu", "i915", "nvidia", ...; NULL: no driver bound */
        bool has_unique_id;
        uint64_t unique_id;
        int kfd_node;                            /* -1: numbered like the driver does */
        int card_minor;                          /* -1: no DRM nodes */
        int render_minor;                        /* -1: no render node */
        int64_t gpu_id;                          /* -1: synthesised */
        char *kfd_name;                          /* NULL: a default from the device id */
        const struct ctk_fakefs_props *template; /* points into the profile */
        struct ctk_fakefs_props props;           /* overrides */
        struct ctk_fakefs_node_attr card_attr, render_attr;
        struct ctk_fakefs_partitioning partition;
        struct ctk_fakefs_part *parts; /* explicit partitions of the current compute mode */
        size_t nparts;
        int numa_node;                      /* the CPU KFD node it hangs off; -1: the first */
        struct ctk_fakefs_node_extra extra; /* of its KFD node (all partitions: banks, caches) */
        struct ctk_fakefs_pci_attrs attrs;
        struct ctk_fakefs_sensors sensors;
};

struct ctk_fakefs_profile {
        char *path;
        char *name;
        char *description;
        bool amdgpu_loaded;
        char *xcp_prefix; /* "amdgpu_xcp_" or "amdgpu_xcp." */
        uint64_t generation_id;
        bool has_kfd_device;
        unsigned int kfd_major, kfd_minor;
        struct ctk_fakefs_node_attr kfd_attr;
        unsigned int dri_major;
        struct ctk_fakefs_node_attr card_attr, render_attr;
        struct ctk_fakefs_template *templates;
        size_t ntemplates;
        struct ctk_fakefs_template *link_templates; /* the profile's, then the built-in ones */
        size_t nlink_templates;
        struct ctk_fakefs_set *bank_sets, *cache_sets;
        size_t nbank_sets, ncache_sets;
        struct ctk_fakefs_cpu *cpus;
        size_t ncpus;
        struct ctk_fakefs_gpu *gpus; /* sorted by PCI address */
        size_t ngpus;
};

/* Loads and validates a profile.  Syntax errors read "FILE:LINE:COLUMN: what";
 * semantic errors name the file and the JSON location ("gpus[2].partition"). */
int ctk_fakefs_profile_load(const char *path, struct ctk_fakefs_profile **out, struct ctk_error **err);
/* The same from a string; `name` is used in messages. */
int ctk_fakefs_profile_parse(const char *text, const char *name, struct ctk_fakefs_profile **out,
                             struct ctk_error **err);
void ctk_fakefs_profile_free(struct ctk_fakefs_profile *p);
static inline void ctk_fakefs_profile_freep(struct ctk_fakefs_profile **p)
{
        ctk_fakefs_profile_free(*p);
}
#define _cleanup_fakefs_profile_ __attribute__((cleanup(ctk_fakefs_profile_freep)))

/* The profile's GPU with that PCI address, or NULL. */
const struct ctk_fakefs_gpu *ctk_fakefs_profile_find_gpu(const struct ctk_fakefs_profile *p, const char *pci,
                                                         size_t *index);

/* Partition modes. */
int ctk_fakefs_compute_partitions(const char *mode, unsigned int xcds); /* partitions, or -1 if unknown */
bool ctk_fakefs_memory_mode_known(const char *mode);
/* The modes a GPU with this many XCDs offers ("SPX", "DPX", "QPX", "CPX"). */
int ctk_fakefs_default_compute_modes(unsigned int xcds, struct ctk_strv *out);

/* PCI address "dddd:bb:dd.f" (any case; the domain may be omitted). */
int ctk_fakefs_parse_bdf(const char *s, unsigned int *domain, unsigned int *bus, unsigned int *dev, unsigned int *fn);

/* KFD node numbers "0", "2-5,7" (ascending ranges, each <= CTK_FAKEFS_MAX_KFD_NODE):
 * *out (owned), *n; -1 on bad syntax (or ENOMEM). */
int ctk_fakefs_parse_node_list(const char *s, int **out, size_t *n);

/* KFD property keys computed from the GPU (vendor_id, device_id, ...). */
bool ctk_fakefs_prop_is_identity(const char *key);
void ctk_fakefs_props_clear(struct ctk_fakefs_props *p);

#endif
