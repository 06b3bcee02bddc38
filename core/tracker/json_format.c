/* Writing the GPU tracker state file (form in tracker_state.h).
 *
 * Written by hand rather than through a jansson tree: this runs on every
 * container create and delete, and building then dumping a tree of
 * thousands of values costs several times more than printing them. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/base.h"
#include "core/json/json.h"
#include "state.h"

/* A JSON string; bytes that are not UTF-8 become U+FFFD (jansson, which
 * reads the file back, rejects them). */
static inline void put_string(struct ctk_json_out *o, const char *s)
{
        ctk_json_out_quote_str(o, s, CTK_JSON_ESC_FIX_UTF8);
}

static void put_gpu(struct ctk_json_out *o, const struct ctk_tracker_gpu *g)
{
        ctk_json_out_puts(o, "{\"uuid\":");
        if (g->has_uuid) {
                char uuid[CTK_UUID_STRLEN];
                ctk_uuid_format(g->uuid, uuid);
                put_string(o, uuid);
        } else {
                ctk_json_out_puts(o, "null");
        }
        ctk_json_out_puts(o, ",\"pci\":");
        put_string(o, g->pci != NULL ? g->pci : "");
        ctk_json_out_puts(o, ",\"partition\":");
        put_string(o, g->partition != NULL ? g->partition : "");
        ctk_json_out_puts(o, ",\"drm\":[");
        for (size_t k = 0; k < g->drm.n; k++) {
                if (k > 0)
                        ctk_json_out_put(o, ",", 1);
                put_string(o, g->drm.v[k]);
        }
        ctk_json_out_puts(o, g->access == CTK_TRACKER_EXCLUSIVE ? "],\"accessibility\":\"exclusive\"}"
                                                                : "],\"accessibility\":\"shared\"}");
}

/* Index of the container's runtime root in roots (distinct, in order of
 * first use), or -1 when unknown. */
static long root_index(const char **roots, size_t n, const char *root)
{
        if (root == NULL)
                return -1;
        for (size_t i = 0; i < n; i++)
                if (roots[i] == root || strcmp(roots[i], root) == 0) /* read states share them */
                        return (long)i;
        return -1;
}

static void put_container(struct ctk_json_out *o, const struct ctk_tracker_container *c, long root)
{
        ctk_json_out_put(o, "[", 1);
        put_string(o, c->id);
        ctk_json_out_put(o, ",[", 2);
        for (size_t k = 0; k < c->ngpus; k++) {
                if (k > 0)
                        ctk_json_out_put(o, ",", 1);
                ctk_json_out_uint(o, c->gpus[k]);
        }
        if (root >= 0) {
                ctk_json_out_put(o, "],", 2);
                ctk_json_out_uint(o, (unsigned long long)root);
        } else {
                ctk_json_out_put(o, "],null", 6);
        }
        ctk_json_out_put(o, ",", 1);
        if (c->pid < 0) /* never recorded so, but keep the text valid */
                ctk_json_out_put(o, "-", 1);
        ctk_json_out_uint(o, c->pid < 0 ? -(unsigned long long)c->pid : (unsigned long long)c->pid);
        ctk_json_out_put(o, ",", 1);
        ctk_json_out_uint(o, c->pid_start);
        ctk_json_out_put(o, "]", 1);
}

/* The length of containers[i]'s entry in the text the state was read
 * from, when it would be printed the same (it is unchanged and keeps its
 * runtime root index); 0 otherwise. */
static size_t as_read(const struct ctk_tracker_state *s, size_t i, const long *root_of)
{
        const struct ctk_tracker_container *c = &s->containers[i];
        if (s->source.data == NULL || c->text_len == 0 || c->text_root != root_of[i] || c->text_off > s->source.len ||
            c->text_len > s->source.len - c->text_off)
                return 0;
        return c->text_len;
}

char *ctk_tracker_state_format(const struct ctk_tracker_state *s)
{
        _cleanup_free_ const char **roots = calloc(s->ncontainers + 1, sizeof(*roots));
        _cleanup_free_ long *root_of = calloc(s->ncontainers + 1, sizeof(*root_of));
        if (roots == NULL || root_of == NULL)
                return NULL;
        size_t nroots = 0;
        for (size_t i = 0; i < s->ncontainers; i++) {
                const char *r = s->containers[i].runtime_root;
                root_of[i] = root_index(roots, nroots, r);
                if (r != NULL && root_of[i] < 0) {
                        root_of[i] = (long)nroots;
                        roots[nroots++] = r;
                }
        }
        /* Room for the usual entry sizes at once (it grows if needed). */
        struct ctk_json_out o = {0};
        ctk_json_out_reserve(&o, 4096 + s->ngpus * 256 + s->ncontainers * 160);
        ctk_json_out_puts(&o, "{\"version\":");
        ctk_json_out_uint(&o, CTK_TRACKER_STATE_VERSION);
        ctk_json_out_puts(&o, s->enabled ? ",\"enabled\":true,\"bootId\":" : ",\"enabled\":false,\"bootId\":");
        if (s->boot_id != NULL)
                put_string(&o, s->boot_id);
        else
                ctk_json_out_puts(&o, "null");
        ctk_json_out_puts(&o, ",\"gpus\":[");
        for (size_t i = 0; i < s->ngpus; i++) {
                if (i > 0)
                        ctk_json_out_put(&o, ",", 1);
                put_gpu(&o, &s->gpus[i]);
        }
        ctk_json_out_puts(&o, "],\"runtimeRoots\":[");
        for (size_t i = 0; i < nroots; i++) {
                if (i > 0)
                        ctk_json_out_put(&o, ",", 1);
                put_string(&o, roots[i]);
        }
        ctk_json_out_puts(&o, "],\"containers\":[");
        for (size_t i = 0; i < s->ncontainers; i++) {
                if (i > 0)
                        ctk_json_out_put(&o, ",", 1);
                size_t n = as_read(s, i, root_of);
                if (n == 0) {
                        put_container(&o, &s->containers[i], root_of[i]);
                        continue;
                }
                /* A run of entries that follow each other in the text
                 * read: copied at once. */
                const struct ctk_tracker_container *first = &s->containers[i];
                size_t end = first->text_off + n;
                while (i + 1 < s->ncontainers && s->containers[i + 1].text_off == end + 1 &&
                       (n = as_read(s, i + 1, root_of)) > 0) {
                        end += 1 + n;
                        i++;
                }
                ctk_json_out_put(&o, s->source.data + first->text_off, end - first->text_off);
        }
        ctk_json_out_puts(&o, "]}\n");
        return ctk_json_out_finish(&o, NULL);
}
