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
        ctk_cdi_report_push(&f->rep->errors, line);
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

#define MAX_LISTED 8 /* paths named per list; the rest are counted */

static const char *host_path(const struct ctk_cdi_node *n)
{
        return n->host_path != NULL ? n->host_path : n->path;
}

/* The node of edits at host path, or NULL. */
static const struct ctk_cdi_node *node_at(const struct ctk_cdi_edits *e, const char *path)
{
        for (size_t k = 0; path != NULL && k < e->nnodes; k++)
                if (strcmp(host_path(&e->nodes[k]), path) == 0)
                        return &e->nodes[k];
        return NULL;
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

static char *join_paths(const struct ctk_cdi_edits *e)
{
        char *s = NULL;
        size_t len = 0, count = 0;
        FILE *f = open_memstream(&s, &len);
        if (f == NULL)
                return NULL;
        for (size_t i = 0; i < e->nnodes; i++)
                count = list_path(f, count, host_path(&e->nodes[i]));
        list_end(f, count);
        if (fclose(f) != 0) {
                free(s);
                return NULL;
        }
        return s;
}

/* Node paths only in the spec (have) and only on the host (want), for one device. */
static void compare_paths(const char *dev, const struct ctk_cdi_edits *have, const struct ctk_cdi_edits *want,
                          struct fresh *f)
{
        _cleanup_free_ char *s = NULL;
        size_t len = 0, extra = 0, missing = 0;
        FILE *m = open_memstream(&s, &len);
        if (m == NULL)
                return;
        for (size_t i = 0; i < have->nnodes; i++) {
                const char *p = host_path(&have->nodes[i]);
                if (node_at(want, p) != NULL)
                        continue;
                if (extra == 0)
                        fputs("in the spec but not on this host: ", m);
                extra = list_path(m, extra, p);
        }
        list_end(m, extra);
        for (size_t i = 0; i < want->nnodes; i++) {
                const char *p = host_path(&want->nodes[i]);
                if (node_at(have, p) != NULL)
                        continue;
                if (missing == 0)
                        fputs(extra > 0 ? "; on this host but not in the spec: " : "on this host but not in the spec: ",
                              m);
                missing = list_path(m, missing, p);
        }
        list_end(m, missing);
        if (fclose(m) == 0 && extra + missing > 0)
                problem(f, "device %s: %s", dev, s);
}

/* What the spec states of a node (have) against the device model (want). */
static void compare_node(const char *dev, const struct ctk_cdi_node *n, const struct ctk_cdi_node *h, struct fresh *f)
{
        const char *path = host_path(h);
        if (n->type != '\0' && n->type != h->type)
                problem(f, "device %s: %s is of type \"%c\" on this host, \"%c\" in the spec", dev, path, h->type,
                        n->type);
        if (n->major != 0 && (n->major != h->major || n->minor != h->minor))
                problem(f, "device %s: %s is %" PRId64 ":%" PRId64 " on this host, %" PRId64 ":%" PRId64 " in the spec",
                        dev, path, h->major, h->minor, n->major, n->minor);
        if (n->has_mode && n->mode != h->mode)
                problem(f, "device %s: %s has mode %04o on this host, %04llo in the spec", dev, path, (unsigned)h->mode,
                        (unsigned long long)n->mode);
        if (n->has_uid && n->uid != h->uid)
                problem(f, "device %s: %s has owner %u on this host, %u in the spec", dev, path, (unsigned)h->uid,
                        (unsigned)n->uid);
        if (n->has_gid && n->gid != h->gid)
                problem(f, "device %s: %s has group %u on this host, %u in the spec", dev, path, (unsigned)h->gid,
                        (unsigned)n->gid);
}

size_t ctk_cdi_node_compare(const char *dev, const struct ctk_cdi_node *spec, const struct ctk_cdi_node *host,
                            struct ctk_cdi_report *rep)
{
        struct fresh f = {.rep = rep};
        compare_node(dev, spec, host, &f);
        return f.nerrors;
}

static void compare_gids(const char *dev, const struct ctk_cdi_edits *have, const struct ctk_cdi_edits *want,
                         struct fresh *f)
{
        bool same = have->ngids == want->ngids;
        for (size_t i = 0; same && i < want->ngids; i++)
                same = have->gids[i] == want->gids[i];
        if (same)
                return;
        _cleanup_free_ char *s = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&s, &len);
        if (m == NULL)
                return;
        for (size_t i = 0; i < have->ngids; i++)
                fprintf(m, "%s%u", i > 0 ? ", " : "", (unsigned)have->gids[i]);
        fputs(" in the spec; this host's nodes need ", m);
        for (size_t i = 0; i < want->ngids; i++)
                fprintf(m, "%s%u", i > 0 ? ", " : "", (unsigned)want->gids[i]);
        if (want->ngids == 0)
                fputs("none", m);
        if (fclose(m) == 0)
                problem(f, "device %s: additionalGids %s", dev, s);
}

/* A device of the spec against what the device model gives for it now. */
static void compare_device(const json_t *sd, const char *name, const struct ctk_cdi_device *d, struct fresh *f)
{
        const json_t *ce = json_object_get(sd, "containerEdits");
        _cleanup_cdi_edits_ struct ctk_cdi_edits have = {0}, want = {0};
        if (ctk_cdi_edits_from_json(ce, &have, NULL) < 0 || ctk_cdi_device_edits(d, true, &want, NULL) < 0) {
                problem(f, "device %s: out of memory", name);
                return;
        }
        compare_paths(name, &have, &want, f);
        for (size_t i = 0; i < have.nnodes; i++) {
                const struct ctk_cdi_node *h = node_at(&want, host_path(&have.nodes[i]));
                if (h != NULL)
                        compare_node(name, &have.nodes[i], h, f);
        }
        if (json_is_array(json_object_get(ce, "additionalGids")))
                compare_gids(name, &have, &want, f);
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
                _cleanup_free_ char *nodes = NULL;
                struct ctk_cdi_edits e = {0};
                if (ctk_cdi_device_edits(&want.v[i], false, &e, NULL) == 0)
                        nodes = join_paths(&e);
                ctk_cdi_edits_clear(&e);
                problem(&f, "device %s is on this host (%s), but not in the spec", want.v[i].name,
                        nodes != NULL ? nodes : "?");
        }
        free(matched);
        ctk_cdi_device_list_clear(&want);
        return f.nerrors;
}
