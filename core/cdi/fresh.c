/* Does a CDI spec still describe this host?  Compares each device of the
 * spec with the device of the same name that `cdi generate` would write now. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdi.h"
#include "core/base/base.h"

struct fresh {
        struct ctk_cdi_report *rep;
        size_t nerrors;
};

static void problem(struct fresh *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(struct fresh *f, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        char *line = NULL;
        if (vasprintf(&line, fmt, ap) < 0)
                line = NULL;
        va_end(ap);
        if (line != NULL)
                ctk_strv_push_take(&f->rep->errors, line);
        f->nerrors++;
}

/* "12" -> 12; no sign, no leading zeros (those are not names we write). */
static bool index_name(const char *s, size_t *out)
{
        if (s == NULL || s[0] < '0' || s[0] > '9' || (s[0] == '0' && s[1] != '\0') || strlen(s) > 18)
                return false;
        size_t v = 0;
        for (const char *p = s; *p != '\0'; p++) {
                if (*p < '0' || *p > '9')
                        return false;
                v = v * 10 + (size_t)(*p - '0');
        }
        *out = v;
        return true;
}

static bool uuid_name(const char *s, uint64_t *out)
{
        return s != NULL && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && ctk_uuid_parse(s, out) == 0;
}

static const struct ctk_cdi_device *find_expected(const struct ctk_cdi_device_list *l, const char *name)
{
        uint64_t u, v;
        bool is_uuid = uuid_name(name, &u);
        for (size_t i = 0; i < l->n; i++) {
                if (strcmp(l->v[i].name, name) == 0)
                        return &l->v[i];
                if (is_uuid && uuid_name(l->v[i].name, &v) && u == v)
                        return &l->v[i];
        }
        return NULL;
}

static const char *node_host_path(const json_t *n)
{
        const char *hp = json_string_value(json_object_get(n, "hostPath"));
        return hp != NULL && hp[0] != '\0' ? hp : json_string_value(json_object_get(n, "path"));
}

#define MAX_LISTED 8 /* paths named per list; the rest are counted */

static bool expected_has(const struct ctk_cdi_device *d, const char *path)
{
        for (size_t k = 0; k < d->n; k++)
                if (strcmp(d->nodes[k]->path, path) == 0)
                        return true;
        return false;
}

static bool spec_has(const json_t *nodes, const char *path)
{
        size_t j;
        const json_t *n;
        json_array_foreach(nodes, j, n)
        {
                const char *p = node_host_path(n);
                if (p != NULL && strcmp(p, path) == 0)
                        return true;
        }
        return false;
}

/* Appends path to a list "a, b, c" of at most MAX_LISTED; returns the count. */
static size_t list_path(FILE *f, size_t count, const char *path)
{
        if (count < MAX_LISTED)
                fprintf(f, "%s%s", count > 0 ? ", " : "", path);
        return count + 1;
}

static void list_end(FILE *f, size_t count)
{
        if (count > MAX_LISTED)
                fprintf(f, " and %zu more", count - MAX_LISTED);
}

static char *join_expected(const struct ctk_cdi_device *d)
{
        char *s = NULL;
        size_t len = 0, count = 0;
        FILE *f = open_memstream(&s, &len);
        if (f == NULL)
                return NULL;
        for (size_t i = 0; i < d->n; i++)
                count = list_path(f, count, d->nodes[i]->path);
        list_end(f, count);
        if (fclose(f) != 0) {
                free(s);
                return NULL;
        }
        return s;
}

/* Node paths only in the spec and only on the host, for one device. */
static void compare_paths(const char *dev, const json_t *nodes, const struct ctk_cdi_device *d, struct fresh *f)
{
        _cleanup_free_ char *s = NULL;
        size_t len = 0, extra = 0, missing = 0, i;
        const json_t *n;
        FILE *m = open_memstream(&s, &len);
        if (m == NULL)
                return;
        json_array_foreach(nodes, i, n)
        {
                const char *p = node_host_path(n);
                if (p != NULL && !expected_has(d, p)) {
                        if (extra == 0)
                                fputs("in the spec but not on this host: ", m);
                        extra = list_path(m, extra, p);
                }
        }
        list_end(m, extra);
        for (i = 0; i < d->n; i++) {
                if (spec_has(nodes, d->nodes[i]->path))
                        continue;
                if (missing == 0)
                        fputs(extra > 0 ? "; on this host but not in the spec: " : "on this host but not in the spec: ",
                              m);
                missing = list_path(m, missing, d->nodes[i]->path);
        }
        list_end(m, missing);
        if (fclose(m) == 0 && extra + missing > 0)
                problem(f, "device %s: %s", dev, s);
}

static void compare_node(const char *dev, const json_t *n, const struct ctk_devnode *h, struct fresh *f)
{
        const char *type = json_string_value(json_object_get(n, "type"));
        if (type != NULL && type[0] != '\0' && (type[0] != h->type || type[1] != '\0'))
                problem(f, "device %s: %s is of type \"%c\" on this host, \"%s\" in the spec", dev, h->path, h->type,
                        type);
        json_int_t major = json_integer_value(json_object_get(n, "major"));
        json_int_t minor = json_integer_value(json_object_get(n, "minor"));
        if (major != 0 && (major != (json_int_t)h->major || minor != (json_int_t)h->minor))
                problem(f,
                        "device %s: %s is %u:%u on this host, %" JSON_INTEGER_FORMAT ":%" JSON_INTEGER_FORMAT
                        " in the spec",
                        dev, h->path, h->major, h->minor, major, minor);
        const json_t *mode = json_object_get(n, "fileMode");
        if (json_is_integer(mode) && json_integer_value(mode) != (json_int_t)(h->mode & 07777))
                problem(f, "device %s: %s has mode %04o on this host, %04llo in the spec", dev, h->path,
                        (unsigned)(h->mode & 07777), (unsigned long long)json_integer_value(mode));
        const json_t *uid = json_object_get(n, "uid");
        if (json_is_integer(uid) && json_integer_value(uid) != (json_int_t)h->uid)
                problem(f, "device %s: %s has owner %u on this host, %" JSON_INTEGER_FORMAT " in the spec", dev,
                        h->path, (unsigned)h->uid, json_integer_value(uid));
        const json_t *gid = json_object_get(n, "gid");
        if (json_is_integer(gid) && json_integer_value(gid) != (json_int_t)h->gid)
                problem(f, "device %s: %s has group %u on this host, %" JSON_INTEGER_FORMAT " in the spec", dev,
                        h->path, (unsigned)h->gid, json_integer_value(gid));
}

static void compare_gids(const char *dev, const json_t *spec_gids, const struct ctk_cdi_device *d, struct fresh *f)
{
        _cleanup_free_ gid_t *want = NULL;
        size_t n = 0;
        if (ctk_cdi_device_gids(d, &want, &n, NULL) < 0)
                return;
        bool same = json_array_size(spec_gids) == n;
        for (size_t i = 0; same && i < n; i++)
                same = json_integer_value(json_array_get(spec_gids, i)) == (json_int_t)want[i];
        if (same)
                return;
        _cleanup_free_ char *s = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&s, &len);
        if (m == NULL)
                return;
        size_t i;
        const json_t *g;
        json_array_foreach(spec_gids, i, g)
            fprintf(m, "%s%" JSON_INTEGER_FORMAT, i > 0 ? ", " : "", json_integer_value(g));
        fputs(" in the spec; this host's nodes need ", m);
        for (i = 0; i < n; i++)
                fprintf(m, "%s%u", i > 0 ? ", " : "", (unsigned)want[i]);
        if (n == 0)
                fputs("none", m);
        if (fclose(m) == 0)
                problem(f, "device %s: additionalGids %s", dev, s);
}

static void compare_device(const json_t *sd, const char *name, const struct ctk_cdi_device *d, struct fresh *f)
{
        const json_t *edits = json_object_get(sd, "containerEdits");
        const json_t *nodes = json_object_get(edits, "deviceNodes");
        compare_paths(name, nodes, d, f);
        size_t i;
        const json_t *n;
        json_array_foreach(nodes, i, n)
        {
                const char *p = node_host_path(n);
                for (size_t k = 0; p != NULL && k < d->n; k++) {
                        if (strcmp(d->nodes[k]->path, p) == 0) {
                                compare_node(name, n, d->nodes[k], f);
                                break;
                        }
                }
        }
        const json_t *gids = json_object_get(edits, "additionalGids");
        if (json_is_array(gids))
                compare_gids(name, gids, d, f);
}

static void report_unknown(const char *name, const struct ctk_cdi_host *h, struct fresh *f)
{
        size_t idx;
        uint64_t u;
        if (index_name(name, &idx) && h->n == 0)
                problem(f, "device %s is in the spec, but this host has no GPUs", name);
        else if (index_name(name, &idx))
                problem(f, "device %s is in the spec, but this host has GPUs 0-%zu only", name, h->n - 1);
        else if (uuid_name(name, &u))
                problem(f, "device %s is in the spec, but no GPU on this host has that UUID", name);
        else
                problem(f, "device \"%s\" is in the spec, but is not a GPU index, UUID or \"all\"", name);
}

size_t ctk_cdi_fresh_check(const json_t *spec, const struct ctk_cdi_host *h, struct ctk_cdi_report *rep)
{
        struct fresh f = {.rep = rep};
        const json_t *devices = json_object_get(spec, "devices");
        bool any_index = false, any_uuid = false;
        size_t i, idx;
        uint64_t u;
        const json_t *d;
        json_array_foreach(devices, i, d)
        {
                const char *name = json_string_value(json_object_get(d, "name"));
                any_index = any_index || index_name(name, &idx);
                any_uuid = any_uuid || uuid_name(name, &u);
        }
        struct ctk_cdi_device_list want = {0};
        if (ctk_cdi_host_devices(h, any_index || !any_uuid, any_uuid, &want, NULL) < 0) {
                problem(&f, "cannot list the CDI devices of this host: out of memory");
                return f.nerrors;
        }
        bool *matched = calloc(want.n, sizeof(*matched));
        if (matched == NULL) {
                ctk_cdi_device_list_clear(&want);
                problem(&f, "out of memory");
                return f.nerrors;
        }
        json_array_foreach(devices, i, d)
        {
                const char *name = json_string_value(json_object_get(d, "name"));
                if (name == NULL)
                        continue;
                const struct ctk_cdi_device *e = find_expected(&want, name);
                if (e == NULL) {
                        report_unknown(name, h, &f);
                        continue;
                }
                matched[e - want.v] = true;
                compare_device(d, name, e, &f);
        }
        for (i = 0; i < want.n; i++) {
                if (matched[i])
                        continue;
                _cleanup_free_ char *nodes = join_expected(&want.v[i]);
                problem(&f, "device %s is on this host (%s), but not in the spec", want.v[i].name,
                        nodes != NULL ? nodes : "?");
        }
        free(matched);
        ctk_cdi_device_list_clear(&want);
        return f.nerrors;
}
