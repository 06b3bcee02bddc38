/* CDI naming rules (vendor, class, device name, kind). */
#include "cdi.h"

#include <stdint.h>

#include <stdlib.h>
#include <string.h>

static bool is_alpha(char c)
{
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}
static bool is_alnum(char c)
{
        return is_alpha(c) || (c >= '0' && c <= '9');
}

/* first char ok, last char alphanumeric, middle chars alphanumeric or in extra */
static bool name_valid(const char *s, bool first_digit_ok, const char *extra)
{
        if (s == NULL || s[0] == '\0')
                return false;
        if (!(is_alpha(s[0]) || (first_digit_ok && is_alnum(s[0]))))
                return false;
        size_t n = strlen(s);
        if (n > 1 && !is_alnum(s[n - 1]))
                return false;
        for (size_t i = 1; i + 1 < n; i++)
                if (!is_alnum(s[i]) && strchr(extra, s[i]) == NULL)
                        return false;
        return true;
}

bool ctk_cdi_vendor_valid(const char *s)
{
        return name_valid(s, false, "_.-");
}
bool ctk_cdi_class_valid(const char *s)
{
        return name_valid(s, false, "_.-");
}
bool ctk_cdi_device_name_valid(const char *s)
{
        return name_valid(s, true, "_.:-");
}

int ctk_cdi_kind_split(const char *kind, char **vendor, char **class_)
{
        *vendor = NULL;
        *class_ = NULL;
        const char *slash = kind != NULL ? strchr(kind, '/') : NULL;
        if (slash == NULL || slash == kind || slash[1] == '\0')
                return -1;
        char *v = strndup(kind, (size_t)(slash - kind));
        char *c = strdup(slash + 1);
        if (v == NULL || c == NULL) {
                free(v);
                free(c);
                return -1;
        }
        *vendor = v;
        *class_ = c;
        return 0;
}

int ctk_cdi_gpu_name_mark(const struct ctk_gpu_list *gpus, const char *name, bool *marks)
{
        uint64_t uuid;
        size_t n = strlen(name);
        if (strcmp(name, CTK_CDI_ALL_DEVICE) == 0) {
                for (size_t i = 0; i < gpus->n; i++)
                        marks[i] = true;
                return 0;
        }
        if (name[0] == '0' && (name[1] == 'x' || name[1] == 'X') && ctk_uuid_parse(name, &uuid) == 0) {
                bool any = false;
                for (size_t i = 0; i < gpus->n; i++)
                        if (gpus->v[i].has_uuid && gpus->v[i].uuid == uuid)
                                any = marks[i] = true;
                return any ? 0 : -1;
        }
        if (n == 0 || n > 8 || strspn(name, "0123456789") != n)
                return -1;
        size_t i = strtoul(name, NULL, 10);
        if (i >= gpus->n)
                return -1;
        marks[i] = true;
        return 0;
}
