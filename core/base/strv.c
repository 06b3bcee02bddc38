#include "strv.h"

#include <stdlib.h>
#include <string.h>

int ctk_strv_push_take(struct ctk_strv *s, char *str)
{
        if (str == NULL)
                return -1;
        if (s->n + 2 > s->cap) {
                size_t cap = s->cap ? s->cap * 2 : 8;
                char **v = realloc(s->v, cap * sizeof(*v));
                if (v == NULL) {
                        free(str);
                        return -1;
                }
                s->v = v;
                s->cap = cap;
        }
        s->v[s->n++] = str;
        s->v[s->n] = NULL;
        return 0;
}

int ctk_strv_push(struct ctk_strv *s, const char *str)
{
        return ctk_strv_push_take(s, strdup(str));
}

static int cmp(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Short vectors (a GPU's drm/ directory has a handful of entries, and
 * discovery lists one per partition) by insertion: qsort's setup costs more
 * than the sort there. */
void ctk_strv_sort(struct ctk_strv *s)
{
        if (s->n > 16) {
                qsort(s->v, s->n, sizeof(*s->v), cmp);
                return;
        }
        for (size_t i = 1; i < s->n; i++) {
                char *x = s->v[i];
                size_t j = i;
                for (; j > 0 && strcmp(s->v[j - 1], x) > 0; j--)
                        s->v[j] = s->v[j - 1];
                s->v[j] = x;
        }
}

bool ctk_strv_contains(const struct ctk_strv *s, const char *str)
{
        for (size_t i = 0; i < s->n; i++)
                if (strcmp(s->v[i], str) == 0)
                        return true;
        return false;
}

bool ctk_strv_equal(const struct ctk_strv *a, const struct ctk_strv *b)
{
        if (a->n != b->n)
                return false;
        for (size_t i = 0; i < a->n; i++)
                if (strcmp(a->v[i], b->v[i]) != 0)
                        return false;
        return true;
}

char *ctk_strv_join(const struct ctk_strv *s, const char *sep)
{
        size_t seplen = strlen(sep), len = 0;
        for (size_t i = 0; i < s->n; i++)
                len += strlen(s->v[i]) + (i > 0 ? seplen : 0);
        char *out = malloc(len + 1), *p = out;
        if (out == NULL)
                return NULL;
        for (size_t i = 0; i < s->n; i++) {
                if (i > 0)
                        p = mempcpy(p, sep, seplen);
                p = stpcpy(p, s->v[i]);
        }
        *p = '\0';
        return out;
}

void ctk_strv_clear(struct ctk_strv *s)
{
        for (size_t i = 0; i < s->n; i++)
                free(s->v[i]);
        free(s->v);
        s->v = NULL;
        s->n = s->cap = 0;
}

char *ctk_str_concat(const char *a, const char *b, const char *c)
{
        size_t la = strlen(a), lb = strlen(b), lc = c != NULL ? strlen(c) : 0;
        char *s = malloc(la + lb + lc + 1);
        if (s == NULL)
                return NULL;
        memcpy(s, a, la);
        memcpy(s + la, b, lb);
        if (lc > 0)
                memcpy(s + la + lb, c, lc);
        s[la + lb + lc] = '\0';
        return s;
}

static bool is_blank(char c)
{
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

const char *ctk_str_trim(const char *s, size_t *len)
{
        while (*len > 0 && is_blank(s[0])) {
                s++;
                (*len)--;
        }
        while (*len > 0 && is_blank(s[*len - 1]))
                (*len)--;
        return s;
}
