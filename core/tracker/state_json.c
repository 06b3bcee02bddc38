/* The GPU tracker state file (form in state.h) <-> the model, through jansson. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/base.h"
#include "core/json/json.h"
#include "alloc.h"
#include "state.h"

static int get_string(json_t *obj, const char *key, const char **out, const char *where, struct ctk_error **err)
{
        json_t *v = json_object_get(obj, key);
        *out = NULL;
        if (v == NULL || json_is_null(v))
                return 0;
        if (!json_is_string(v))
                return ctk_error_set(err, EINVAL, "%s: \"%s\" must be a string", where, CTK_CUT(key));
        *out = json_string_value(v);
        return 0;
}

static int get_uint(json_t *v, unsigned long long max, unsigned long long *out)
{
        if (!json_is_integer(v) || json_integer_value(v) < 0 || (unsigned long long)json_integer_value(v) > max)
                return -1;
        *out = (unsigned long long)json_integer_value(v);
        return 0;
}

static int parse_gpu(json_t *v, size_t i, struct ctk_tracker_gpu *g, struct ctk_error **err)
{
        char where[64];
        (void)snprintf(where, sizeof(where), "GPU %zu", i);
        if (!json_is_object(v))
                return ctk_error_set(err, EINVAL, "%s must be an object", where);
        const char *uuid, *pci, *part, *acc;
        if (get_string(v, "uuid", &uuid, where, err) < 0 || get_string(v, "pci", &pci, where, err) < 0 ||
            get_string(v, "partition", &part, where, err) < 0 || get_string(v, "accessibility", &acc, where, err) < 0)
                return -1;
        if (uuid != NULL) {
                if (ctk_uuid_parse(uuid, &g->uuid) < 0)
                        return ctk_error_set(err, EINVAL, "%s: invalid uuid \"%s\"", where, CTK_CUT(uuid));
                g->has_uuid = true;
        }
        if ((g->pci = strdup(pci != NULL ? pci : "")) == NULL ||
            (g->partition = strdup(part != NULL ? part : "")) == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        if (acc != NULL && strcmp(acc, "exclusive") == 0)
                g->access = CTK_TRACKER_EXCLUSIVE;
        else if (acc != NULL && strcmp(acc, "shared") == 0)
                g->access = CTK_TRACKER_SHARED;
        else
                return ctk_error_set(err, EINVAL, "%s: \"accessibility\" must be \"shared\" or \"exclusive\"", where);
        json_t *drm = json_object_get(v, "drm");
        if (drm == NULL || json_is_null(drm))
                return 0;
        size_t k;
        json_t *d;
        if (!json_is_array(drm))
                return ctk_error_set(err, EINVAL, "%s: \"drm\" must be an array of strings", where);
        json_array_foreach(drm, k, d)
        {
                if (!json_is_string(d))
                        return ctk_error_set(err, EINVAL, "%s: \"drm\" must be an array of strings", where);
                if (ctk_strv_push(&g->drm, json_string_value(d)) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
        }
        return 0;
}

static int cmp_size(const void *a, const void *b)
{
        size_t x = *(const size_t *)a, y = *(const size_t *)b;
        return x < y ? -1 : x > y;
}

/* [id, [gpu...], root index | null, pid, pid start] */
static int parse_container(json_t *v, size_t i, const struct ctk_tracker_state *s, json_t *roots,
                           struct ctk_tracker_container *c, struct ctk_error **err)
{
        json_t *gpus = json_array_get(v, 1), *root = json_array_get(v, 2);
        unsigned long long pid, start;
        if (!json_is_array(v) || json_array_size(v) != 5 || !json_is_string(json_array_get(v, 0)) ||
            !json_is_array(gpus) || (!json_is_null(root) && !json_is_integer(root)) ||
            get_uint(json_array_get(v, 3), INT32_MAX, &pid) < 0 ||
            get_uint(json_array_get(v, 4), INT64_MAX, &start) < 0)
                return ctk_error_set(err, EINVAL,
                                     "container %zu must be [id, [GPU indices], runtime root index or null, pid, "
                                     "pid start time]",
                                     i);
        const char *id = json_string_value(json_array_get(v, 0));
        if (!ctk_tracker_valid_container_id(id))
                return ctk_error_set(err, EINVAL, "container %zu: invalid id \"%s\"", i, CTK_CUT(id));
        if ((c->id = strdup(id)) == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        c->pid = (pid_t)pid;
        c->pid_start = start;
        if (json_is_integer(root)) {
                json_t *r = json_array_get(roots, (size_t)json_integer_value(root));
                if (json_integer_value(root) < 0 || !json_is_string(r))
                        return ctk_error_set(err, EINVAL, "container %s: no runtime root %" JSON_INTEGER_FORMAT,
                                             CTK_CUT(id), json_integer_value(root));
                if ((c->runtime_root = strdup(json_string_value(r))) == NULL)
                        return ctk_error_set(err, ENOMEM, "out of memory");
        }
        size_t n = json_array_size(gpus);
        if (n > 0 && (c->gpus = calloc(n, sizeof(*c->gpus))) == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        for (size_t k = 0; k < n; k++) {
                unsigned long long g;
                if (get_uint(json_array_get(gpus, k), SIZE_MAX, &g) < 0 || g >= s->ngpus)
                        return ctk_error_set(err, EINVAL, "container %s: GPU indices must be below %zu", CTK_CUT(id),
                                             s->ngpus);
                c->gpus[k] = (size_t)g;
        }
        if (n > 1) /* c->gpus is NULL when n == 0 */
                qsort(c->gpus, n, sizeof(*c->gpus), cmp_size);
        for (size_t k = 0; k < n; k++)
                if (c->ngpus == 0 || c->gpus[c->ngpus - 1] != c->gpus[k])
                        c->gpus[c->ngpus++] = c->gpus[k];
        return 0;
}

static int cmp_id(const void *a, const void *b)
{
        return strcmp((*(const struct ctk_tracker_container *const *)a)->id,
                      (*(const struct ctk_tracker_container *const *)b)->id);
}

/* Sorting, not pairwise comparison: the state may list thousands. */
static int check_unique_ids(const struct ctk_tracker_state *s, struct ctk_error **err)
{
        if (s->ncontainers < 2)
                return 0;
        // NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers
        _cleanup_free_ const struct ctk_tracker_container **v = calloc(s->ncontainers, sizeof(*v));
        if (v == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < s->ncontainers; i++)
                v[i] = &s->containers[i];
        if (s->ncontainers > 1) /* (qsort wants an array, even of none) */
                // NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers
                qsort(v, s->ncontainers, sizeof(*v), cmp_id);
        for (size_t i = 1; i < s->ncontainers; i++)
                if (strcmp(v[i - 1]->id, v[i]->id) == 0)
                        return ctk_error_set(err, EINVAL, "container %s is listed twice", CTK_CUT(v[i]->id));
        return 0;
}

static int parse_root(json_t *root, struct ctk_tracker_state *s, struct ctk_error **err)
{
        if (!json_is_object(root))
                return ctk_error_set(err, EINVAL, "the top level must be an object");
        json_t *version = json_object_get(root, "version");
        if (!json_is_integer(version) || json_integer_value(version) < 1)
                return ctk_error_set(err, EINVAL, "\"version\" must be a positive integer");
        if (json_integer_value(version) > CTK_TRACKER_STATE_VERSION)
                return ctk_error_set(err, EINVAL,
                                     "written by a newer toolkit (state version %" JSON_INTEGER_FORMAT
                                     ", this one reads %d)",
                                     json_integer_value(version), CTK_TRACKER_STATE_VERSION);
        json_t *en = json_object_get(root, "enabled");
        if (!json_is_boolean(en))
                return ctk_error_set(err, EINVAL, "\"enabled\" must be true or false");
        s->enabled = json_is_true(en);
        const char *boot;
        if (get_string(root, "bootId", &boot, "state", err) < 0)
                return -1;
        if (boot != NULL && (s->boot_id = strdup(boot)) == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        json_t *gpus = json_object_get(root, "gpus"), *roots = json_object_get(root, "runtimeRoots"),
               *cs = json_object_get(root, "containers");
        if (!json_is_array(gpus))
                return ctk_error_set(err, EINVAL, "\"gpus\" must be an array");
        if (roots != NULL && !json_is_array(roots))
                return ctk_error_set(err, EINVAL, "\"runtimeRoots\" must be an array of strings");
        if (cs != NULL && !json_is_array(cs))
                return ctk_error_set(err, EINVAL, "\"containers\" must be an array");
        size_t n = json_array_size(gpus), nc = json_array_size(cs);
        if (n > 0 && (s->gpus = calloc(n, sizeof(*s->gpus))) == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < n; i++) {
                s->ngpus = i + 1;
                if (parse_gpu(json_array_get(gpus, i), i, &s->gpus[i], err) < 0)
                        return -1;
        }
        if (nc > 0 && (s->containers = calloc(nc, sizeof(*s->containers))) == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < nc; i++) {
                s->ncontainers = i + 1; /* a half-parsed entry is freed with the rest */
                if (parse_container(json_array_get(cs, i), i, s, roots, &s->containers[i], err) < 0)
                        return -1;
        }
        return check_unique_ids(s, err);
}

int ctk_tracker_state_parse(const char *text, size_t len, struct ctk_tracker_state *out, struct ctk_error **err)
{
        memset(out, 0, sizeof(*out));
        json_error_t jerr;
        _cleanup_json_ json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
        if (root == NULL)
                return ctk_error_set(err, EINVAL, "line %d column %d: %s", jerr.line, jerr.column, jerr.text);
        if (parse_root(root, out, err) < 0) {
                ctk_tracker_state_clear(out);
                return -1;
        }
        return 0;
}

/* Appends v to the array a (NULL v: out of memory); false on failure. */
static bool push(json_t *a, json_t *v)
{
        return v != NULL && json_array_append_new(a, v) == 0;
}

static bool put(json_t *o, const char *key, json_t *v)
{
        return v != NULL && json_object_set_new_nocheck(o, key, v) == 0;
}

static json_t *gpu_json(const struct ctk_tracker_gpu *g)
{
        char uuid[CTK_UUID_STRLEN];
        if (g->has_uuid)
                ctk_uuid_format(g->uuid, uuid);
        _cleanup_json_ json_t *o = json_object(), *drm = json_array();
        if (o == NULL || drm == NULL)
                return NULL;
        for (size_t k = 0; k < g->drm.n; k++)
                if (!push(drm, ctk_json_string_lossy(g->drm.v[k])))
                        return NULL;
        if (!put(o, "uuid", g->has_uuid ? json_string(uuid) : json_null()) ||
            !put(o, "pci", ctk_json_string_lossy(g->pci != NULL ? g->pci : "")) ||
            !put(o, "partition", ctk_json_string_lossy(g->partition != NULL ? g->partition : "")) ||
            !put(o, "drm", json_incref(drm)) ||
            !put(o, "accessibility", json_string(g->access == CTK_TRACKER_EXCLUSIVE ? "exclusive" : "shared")))
                return NULL;
        return json_incref(o);
}

/* [id, [gpu...], root index | null, pid, pid start] */
static json_t *container_json(const struct ctk_tracker_container *c, json_t *roots)
{
        _cleanup_json_ json_t *gpus = json_array(), *root = NULL;
        if (gpus == NULL)
                return NULL;
        for (size_t k = 0; k < c->ngpus; k++)
                if (!push(gpus, json_integer((json_int_t)c->gpus[k])))
                        return NULL;
        if (c->runtime_root == NULL) {
                root = json_null();
        } else {
                size_t i, n = json_array_size(roots);
                for (i = 0; i < n; i++)
                        if (strcmp(json_string_value(json_array_get(roots, i)), c->runtime_root) == 0)
                                break;
                if (i == n && !push(roots, ctk_json_string_lossy(c->runtime_root)))
                        return NULL;
                root = json_integer((json_int_t)i);
        }
        return json_pack("[o,O,O,i,I]", ctk_json_string_lossy(c->id), gpus, root, (int)c->pid,
                         (json_int_t)c->pid_start);
}

char *ctk_tracker_state_format(const struct ctk_tracker_state *s)
{
        _cleanup_json_ json_t *gpus = json_array(), *roots = json_array(), *cs = json_array();
        if (gpus == NULL || roots == NULL || cs == NULL)
                return NULL;
        for (size_t i = 0; i < s->ngpus; i++)
                if (!push(gpus, gpu_json(&s->gpus[i])))
                        return NULL;
        for (size_t i = 0; i < s->ncontainers; i++)
                if (!push(cs, container_json(&s->containers[i], roots)))
                        return NULL;
        _cleanup_json_ json_t *root =
            json_pack("{s:i,s:b,s:o,s:O,s:O,s:O}", "version", CTK_TRACKER_STATE_VERSION, "enabled", s->enabled,
                      "bootId", s->boot_id != NULL ? ctk_json_string_lossy(s->boot_id) : json_null(), "gpus", gpus,
                      "runtimeRoots", roots, "containers", cs);
        if (root == NULL)
                return NULL;
        char *text = json_dumps(root, JSON_COMPACT);
        size_t n = text != NULL ? strlen(text) : 0;
        char *line = text != NULL ? realloc(text, n + 2) : NULL;
        if (line == NULL) {
                free(text);
                return NULL;
        }
        line[n] = '\n';
        line[n + 1] = '\0';
        return line;
}
