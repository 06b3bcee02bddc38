/* amd-ctk gpu-tracker IDS exclusive|shared: the GPUs named by index, range,
 * all, or our CDI names are made exclusive or shared.  Messages are the Go
 * toolkit's, as in the user documentation. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_tracker.h"
#include "core/base/base.h"
#include "core/cdi/cdi.h"
#include "core/device/device.h"
#include "core/tracker/tracker.h"
#include "tracker_print.h"

static void selection_clearp(struct ctk_selection *s)
{
        ctk_selection_clear(s);
}

/* The GPU ids as the runtime reads them: plain tokens, and the names of
 * our CDI spec (amd.com/gpu=N, =0x<UUID>, =all) for the GPUs they name. */
static int parse_ids(const char *ids, const struct ctk_gpu_list *gpus, struct ctk_selection *sel,
                     struct ctk_error **err)
{
        struct ctk_strv names _cleanup_strv_ = {0};
        if (ctk_select_parse_names(ids, gpus, sel, &names, err) < 0)
                return -1;
        if (names.n == 0)
                return 0;
        _cleanup_free_ bool *marks = calloc(gpus->n + 1, sizeof(*marks));
        if (marks == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < sel->n; i++)
                marks[sel->idx[i]] = true;
        for (size_t i = 0; i < names.n; i++) {
                const char *n = names.v[i];
                if (strncmp(n, CTK_CDI_DEFAULT_KIND "=", strlen(CTK_CDI_DEFAULT_KIND) + 1) != 0)
                        return ctk_error_set(err, EINVAL,
                                             "'%s' is not a device of " CTK_CDI_DEFAULT_KIND
                                             ": the GPU Tracker knows AMD GPUs only",
                                             CTK_CUT(n));
                if (ctk_cdi_gpu_name_mark(gpus, n + strlen(CTK_CDI_DEFAULT_KIND) + 1, marks) < 0)
                        return ctk_error_set(err, ENOENT,
                                             "'%s' names no GPU of this host (its names are GPU indices, 0x<UUID> "
                                             "and all; 'amd-ctk cdi list' shows them)",
                                             CTK_CUT(n));
        }
        ctk_selection_clear(sel);
        sel->idx = calloc(gpus->n + 1, sizeof(*sel->idx));
        if (sel->idx == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < gpus->n; i++)
                if (marks[i])
                        sel->idx[sel->n++] = i;
        sel->kind = CTK_SELECT_LIST;
        return 0;
}

static void access_result_clearp(struct ctk_tracker_access_result *r)
{
        ctk_tracker_access_result_clear(r);
}

/* "GPUs [1 2] have been made exclusive" and/or "GPUs [3] have not been ...". */
static char *access_message(const struct ctk_tracker_access_result *r, enum ctk_tracker_access access)
{
        _cleanup_free_ char *changed = ctk_tracker_format_indices(r->changed, r->nchanged);
        _cleanup_free_ char *refused = ctk_tracker_format_indices(r->refused, r->nrefused);
        char *buf = NULL;
        size_t len = 0;
        FILE *f = changed && refused ? open_memstream(&buf, &len) : NULL;
        if (f == NULL)
                return NULL;
        if (r->nchanged > 0)
                fprintf(f, "GPUs %s have been made %s\n", changed,
                        access == CTK_TRACKER_EXCLUSIVE ? "exclusive" : "shared");
        if (r->nrefused > 0)
                fprintf(f,
                        "GPUs %s have not been made exclusive because more than one container is currently using it\n",
                        refused);
        if (fclose(f) != 0) {
                free(buf);
                return NULL;
        }
        return buf;
}

int ctk_cli_tracker_access_main(void *ctx, const struct ctk_cmdline *cl)
{
        struct ctk_cli *cli = ctx;
        const char *ids = cl->args[0], *op = cl->args[1];
        enum ctk_tracker_access access;
        if (strcmp(op, "exclusive") == 0)
                access = CTK_TRACKER_EXCLUSIVE;
        else if (strcmp(op, "shared") == 0)
                access = CTK_TRACKER_SHARED;
        else
                return ctk_cmdline_bad_value(cl, "accessibility", op, "exclusive or shared");
        int rc = ctk_cli_tracker_root(cl);
        if (rc != 0)
                return rc;
        _cleanup_error_ struct ctk_error *err = NULL;
        _cleanup_tracker_ struct ctk_tracker *t = NULL;
        _cleanup_gpu_list_ struct ctk_gpu_list gpus = {0};
        __attribute__((cleanup(selection_clearp))) struct ctk_selection sel = {0};
        __attribute__((cleanup(access_result_clearp))) struct ctk_tracker_access_result res = {0};
        bool enabled;
        if (ctk_cli_tracker_open(cli, &t, &err) < 0 || ctk_tracker_is_enabled(t, &enabled, &err) < 0)
                return ctk_cli_tracker_fail(cli, t, err);
        if (!enabled)
                return ctk_cli_tracker_print("GPU Tracker is disabled\n");
        if (ctk_cli_tracker_discover(cli, &gpus, &err) < 0 || parse_ids(ids, &gpus, &sel, &err) < 0)
                return ctk_cli_tracker_fail(cli, t, err);
        if (sel.kind == CTK_SELECT_UNSET)
                return ctk_cmdline_bad_value(cl, "gpu-ids", ids, "GPU ids, for example 0,1-2 or all");
        if (ctk_tracker_set_access(t, &gpus, sel.idx, sel.n, access, &res, &err) < 0)
                return ctk_cli_tracker_fail(cli, t, err);
        if (!res.enabled)
                return ctk_cli_tracker_print("GPU Tracker is disabled\n");
        _cleanup_free_ char *text = access_message(&res, access);
        return ctk_cli_tracker_print(text);
}
