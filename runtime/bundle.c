#include "bundle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *rt_spec_path(const struct rt_args *a)
{
        const char *file = a->config != NULL ? a->config : "config.json";
        const char *bundle = a->bundle != NULL && *a->bundle != '\0' ? a->bundle : ".";
        char *path = NULL;
        if (file[0] == '/')
                return strdup(file);
        if (asprintf(&path, "%s/%s", bundle, file) < 0)
                return NULL;
        return path;
}

/* The names that make a spec worth reading: the selection variables, and
 * the key prefix of CDI's request annotations (its '/' left out: JSON may
 * write it "\/"). */
static const char *const needles[] = {"AMD_VISIBLE_DEVICES", "DOCKER_RESOURCE_", "cdi.k8s.io"};

static int hex(char c)
{
        return c >= '0' && c <= '9'   ? c - '0'
               : c >= 'a' && c <= 'f' ? c - 'a' + 10
               : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                      : -1;
}

/* A \u00XX escape of a character of one of the needles: JSON lets a spec
 * spell those names that way.  (Go's escapes of <, > and & do not count.) */
static bool has_name_escape(const char *data, size_t len)
{
        for (const char *p = data; (p = memmem(p, len - (size_t)(p - data), "\\u00", 4)) != NULL; p += 4) {
                size_t left = len - (size_t)(p - data);
                if (left < 6 || hex(p[4]) < 0 || hex(p[5]) < 0)
                        continue;
                char c = (char)(hex(p[4]) * 16 + hex(p[5]));
                for (size_t i = 0; i < sizeof(needles) / sizeof(needles[0]); i++)
                        if (c != '\0' && strchr(needles[i], c) != NULL)
                                return true;
        }
        return false;
}

bool rt_spec_may_request_gpus(const char *data, size_t len)
{
        for (size_t i = 0; i < sizeof(needles) / sizeof(needles[0]); i++)
                if (memmem(data, len, needles[i], strlen(needles[i])) != NULL)
                        return true;
        return has_name_escape(data, len);
}
