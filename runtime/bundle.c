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

/* The names that make a spec worth reading: the selection variables
 * (names.h; a prefix's kinds need not be known to find it) and the
 * annotation prefixes of the configuration. */

static int hex(char c)
{
        return c >= '0' && c <= '9'   ? c - '0'
               : c >= 'a' && c <= 'f' ? c - 'a' + 10
               : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                      : -1;
}

static bool in_needles(char c, const struct ctk_strv *prefixes)
{
        for (const struct ctk_selection_variable *v = ctk_selection_variables; v->name != NULL; v++)
                if (strchr(v->name, c) != NULL)
                        return true;
        for (size_t i = 0; i < prefixes->n; i++)
                if (strchr(prefixes->v[i], c) != NULL)
                        return true;
        return false;
}

/* A \u00XX escape of a character of one of the needles: JSON lets a spec
 * spell those names that way.  (Go's escapes of <, > and & do not count.) */
static bool has_name_escape(const char *data, size_t len, const struct ctk_strv *prefixes)
{
        for (const char *p = data; (p = memmem(p, len - (size_t)(p - data), "\\u00", 4)) != NULL; p += 4) {
                size_t left = len - (size_t)(p - data);
                if (left < 6 || hex(p[4]) < 0 || hex(p[5]) < 0)
                        continue;
                char c = (char)(hex(p[4]) * 16 + hex(p[5]));
                if (c != '\0' && in_needles(c, prefixes))
                        return true;
        }
        return false;
}

/* Whether the text holds prefix as JSON may write it: its longest part
 * without '/' (JSON may write '/' as "\/"); a prefix of slashes only
 * could be anywhere. */
static bool has_prefix(const char *data, size_t len, const char *prefix)
{
        const char *best = NULL;
        size_t best_n = 0;
        for (const char *p = prefix; *p != '\0';) {
                size_t n = strcspn(p, "/");
                if (n > best_n) {
                        best = p;
                        best_n = n;
                }
                p += n + (p[n] == '/');
        }
        return best == NULL || memmem(data, len, best, best_n) != NULL;
}

bool rt_spec_may_request_gpus(const char *data, size_t len, const struct ctk_strv *prefixes)
{
        for (const struct ctk_selection_variable *v = ctk_selection_variables; v->name != NULL; v++)
                if (memmem(data, len, v->name, strlen(v->name)) != NULL)
                        return true;
        for (size_t i = 0; i < prefixes->n; i++)
                if (has_prefix(data, len, prefixes->v[i]))
                        return true;
        return has_name_escape(data, len, prefixes);
}
