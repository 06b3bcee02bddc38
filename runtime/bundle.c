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

/* A \u escape of an upper-case letter or '_' (\u0040-\u005f): JSON lets a
 * spec spell the variable names that way. */
static bool has_name_escape(const char *data, size_t len)
{
        for (const char *p = data; (p = memmem(p, len - (size_t)(p - data), "\\u00", 4)) != NULL; p += 4) {
                size_t left = len - (size_t)(p - data);
                if (left >= 5 && (p[4] == '4' || p[4] == '5'))
                        return true;
        }
        return false;
}

bool rt_spec_may_request_gpus(const char *data, size_t len)
{
        static const char *const needles[] = {"AMD_VISIBLE_DEVICES", "DOCKER_RESOURCE_"};
        for (size_t i = 0; i < sizeof(needles) / sizeof(needles[0]); i++)
                if (memmem(data, len, needles[i], strlen(needles[i])) != NULL)
                        return true;
        return has_name_escape(data, len);
}
