/* amd-ctk gpu list --all-vendors: every display/accelerator PCI device, the
 * DRM nodes /dev/dri/by-path links to it, and whether amd-ctk manages it
 * (an AMD GPU on amdgpu that discovery gives an index). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/base.h"
#include "core/json/json.h"
#include "core/device/device.h"
#include "gpu_list.h"
#include "table.h"

struct row {
        const struct ctk_pci_display *d;
        char *vendor;  /* "AMD (0x1002)" */
        char *indices; /* "0-7", "" when none */
        size_t nidx;
        const char *why_not; /* reason when not manageable */
        json_t *idx;         /* JSON array of the indices */
};

static int fill_row(struct row *r, const struct ctk_pci_display *d, const struct ctk_gpu_list *gpus, bool amdgpu_loaded)
{
        *r = (struct row){.d = d, .idx = json_array()};
        const char *name = ctk_pci_vendor_name(d->vendor);
        if (asprintf(&r->vendor, "%s (0x%04x)", name != NULL ? name : "unknown", d->vendor) < 0)
                r->vendor = NULL;
        _cleanup_free_ size_t *v = calloc(gpus->n + 1, sizeof(*v));
        if (r->vendor == NULL || r->idx == NULL || v == NULL)
                return -1;
        size_t n = 0;
        for (size_t i = 0; i < gpus->n; i++)
                if (strcmp(gpus->v[i].pci, d->bdf) == 0) {
                        v[n++] = gpus->v[i].index;
                        json_array_append_new(r->idx, json_integer((json_int_t)gpus->v[i].index));
                }
        r->nidx = n;
        r->indices = ctk_format_ranges(v, n);
        if (r->indices == NULL)
                return -1;
        if (n > 0)
                r->why_not = NULL;
        else if (d->vendor != CTK_PCI_VENDOR_AMD)
                r->why_not = "not an AMD device";
        else if (d->driver == NULL || strcmp(d->driver, "amdgpu") != 0)
                r->why_not = "not bound to amdgpu";
        else if (!amdgpu_loaded)
                r->why_not = "amdgpu driver not loaded";
        else
                r->why_not = "no KFD compute node";
        return 0;
}

static void rows_free(struct row *rows, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                free(rows[i].vendor);
                free(rows[i].indices);
                json_decref(rows[i].idx);
        }
        free(rows);
}

static char *join_drm(const struct ctk_strv *drm)
{
        return drm->n == 0 ? strdup("-") : ctk_strv_join(drm, ", ");
}

#define NCOLS 7

/* The cells of one table line; cells[NCOLS - 1] is printed unpadded. */
static int row_cells(const struct row *r, char *cells[NCOLS])
{
        int ok = asprintf(&cells[0], "%s", r->d->bdf) >= 0 && asprintf(&cells[1], "%s", r->vendor) >= 0 &&
                 asprintf(&cells[2], "0x%04x", r->d->device) >= 0 &&
                 asprintf(&cells[3], "0x%06x", r->d->pci_class) >= 0 &&
                 asprintf(&cells[4], "%s", r->d->driver != NULL ? r->d->driver : "-") >= 0 &&
                 (r->why_not == NULL ? asprintf(&cells[5], "yes (GPU%s %s)", r->nidx > 1 ? "s" : "", r->indices)
                                     : asprintf(&cells[5], "no (%s)", r->why_not)) >= 0;
        cells[6] = ok ? join_drm(&r->d->drm) : NULL;
        return cells[6] != NULL ? 0 : -1;
}

static int print_table(const struct row *rows, size_t n)
{
        static const char *const head[NCOLS] = {"PCI Address", "Vendor",         "Device",     "Class",
                                                "Driver",      "AMD-manageable", "DRM Devices"};
        static const size_t width[NCOLS] = {0};
        char **cells = calloc((n + 1) * NCOLS, sizeof(*cells));
        int rc = cells != NULL ? 0 : -1;
        struct ctk_table t = {.ncols = NCOLS, .head = head, .width = width};
        for (size_t i = 0; rc == 0 && i < n; i++)
                if ((rc = row_cells(&rows[i], cells + i * NCOLS)) == 0)
                        rc = ctk_table_add(&t, (const char *const *)cells + i * NCOLS);
        if (rc == 0) {
                printf("Found %zu display/accelerator PCI %s\n", n, n == 1 ? "device" : "devices");
                rc = ctk_table_print(stdout, &t);
        }
        ctk_table_clear(&t);
        for (size_t i = 0; cells != NULL && i < n * NCOLS; i++)
                free(cells[i]);
        free(cells);
        return rc;
}

static json_t *row_json(const struct row *r)
{
        char hex[12];
        json_t *o = json_object(), *devs = json_array();
        if (o == NULL || devs == NULL) {
                json_decref(o);
                json_decref(devs);
                return NULL;
        }
        const char *name = ctk_pci_vendor_name(r->d->vendor);
        json_object_set_new(o, "pci", json_string(r->d->bdf));
        (void)snprintf(hex, sizeof(hex), "0x%04x", r->d->vendor);
        json_object_set_new(o, "vendor_id", json_string(hex));
        json_object_set_new(o, "vendor", name != NULL ? json_string(name) : json_null());
        (void)snprintf(hex, sizeof(hex), "0x%04x", r->d->device);
        json_object_set_new(o, "device_id", json_string(hex));
        (void)snprintf(hex, sizeof(hex), "0x%06x", r->d->pci_class);
        json_object_set_new(o, "class", json_string(hex));
        json_object_set_new(o, "driver", r->d->driver != NULL ? json_string(r->d->driver) : json_null());
        json_object_set_new(o, "amd_manageable", json_boolean(r->why_not == NULL));
        json_object_set(o, "gpu_indices", r->idx);
        for (size_t i = 0; i < r->d->drm.n; i++)
                json_array_append_new(devs, json_string(r->d->drm.v[i]));
        json_object_set_new(o, "devices", devs);
        return o;
}

static int print_json(const struct row *rows, size_t n)
{
        _cleanup_json_ json_t *arr = json_array();
        if (arr == NULL)
                return -1;
        for (size_t i = 0; i < n; i++)
                if (json_array_append_new(arr, row_json(&rows[i])) < 0)
                        return -1;
        _cleanup_free_ char *s = json_dumps(arr, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        if (s == NULL)
                return -1;
        puts(s);
        return 0;
}

int ctk_gpu_list_all_vendors(struct ctk_cli *cli, bool json)
{
        _cleanup_error_ struct ctk_error *err = NULL;
        _cleanup_backend_ struct ctk_backend *b = NULL;
        _cleanup_gpu_list_ struct ctk_gpu_list gpus = {0};
        struct ctk_pci_display_list devs = {0};
        if (ctk_cli_open_backend(cli, &b, &err) < 0)
                return ctk_cli_fail(err);
        bool loaded = true;
        if (ctk_discover_gpus(b, &gpus, &err) < 0) {
                if (err->code != ENODEV) {
                        ctk_error_prefix(&err, "failed to list AMD devices");
                        return ctk_cli_fail(err);
                }
                loaded = false; /* still list the other vendors' devices */
                ctk_error_free(ctk_steal(&err));
        }
        if (ctk_pci_display_scan(b, &devs, &err) < 0) {
                ctk_error_prefix(&err, "failed to list PCI display devices");
                return ctk_cli_fail(err);
        }
        struct row *rows = calloc(devs.n + 1, sizeof(*rows));
        int rc = rows != NULL ? 0 : -1;
        for (size_t i = 0; rc == 0 && i < devs.n; i++)
                rc = fill_row(&rows[i], &devs.v[i], &gpus, loaded);
        if (rc == 0)
                rc = json ? print_json(rows, devs.n) : print_table(rows, devs.n);
        if (rows != NULL)
                rows_free(rows, devs.n);
        ctk_pci_display_list_clear(&devs);
        if (rc < 0) {
                struct ctk_error e = {.code = ENOMEM, .msg = (char *)"out of memory"};
                return ctk_cli_fail(&e);
        }
        return 0;
}
