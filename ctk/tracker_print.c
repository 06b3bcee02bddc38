#include "tracker_print.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/base/base.h"
#include "core/json/json.h"

#define RULE                                                                                                           \
        "------------------------------------------------------------------------------------------------------------" \
        "------------"

static const char *access_name(enum ctk_tracker_access a)
{
        return a == CTK_TRACKER_EXCLUSIVE ? "Exclusive" : "Shared";
}

char *ctk_tracker_status_table(const struct ctk_tracker_state *st)
{
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (f == NULL)
                return NULL;
        fprintf(f, "%s\n%-10s%-25s%-20s%-65s\n%s\n", RULE, "GPU Id", "UUID", "Accessibility", "Container Ids", RULE);
        for (size_t i = 0; i < st->ngpus; i++) {
                const struct ctk_tracker_gpu *g = &st->gpus[i];
                char uuid[CTK_UUID_STRLEN] = "N/A";
                if (g->has_uuid)
                        ctk_uuid_format(g->uuid, uuid);
                size_t shown = 0;
                for (size_t c = 0; c < st->ncontainers; c++) {
                        if (!ctk_tracker_container_holds(&st->containers[c], i))
                                continue;
                        if (shown++ == 0)
                                fprintf(f, "%-10zu%-25s%-20s%-65s\n", i, uuid, access_name(g->access),
                                        st->containers[c].id);
                        else
                                fprintf(f, "%-10s%-25s%-20s%-65s\n", "", "", "", st->containers[c].id);
                }
                if (shown == 0)
                        fprintf(f, "%-10zu%-25s%-20s%-65s\n", i, uuid, access_name(g->access), "-");
        }
        if (fclose(f) != 0) {
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
