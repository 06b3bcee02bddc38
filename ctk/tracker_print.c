#include "tracker_print.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/base.h"
#include "core/json/json.h"
#include "table.h"

static const char *access_name(enum ctk_tracker_access a)
{
        return a == CTK_TRACKER_EXCLUSIVE ? "Exclusive" : "Shared";
}

/* The document's columns: GPU Id at 0, UUID at 10, Accessibility at 35,
 * Container Ids at 55. */
static const char *const head[] = {"GPU Id", "UUID", "Accessibility", "Container Ids"};
static const size_t width[] = {10, 25, 20};

char *ctk_tracker_status_table(const struct ctk_tracker_state *st)
{
        struct ctk_table t = {.ncols = 4, .head = head, .width = width};
        int rc = 0;
        for (size_t i = 0; rc == 0 && i < st->ngpus; i++) {
                const struct ctk_tracker_gpu *g = &st->gpus[i];
                char index[24], uuid[CTK_UUID_STRLEN] = "N/A";
                (void)snprintf(index, sizeof(index), "%zu", i);
                if (g->has_uuid)
                        ctk_uuid_format(g->uuid, uuid);
                size_t shown = 0;
                for (size_t c = 0; rc == 0 && c < st->ncontainers; c++) {
                        if (!ctk_tracker_container_holds(&st->containers[c], i))
                                continue;
                        char id[CTK_TRACKER_SHORT_ID + 1];
                        const char *full = st->containers[c].id;
                        if (strlen(full) > CTK_TABLE_WIDTH - 55)
                                (void)snprintf(id, sizeof(id), "%.*s", CTK_TRACKER_SHORT_ID, full);
                        const char *row[] = {shown == 0 ? index : "", shown == 0 ? uuid : "",
                                             shown == 0 ? access_name(g->access) : "",
                                             strlen(full) > CTK_TABLE_WIDTH - 55 ? id : full};
                        rc = ctk_table_add(&t, row);
                        shown++;
                }
                if (rc == 0 && shown == 0)
                        rc = ctk_table_add(&t, (const char *const[]){index, uuid, access_name(g->access), "-"});
        }
        char *buf = NULL;
        size_t len = 0;
        FILE *f = rc == 0 ? open_memstream(&buf, &len) : NULL;
        if (f != NULL)
                rc = ctk_table_print(f, &t);
        ctk_table_clear(&t);
        if (f == NULL || fclose(f) != 0 || rc < 0) {
                free(buf);
                return NULL;
        }
        return buf;
}

static json_t *gpu_json(const struct ctk_tracker_state *st, size_t i)
{
        const struct ctk_tracker_gpu *g = &st->gpus[i];
        char uuid[CTK_UUID_STRLEN];
        if (g->has_uuid)
                ctk_uuid_format(g->uuid, uuid);
        json_t *ids = json_array();
        for (size_t c = 0; ids != NULL && c < st->ncontainers; c++)
                if (ctk_tracker_container_holds(&st->containers[c], i) &&
                    json_array_append_new(ids, json_string(st->containers[c].id)) < 0) {
                        json_decref(ids);
                        return NULL;
                }
        if (ids == NULL)
                return NULL;
        return json_pack("{s:I, s:o, s:s, s:o}", "index", (json_int_t)i, "uuid",
                         g->has_uuid ? json_string(uuid) : json_null(), "accessibility",
                         g->access == CTK_TRACKER_EXCLUSIVE ? "exclusive" : "shared", "containers", ids);
}

char *ctk_tracker_status_json(const struct ctk_tracker_state *st)
{
        _cleanup_json_ json_t *gpus = json_array();
        for (size_t i = 0; gpus != NULL && st->enabled && i < st->ngpus; i++)
                if (json_array_append_new(gpus, gpu_json(st, i)) < 0)
                        return NULL;
        if (gpus == NULL)
                return NULL;
        _cleanup_json_ json_t *root = json_pack("{s:b, s:O}", "enabled", st->enabled, "gpus", gpus);
        if (root == NULL)
                return NULL;
        _cleanup_free_ char *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        char *out = NULL;
        if (text == NULL || asprintf(&out, "%s\n", text) < 0)
                return NULL;
        return out;
}

char *ctk_tracker_format_indices(const size_t *idx, size_t n)
{
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (f == NULL)
                return NULL;
        fputc('[', f);
        for (size_t i = 0; i < n; i++)
                fprintf(f, "%s%zu", i ? " " : "", idx[i]);
        fputc(']', f);
        if (fclose(f) != 0) {
                free(buf);
                return NULL;
        }
        return buf;
}
