/* A growable vector of owned strings. Zero-initialise ({0}) before use. */
#ifndef CTK_STRV_H
#define CTK_STRV_H

#include <stdbool.h>
#include <stddef.h>

struct ctk_strv {
        char **v; /* v[n] is always NULL when v != NULL */
        size_t n;
        size_t cap;
};

int ctk_strv_push(struct ctk_strv *s, const char *str); /* copies str; -1 on ENOMEM */
int ctk_strv_push_take(struct ctk_strv *s, char *str);  /* takes ownership (freed on failure) */
void ctk_strv_sort(struct ctk_strv *s);                 /* strcmp order */
bool ctk_strv_contains(const struct ctk_strv *s, const char *str);
/* Whether a and b hold the same strings in the same order. */
bool ctk_strv_equal(const struct ctk_strv *a, const struct ctk_strv *b);
/* The strings joined with sep ("" for none), newly allocated; NULL on ENOMEM. */
char *ctk_strv_join(const struct ctk_strv *s, const char *sep);
void ctk_strv_clear(struct ctk_strv *s); /* frees the strings and the array, leaves {0} */
/* a, b and c (NULL: "") concatenated into a new string; NULL on ENOMEM.  A
 * path join without printf's cost (discovery builds hundreds of paths). */
char *ctk_str_concat(const char *a, const char *b, const char *c);

/* Narrows s[0..*len) to its part without leading and trailing ASCII blanks
 * (space, \t, \n, \r, \v, \f); returns the new start. */
const char *ctk_str_trim(const char *s, size_t *len);

static inline void ctk_strv_clearp(struct ctk_strv *s)
{
        ctk_strv_clear(s);
}
#define _cleanup_strv_ __attribute__((cleanup(ctk_strv_clearp)))

#endif
