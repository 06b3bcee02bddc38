/* The GPU tracker state file form (see tracker_state.h): parse and format. */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "tracker_state.h"

/* "0".."n-1" without sign, spaces or leading zeros. */
static int parse_index(const char *key, size_t n, size_t *out)
{
        if (key[0] == '\0' || (key[0] == '0' && key[1] != '\0'))
                return -1;
        size_t v = 0;
        for (const char *p = key; *p != '\0'; p++) {
                if (*p < '0' || *p > '9')
                        return -1;
                if (v > (SIZE_MAX - 9) / 10)
                        return -1;
                v = v * 10 + (size_t)(*p - '0');
        }
        if (v >= n)
                return -1;
        *out = v;
        return 0;
}

static int get_string(json_t *obj, const char *key, bool required, const char **out, const char *where,
                      struct ctk_error **err)
{
        json_t *v = json_object_get(obj, key);
        *out = NULL;
        if (v == NULL || json_is_null(v)) {
                if (required)
                        return ctk_error_set(err, EINVAL, "%s: \"%s\" is missing", where, key);
                return 0;
        }
        if (!json_is_string(v))
                return ctk_error_set(err, EINVAL, "%s: \"%s\" must be a string", where, key);
        *out = json_string_value(v);
        return 0;
}

static int get_uint(json_t *obj, const char *key, unsigned long long max, unsigned long long *out, const char *where,
                    struct ctk_error **err)
{
        json_t *v = json_object_get(obj, key);
        *out = 0;
        if (v == NULL || json_is_null(v))
                return 0;
        if (!json_is_integer(v) || json_integer_value(v) < 0 || (unsigned long long)json_integer_value(v) > max)
                return ctk_error_set(err, EINVAL, "%s: \"%s\" must be an integer between 0 and %llu", where, key, max);
        *out = (unsigned long long)json_integer_value(v);
        return 0;
}

static int get_strv(json_t *obj, const char *key, bool unique, struct ctk_strv *out, const char *where,
                    struct ctk_error **err)
{
        json_t *arr = json_object_get(obj, key);
        if (arr == NULL || json_is_null(arr))
                return 0;
        if (!json_is_array(arr))
                return ctk_error_set(err, EINVAL, "%s: \"%s\" must be an array of strings", where, key);
        size_t i;
        json_t *v;
        json_array_foreach(arr, i, v)
        {
                if (!json_is_string(v) || json_string_length(v) == 0)
                        return ctk_error_set(err, EINVAL, "%s: \"%s\" must be an array of non-empty strings", where,
                                             key);
                if (unique && ctk_strv_contains(out, json_string_value(v)))
                        continue; /* files of the Go toolkit may repeat an id */
                if (ctk_strv_push(out, json_string_value(v)) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
        }
        return 0;
}

static int parse_gpu_status(json_t *v, const char *where, struct ctk_tracker_gpu *g, struct ctk_error **err)
{
        if (!json_is_object(v))
                return ctk_error_set(err, EINVAL, "%s must be an object", where);
        const char *uuid, *part;
        if (get_string(v, "uuid", false, &uuid, where, err) < 0 ||
            get_string(v, "partitionType", false, &part, where, err) < 0)
                return -1;
        if (uuid != NULL && uuid[0] != '\0') {
                if (ctk_uuid_parse(uuid, &g->uuid) < 0)
                        return ctk_error_set(err, EINVAL, "%s: invalid uuid \"%s\"", where, uuid);
                g->has_uuid = true;
        }
        if ((g->partition = strdup(part != NULL ? part : "")) == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        json_t *acc = json_object_get(v, "accessibility");
        if (acc == NULL || !json_is_integer(acc) ||
            (json_integer_value(acc) != CTK_TRACKER_SHARED && json_integer_value(acc) != CTK_TRACKER_EXCLUSIVE))
                return ctk_error_set(err, EINVAL, "%s: \"accessibility\" must be 0 (shared) or 1 (exclusive)", where);
        g->access = (enum ctk_tracker_access)json_integer_value(acc);
        return get_strv(v, "containerIds", true, &g->holders, where, err);
}

static int parse_gpu_info(json_t *v, const char *where, struct ctk_tracker_gpu *g, struct ctk_error **err)
{
        if (!json_is_object(v))
                return ctk_error_set(err, EINVAL, "%s must be an object", where);
        const char *part, *pci;
        if (get_string(v, "PartitionType", false, &part, where, err) < 0 ||
            get_string(v, "pci", false, &pci, where, err) < 0)
                return -1;
        if (part != NULL) {
                free(g->partition);
                if ((g->partition = strdup(part)) == NULL)
                        return ctk_error_set(err, ENOMEM, "out of memory");
        }
        if ((g->pci = strdup(pci != NULL ? pci : "")) == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        return get_strv(v, "DrmDevices", false, &g->drm, where, err);
}

static int parse_gpus(json_t *root, struct ctk_tracker_state *s, struct ctk_error **err)
{
        json_t *status = json_object_get(root, "gpusStatus");
        json_t *info = json_object_get(root, "gpusInfo");
        if (status == NULL || !json_is_object(status))
                return ctk_error_set(err, EINVAL, "\"gpusStatus\" must be an object");
        if (info != NULL && !json_is_null(info) && !json_is_object(info))
                return ctk_error_set(err, EINVAL, "\"gpusInfo\" must be an object");
        size_t n = json_object_size(status);
        if (n > 0 && (s->gpus = calloc(n, sizeof(*s->gpus))) == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        s->ngpus = n;
        const char *key;
        json_t *v;
        json_object_foreach(status, key, v)
        {
                size_t i;
                char where[64];
                if (parse_index(key, n, &i) < 0)
                        return ctk_error_set(err, EINVAL, "\"gpusStatus\": unexpected GPU index \"%s\" (%zu GPUs)", key,
                                             n);
                snprintf(where, sizeof(where), "GPU %zu", i);
                if (parse_gpu_status(v, where, &s->gpus[i], err) < 0)
                        return -1;
        }
        for (size_t i = 0; i < n; i++) {
                char k[32], where[64];
                snprintf(k, sizeof(k), "%zu", i);
                snprintf(where, sizeof(where), "\"gpusInfo\" GPU %zu", i);
                json_t *gi = info != NULL ? json_object_get(info, k) : NULL;
                if (gi == NULL) {
                        if ((s->gpus[i].pci = strdup("")) == NULL)
                                return ctk_error_set(err, ENOMEM, "out of memory");
                } else if (parse_gpu_info(gi, where, &s->gpus[i], err) < 0) {
                        return -1;
                }
        }
        return 0;
}

static int parse_containers(json_t *root, struct ctk_tracker_state *s, struct ctk_error **err)
{
        json_t *cs = json_object_get(root, "containers");
        if (cs == NULL || json_is_null(cs))
                return 0;
        if (!json_is_object(cs))
                return ctk_error_set(err, EINVAL, "\"containers\" must be an object");
        size_t n = json_object_size(cs);
        if (n > 0 && (s->containers = calloc(n, sizeof(*s->containers))) == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        const char *id;
        json_t *v;
        json_object_foreach(cs, id, v)
        {
                struct ctk_tracker_container *c = &s->containers[s->ncontainers];
                _cleanup_free_ char *where = NULL;
                if (asprintf(&where, "container %s", id) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
                if (id[0] == '\0' || !json_is_object(v))
                        return ctk_error_set(err, EINVAL, "\"containers\": entry \"%s\" must be an object", id);
                const char *root_dir;
                unsigned long long pid, start;
                if (get_string(v, "runtimeRoot", false, &root_dir, where, err) < 0 ||
                    get_uint(v, "pid", INT32_MAX, &pid, where, err) < 0 ||
                    get_uint(v, "pidStart", INT64_MAX, &start, where, err) < 0)
                        return -1;
                if ((c->id = strdup(id)) == NULL)
                        return ctk_error_set(err, ENOMEM, "out of memory");
                s->ncontainers++;
                if (root_dir != NULL && (c->runtime_root = strdup(root_dir)) == NULL)
                        return ctk_error_set(err, ENOMEM, "out of memory");
                c->pid = (pid_t)pid;
                c->pid_start = start;
        }
        return 0;
}

static int parse_root(json_t *root, struct ctk_tracker_state *s, struct ctk_error **err)
{
        if (!json_is_object(root))
                return ctk_error_set(err, EINVAL, "the top level must be an object");
        unsigned long long version;
        if (get_uint(root, "version", INT32_MAX, &version, "state", err) < 0)
                return -1;
        if (version > CTK_TRACKER_STATE_VERSION)
                return ctk_error_set(err, EINVAL, "written by a newer toolkit (state version %llu, this one reads %d)",
                                     version, CTK_TRACKER_STATE_VERSION);
        json_t *en = json_object_get(root, "enabled");
        if (en == NULL || !json_is_boolean(en))
                return ctk_error_set(err, EINVAL, "\"enabled\" must be true or false");
        s->enabled = json_is_true(en);
        const char *boot;
        if (get_string(root, "bootId", false, &boot, "state", err) < 0)
                return -1;
        if (boot != NULL && (s->boot_id = strdup(boot)) == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        if (parse_gpus(root, s, err) < 0)
                return -1;
        return parse_containers(root, s, err);
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

/* Formatting: build the tree, then dump it.  Every json_*_new result is
 * checked through `set`, which takes ownership. */
static bool set(json_t *obj, const char *key, json_t *v)
{
        return v != NULL && json_object_set_new(obj, key, v) == 0;
}
static bool append(json_t *arr, json_t *v)
{
        return v != NULL && json_array_append_new(arr, v) == 0;
}

static json_t *strv_json(const struct ctk_strv *sv)
{
        json_t *a = json_array();
        for (size_t i = 0; a != NULL && i < sv->n; i++)
                if (!append(a, json_string(sv->v[i]))) {
                        json_decref(a);
                        return NULL;
                }
        return a;
}

static bool format_gpu(json_t *status, json_t *info, size_t i, const struct ctk_tracker_gpu *g)
{
        char key[32], uuid[CTK_UUID_STRLEN] = "";
        snprintf(key, sizeof(key), "%zu", i);
        if (g->has_uuid)
                ctk_uuid_format(g->uuid, uuid);
        json_t *st = json_object(), *in = json_object();
        bool ok = st != NULL && in != NULL && set(st, "uuid", json_string(uuid)) &&
                  set(st, "partitionType", json_string(g->partition)) &&
                  set(st, "accessibility", json_integer(g->access)) &&
                  set(st, "containerIds", strv_json(&g->holders)) && set(in, "DrmDevices", strv_json(&g->drm)) &&
                  set(in, "PartitionType", json_string(g->partition)) && set(in, "pci", json_string(g->pci));
        if (!ok) {
                json_decref(st);
                json_decref(in);
                return false;
        }
        return set(status, key, st) && set(info, key, in);
}

static bool format_container(json_t *cs, const struct ctk_tracker_container *c)
{
        json_t *o = json_object();
        bool ok = o != NULL && set(o, "runtimeRoot", c->runtime_root ? json_string(c->runtime_root) : json_null()) &&
                  set(o, "pid", json_integer(c->pid)) && set(o, "pidStart", json_integer((json_int_t)c->pid_start));
        if (!ok) {
                json_decref(o);
                return false;
        }
        return set(cs, c->id, o);
}

char *ctk_tracker_state_format(const struct ctk_tracker_state *s)
{
        _cleanup_json_ json_t *root = json_object();
        json_t *status = json_object(), *info = json_object(), *cs = json_object();
        bool ok = root != NULL && set(root, "version", json_integer(CTK_TRACKER_STATE_VERSION)) &&
                  set(root, "enabled", json_boolean(s->enabled)) &&
                  set(root, "bootId", s->boot_id ? json_string(s->boot_id) : json_null());
        ok = ok && set(root, "gpusStatus", json_incref(status)) && set(root, "gpusInfo", json_incref(info)) &&
             set(root, "containers", json_incref(cs));
        for (size_t i = 0; ok && i < s->ngpus; i++)
                ok = format_gpu(status, info, i, &s->gpus[i]);
        for (size_t i = 0; ok && i < s->ncontainers; i++)
                ok = format_container(cs, &s->containers[i]);
        json_decref(status);
        json_decref(info);
        json_decref(cs);
        if (!ok)
                return NULL;
        _cleanup_free_ char *text = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);
        if (text == NULL)
                return NULL;
        char *out = NULL;
        if (asprintf(&out, "%s\n", text) < 0)
                return NULL;
        return out;
}
