/* What a container asks of CDI: fully qualified names, and the OCI
 * annotations through which containerd, CRI-O and Kubernetes device
 * plugins request devices (cdi.k8s.io/<key> = "vendor/class=name,...";
 * the prefixes are the configuration's, key cdi-annotation-prefixes). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cdi.h"
#include "core/base/base.h"
#include "core/json/json.h"

#define ANNOTATION_NAME_MAX 63

bool ctk_cdi_qualified_valid(const char *name)
{
        const char *eq = name != NULL ? strchr(name, '=') : NULL;
        if (eq == NULL || name[0] == '/')
                return false;
        _cleanup_free_ char *kind = strndup(name, (size_t)(eq - name));
        _cleanup_free_ char *vendor = NULL, *class_ = NULL;
        return kind != NULL && ctk_cdi_kind_split(kind, &vendor, &class_) == 0 && ctk_cdi_vendor_valid(vendor) &&
               ctk_cdi_class_valid(class_) && strchr(class_, '/') == NULL && ctk_cdi_device_name_valid(eq + 1);
}

static bool alnum(char c)
{
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* The part after the prefix: 1-63 characters, alphanumeric at both ends,
 * letters, digits, '_', '.' and '-' between. */
static bool annotation_name_valid(const char *s)
{
        size_t n = strlen(s);
        if (n == 0 || n > ANNOTATION_NAME_MAX || !alnum(s[0]) || !alnum(s[n - 1]))
                return false;
        for (size_t i = 1; i + 1 < n; i++)
                if (!alnum(s[i]) && s[i] != '_' && s[i] != '.' && s[i] != '-')
                        return false;
        return true;
}

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The first of prefixes key begins with, or NULL. */
static const char *prefix_of(const char *key, const struct ctk_strv *prefixes)
{
        for (size_t i = 0; i < prefixes->n; i++)
                if (strncmp(key, prefixes->v[i], strlen(prefixes->v[i])) == 0)
                        return prefixes->v[i];
        return NULL;
}

/* The keys of the request annotations, sorted. */
static int request_keys(const json_t *annotations, const struct ctk_strv *prefixes, struct ctk_strv *keys,
                        struct ctk_error **err)
{
        const char *key;
        const json_t *v;
        json_object_foreach((json_t *)annotations, key, v)
        {
                if (prefix_of(key, prefixes) != NULL && ctk_strv_push(keys, key) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
        }
        if (keys->n > 1)
                qsort(keys->v, keys->n, sizeof(*keys->v), cmp_str);
        return 0;
}

int ctk_cdi_annotation_names(const json_t *oci, const struct ctk_strv *prefixes, struct ctk_strv *names,
                             struct ctk_strv *sources, struct ctk_error **err)
{
        const json_t *annotations = json_object_get(oci, "annotations");
        if (annotations == NULL || json_is_null(annotations))
                return 0;
        if (!json_is_object(annotations))
                return ctk_error_set(err, EINVAL, "annotations is not an object");
        struct ctk_strv keys _cleanup_strv_ = {0};
        if (request_keys(annotations, prefixes, &keys, err) < 0)
                return -1;
        for (size_t i = 0; i < keys.n; i++) {
                const char *key = keys.v[i];
                const char *prefix = prefix_of(key, prefixes);
                if (!annotation_name_valid(key + strlen(prefix)))
                        return ctk_error_set(err, EINVAL,
                                             "annotation \"%s\": after %s comes a name of 1-63 letters, digits, '_', "
                                             "'.' and '-', beginning and ending with a letter or digit",
                                             CTK_CUT(key), CTK_CUT(prefix));
                const char *value = json_string_value(json_object_get(annotations, key));
                if (value == NULL)
                        return ctk_error_set(err, EINVAL, "annotation \"%s\" is not a string", CTK_CUT(key));
                _cleanup_free_ char *source = NULL;
                if (asprintf(&source, "annotation %s", key) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
                for (const char *p = value;;) {
                        const char *comma = strchr(p, ',');
                        _cleanup_free_ char *name = comma != NULL ? strndup(p, (size_t)(comma - p)) : strdup(p);
                        if (name == NULL)
                                return ctk_error_set(err, ENOMEM, "out of memory");
                        if (!ctk_cdi_qualified_valid(name))
                                return ctk_error_set(err, EINVAL,
                                                     "%s: \"%s\" is not a fully qualified CDI device name "
                                                     "(vendor/class=name, e.g. amd.com/gpu=0)",
                                                     CTK_CUT(source), CTK_CUT(name));
                        if (ctk_strv_push(names, name) < 0 || ctk_strv_push(sources, source) < 0)
                                return ctk_error_set(err, ENOMEM, "out of memory");
                        if (comma == NULL)
                                break;
                        p = comma + 1;
                }
        }
        return 0;
}

bool ctk_cdi_spec_requests_annotations(const json_t *oci, const struct ctk_strv *prefixes)
{
        const char *key;
        const json_t *v;
        json_object_foreach((json_t *)json_object_get(oci, "annotations"), key, v)
        {
                (void)v;
                if (prefix_of(key, prefixes) != NULL)
                        return true;
        }
        return false;
}
