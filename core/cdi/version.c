/* CDI spec versions and the minimum version a spec's content needs
 * (the rules of CDI's MinimumRequiredVersion). */
#include "cdi.h"

#include <string.h>

const char *const ctk_cdi_versions[] = {"0.1.0", "0.2.0", "0.3.0", "0.4.0", "0.5.0",
                                        "0.6.0", "0.7.0", "0.8.0", "1.0.0", "1.1.0"};
const size_t ctk_cdi_nversions = sizeof(ctk_cdi_versions) / sizeof(ctk_cdi_versions[0]);

enum { V030 = 2, V040 = 3, V050 = 4, V060 = 5, V070 = 6, V110 = 9 };

int ctk_cdi_version_index(const char *s)
{
        if (s == NULL)
                return -1;
        if (s[0] == 'v')
                s++;
        for (size_t i = 0; i < ctk_cdi_nversions; i++)
                if (strcmp(s, ctk_cdi_versions[i]) == 0)
                        return (int)i;
        return -1;
}

struct need {
        int version;
        const char *why;
};

static void require(struct need *n, int version, const char *why)
{
        if (version > n->version) {
                n->version = version;
                n->why = why;
        }
}

static bool nonempty_array(const json_t *j)
{
        return json_is_array(j) && json_array_size(j) > 0;
}
static bool nonempty_object(const json_t *j)
{
        return json_is_object(j) && json_object_size(j) > 0;
}

static bool is_letter(char c)
{
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

static bool nonempty_string(const json_t *j)
{
        return json_is_string(j) && json_string_length(j) > 0;
}

static void edits_need(const json_t *e, struct need *n)
{
        if (!json_is_object(e))
                return;
        size_t i;
        const json_t *x;
        json_array_foreach(json_object_get(e, "mounts"), i, x)
        {
                if (nonempty_string(json_object_get(x, "type")))
                        require(n, V040, "a mount with a type");
        }
        json_array_foreach(json_object_get(e, "deviceNodes"), i, x)
        {
                if (nonempty_string(json_object_get(x, "hostPath")))
                        require(n, V050, "a device node with hostPath");
        }
        const json_t *rdt = json_object_get(e, "intelRdt");
        if (rdt != NULL && !json_is_null(rdt))
                require(n, V070, "intelRdt");
        if (nonempty_array(json_object_get(e, "additionalGids")))
                require(n, V070, "additionalGids");
        if (nonempty_array(json_object_get(e, "netDevices")))
                require(n, V110, "netDevices");
        const json_t *schemata = json_object_get(rdt, "schemata");
        if (schemata != NULL && !json_is_null(schemata))
                require(n, V110, "intelRdt.schemata");
        if (json_is_true(json_object_get(rdt, "enableMonitoring")))
                require(n, V110, "intelRdt.enableMonitoring");
}

int ctk_cdi_min_version(const json_t *spec, const char **why)
{
        struct need n = {V030, NULL};
        size_t i;
        const json_t *d;

        edits_need(json_object_get(spec, "containerEdits"), &n);
        if (nonempty_object(json_object_get(spec, "annotations")))
                require(&n, V060, "annotations");
        const char *kind = json_string_value(json_object_get(spec, "kind"));
        const char *slash = kind != NULL ? strchr(kind, '/') : NULL;
        if (slash != NULL && slash != kind && strchr(slash + 1, '.') != NULL)
                require(&n, V060, "a dot in the class part of kind");
        json_array_foreach(json_object_get(spec, "devices"), i, d)
        {
                const char *name = json_string_value(json_object_get(d, "name"));
                if (name != NULL && name[0] != '\0' && !is_letter(name[0]))
                        require(&n, V050, "a device name that does not start with a letter");
                if (nonempty_object(json_object_get(d, "annotations")))
                        require(&n, V060, "annotations");
                edits_need(json_object_get(d, "containerEdits"), &n);
        }
        if (why != NULL)
                *why = n.why;
        return n.version;
}
