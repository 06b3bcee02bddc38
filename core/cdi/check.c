/* CDI rules on the spec and its devices: version, kind, annotations, device
 * names, non-empty device edits.  Values of the wrong type were reported by
 * the shape check and are skipped here. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "walk.h"
#include "core/base/base.h"

#define ANNOTATIONS_MAX_TOTAL 262144 /* bytes of keys and values */

static void check_version(const json_t *doc, struct ctk_cdi_walk *w)
{
        const char *v = json_string_value(json_object_get(doc, "cdiVersion"));
        if (v == NULL)
                return;
        ctk_cdi_walk_key(w, "cdiVersion");
        int idx = ctk_cdi_version_index(v);
        const char *why = NULL;
        int min = ctk_cdi_min_version(doc, &why);
        if (idx < 0)
                ctk_cdi_error(w, "unknown CDI version \"%s\" (known: %s to %s; this spec needs at least %s)",
                              CTK_CUT(v), ctk_cdi_versions[2], ctk_cdi_versions[ctk_cdi_nversions - 1],
                              ctk_cdi_versions[min]);
        else if (idx < min && why != NULL)
                ctk_cdi_error(w, "version %s is too old: %s needs %s", CTK_CUT(v), why, ctk_cdi_versions[min]);
        else if (idx < min)
                ctk_cdi_error(w, "version %s is too old: the earliest usable version is %s", CTK_CUT(v),
                              ctk_cdi_versions[min]);
        ctk_cdi_walk_pop(w);
}

static void check_kind(const json_t *doc, struct ctk_cdi_walk *w)
{
        const char *kind = json_string_value(json_object_get(doc, "kind"));
        if (kind == NULL)
                return;
        ctk_cdi_walk_key(w, "kind");
        _cleanup_free_ char *vendor = NULL, *class_ = NULL;
        if (ctk_cdi_kind_split(kind, &vendor, &class_) < 0)
                ctk_cdi_error(w, "invalid kind \"%s\": must be vendor/class, e.g. amd.com/gpu", CTK_CUT(kind));
        else if (!ctk_cdi_vendor_valid(vendor))
                ctk_cdi_error(w,
                              "invalid vendor \"%s\" in kind: must start with a letter, end with a letter or digit "
                              "and contain only letters, digits, '_', '.' and '-'",
                              CTK_CUT(vendor));
        else if (!ctk_cdi_class_valid(class_))
                ctk_cdi_error(w,
                              "invalid class \"%s\" in kind: must start with a letter, end with a letter or digit "
                              "and contain only letters, digits, '_', '.' and '-'",
                              CTK_CUT(class_));
        ctk_cdi_walk_pop(w);
}

static bool dns_label_char(char c)
{
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
}

/* Kubernetes DNS subdomain: lower-case labels separated by dots, <= 253. */
static bool dns_subdomain(const char *s, size_t n)
{
        if (n == 0 || n > 253)
                return false;
        size_t start = 0;
        for (size_t i = 0; i <= n; i++) {
                if (i < n && s[i] != '.') {
                        if (!dns_label_char(s[i]))
                                return false;
                        continue;
                }
                if (i == start || s[start] == '-' || s[i - 1] == '-')
                        return false;
                start = i + 1;
        }
        return true;
}

static bool alnum(char c)
{
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* Kubernetes qualified name: [prefix/]name, name <= 63 chars of
 * ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]. */
static bool qualified_name(const char *key)
{
        const char *slash = strchr(key, '/');
        const char *name = key;
        if (slash != NULL) {
                if (strchr(slash + 1, '/') != NULL || !dns_subdomain(key, (size_t)(slash - key)))
                        return false;
                name = slash + 1;
        }
        size_t n = strlen(name);
        if (n == 0 || n > 63 || !alnum(name[0]) || !alnum(name[n - 1]))
                return false;
        for (size_t i = 0; i < n; i++)
                if (!alnum(name[i]) && strchr("-_.", name[i]) == NULL)
                        return false;
        return true;
}

/* CDI runtimes do not enforce these for JSON specs, so they are warnings. */
static void check_annotations(const json_t *obj, struct ctk_cdi_walk *w)
{
        const json_t *a = json_object_get(obj, "annotations");
        if (!json_is_object(a))
                return;
        ctk_cdi_walk_key(w, "annotations");
        size_t total = 0;
        const char *k;
        const json_t *v;
        json_object_foreach((json_t *)a, k, v)
        {
                total += strlen(k) + json_string_length(v);
                if (!qualified_name(k)) {
                        ctk_cdi_walk_key(w, k);
                        ctk_cdi_warn(w, "annotation key \"%s\" is not a qualified name ([prefix/]name)", CTK_CUT(k));
                        ctk_cdi_walk_pop(w);
                }
        }
        if (total > ANNOTATIONS_MAX_TOTAL)
                ctk_cdi_warn(w, "annotations total %zu bytes, more than the %d allowed", total, ANNOTATIONS_MAX_TOTAL);
        ctk_cdi_walk_pop(w);
}

static bool edits_empty(const json_t *e)
{
        static const char *const arrays[] = {"env", "deviceNodes", "mounts", "hooks", "additionalGids", "netDevices"};
        for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++)
                if (json_array_size(json_object_get(e, arrays[i])) > 0)
                        return false;
        const json_t *rdt = json_object_get(e, "intelRdt");
        return rdt == NULL || json_is_null(rdt);
}

struct named {
        const char *name;
        size_t index;
};

static int by_name(const void *a, const void *b)
{
        const struct named *x = a, *y = b;
        int c = strcmp(x->name, y->name);
        return c != 0 ? c : (x->index > y->index) - (x->index < y->index);
}

size_t *ctk_cdi_first_same(const char *const *names, size_t n)
{
        size_t *first = malloc((n + 1) * sizeof(*first));
        struct named *v = malloc((n + 1) * sizeof(*v));
        if (first == NULL || v == NULL) {
                free(first);
                free(v);
                return NULL;
        }
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
                first[i] = SIZE_MAX;
                if (names[i] != NULL && names[i][0] != '\0')
                        v[m++] = (struct named){.name = names[i], .index = i};
        }
        if (m > 1)
                qsort(v, m, sizeof(*v), by_name);
        for (size_t i = 1; i < m; i++) {
                if (strcmp(v[i - 1].name, v[i].name) == 0) /* the first of the run: the earliest */
                        first[v[i].index] = first[v[i - 1].index] != SIZE_MAX ? first[v[i - 1].index] : v[i - 1].index;
        }
        free(v);
        return first;
}

static void check_device(const json_t *d, size_t same_as, struct ctk_cdi_walk *w)
{
        const char *name = json_string_value(json_object_get(d, "name"));
        if (name != NULL) {
                ctk_cdi_walk_key(w, "name");
                if (!ctk_cdi_device_name_valid(name))
                        ctk_cdi_error(w,
                                      "invalid device name \"%s\": must start and end with a letter or digit and "
                                      "contain only letters, digits, '_', '.', ':' and '-'",
                                      CTK_CUT(name));
                if (same_as != SIZE_MAX)
                        ctk_cdi_error(w, "device name \"%s\" is already used by devices[%zu]", CTK_CUT(name), same_as);
                ctk_cdi_walk_pop(w);
        }
        check_annotations(d, w);
        const json_t *e = json_object_get(d, "containerEdits");
        if (json_is_object(e)) {
                ctk_cdi_walk_key(w, "containerEdits");
                if (edits_empty(e))
                        ctk_cdi_error(w, "a device needs at least one edit (env, deviceNodes, mounts, hooks, "
                                         "additionalGids, intelRdt or netDevices)");
                ctk_cdi_check_edits(e, w);
                ctk_cdi_walk_pop(w);
        }
}

void ctk_cdi_check_rules(const json_t *doc, struct ctk_cdi_walk *w)
{
        if (!json_is_object(doc))
                return;
        check_version(doc, w);
        check_kind(doc, w);
        check_annotations(doc, w);
        ctk_cdi_walk_member(w, doc, "containerEdits", JSON_OBJECT, ctk_cdi_check_edits);
        const json_t *devices = json_object_get(doc, "devices");
        if (!json_is_array(devices))
                return;
        ctk_cdi_walk_key(w, "devices");
        size_t n = json_array_size(devices);
        if (n == 0)
                ctk_cdi_error(w, "a spec needs at least one device");
        if (n > CTK_CDI_MAX_DEVICES) {
                ctk_cdi_error(w, "%zu devices, more than the %d a spec may have", n, CTK_CDI_MAX_DEVICES);
                ctk_cdi_walk_pop(w);
                return;
        }
        /* names seen twice: sorted once, not compared pairwise */
        _cleanup_free_ const char **names = calloc(n + 1, sizeof(*names));
        for (size_t i = 0; names != NULL && i < n; i++)
                names[i] = json_string_value(json_object_get(json_array_get(devices, i), "name"));
        _cleanup_free_ size_t *same = names != NULL ? ctk_cdi_first_same(names, n) : NULL;
        size_t i;
        const json_t *d;
        json_array_foreach(devices, i, d)
        {
                ctk_cdi_walk_index(w, i);
                if (json_is_object(d))
                        check_device(d, same != NULL && i < n ? same[i] : SIZE_MAX, w);
                ctk_cdi_walk_pop(w);
        }
        ctk_cdi_walk_pop(w);
}

size_t ctk_cdi_check(json_t *doc, const struct ctk_cdi_source *src, struct ctk_cdi_report *rep)
{
        struct ctk_cdi_walk w = {.src = src, .rep = rep};
        ctk_cdi_check_shape(doc, &w);
        ctk_cdi_check_rules(doc, &w);
        return w.nerrors;
}
