/* A cursor over JSON text for the launcher's small readers (config_scan.c,
 * runc_state.c), which read only the parts they need, without jansson. */
#ifndef RT_LAUNCHER_SCAN_H
#define RT_LAUNCHER_SCAN_H

#include <stdbool.h>
#include <string.h>

struct scan {
        const char *p, *end;
};

static inline void skip_ws(struct scan *s)
{
        while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
                s->p++;
}

/* Consumes word when the text continues with it. */
static inline bool eat(struct scan *s, const char *word)
{
        size_t n = strlen(word);
        if ((size_t)(s->end - s->p) < n || memcmp(s->p, word, n) != 0)
                return false;
        s->p += n;
        return true;
}

#endif
