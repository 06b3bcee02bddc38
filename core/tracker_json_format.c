/* Writing the GPU tracker state file (form in tracker_state.h).
 *
 * Written by hand rather than through a jansson tree: this runs on every
 * container create and delete, and building then dumping a tree of
 * thousands of values costs several times more than printing them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "tracker_state.h"

/* Length of the valid UTF-8 sequence at s, or 0. */
static size_t utf8_len(const unsigned char *s)
{
        size_t n;
        unsigned int min;
        if (s[0] >= 0xc2 && s[0] <= 0xdf) {
                n = 2;
                min = 0x80;
        } else if (s[0] >= 0xe0 && s[0] <= 0xef) {
                n = 3;
                min = 0x800;
        } else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
                n = 4;
                min = 0x10000;
        } else {
                return 0;
        }
        unsigned int cp = s[0] & (0x7f >> n);
        for (size_t i = 1; i < n; i++) {
                if ((s[i] & 0xc0) != 0x80)
                        return 0;
                cp = (cp << 6) | (s[i] & 0x3f);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
                return 0;
        return n;
}

/* A JSON string; bytes that are not UTF-8 become U+FFFD (jansson, which
 * reads the file back, rejects them). */
static void put_string(FILE *f, const char *str)
{
        const unsigned char *s = (const unsigned char *)str;
        fputc('"', f);
        while (*s != '\0') {
                if (*s == '"' || *s == '\\') {
                        fputc('\\', f);
                        fputc(*s++, f);
                } else if (*s < 0x20) {
                        fprintf(f, "\\u%04x", *s++);
                } else if (*s < 0x80) {
                        fputc(*s++, f);
                } else {
                        size_t n = utf8_len(s);
                        if (n == 0) {
                                fputs("\xef\xbf\xbd", f); /* U+FFFD */
                                s++;
                        } else {
                                fwrite(s, 1, n, f);
                                s += n;
                        }
                }
        }
        fputc('"', f);
}

static void put_gpu(FILE *f, const struct ctk_tracker_gpu *g)
{
        fputs("{\"uuid\":", f);
        if (g->has_uuid) {
                char uuid[CTK_UUID_STRLEN];
                ctk_uuid_format(g->uuid, uuid);
                put_string(f, uuid);
        } else {
                fputs("null", f);
        }
        fputs(",\"pci\":", f);
        put_string(f, g->pci != NULL ? g->pci : "");
        fputs(",\"partition\":", f);
        put_string(f, g->partition != NULL ? g->partition : "");
        fputs(",\"drm\":[", f);
        for (size_t k = 0; k < g->drm.n; k++) {
                if (k > 0)
                        fputc(',', f);
                put_string(f, g->drm.v[k]);
        }
        fprintf(f, "],\"accessibility\":\"%s\"}", g->access == CTK_TRACKER_EXCLUSIVE ? "exclusive" : "shared");
}

/* Index of the container's runtime root in roots (distinct, in order of
 * first use), or -1 when unknown. */
static long root_index(const char **roots, size_t n, const char *root)
{
        if (root == NULL)
                return -1;
        for (size_t i = 0; i < n; i++)
                if (strcmp(roots[i], root) == 0)
                        return (long)i;
        return -1;
}

char *ctk_tracker_state_format(const struct ctk_tracker_state *s)
{
        _cleanup_free_ const char **roots = calloc(s->ncontainers + 1, sizeof(*roots));
        _cleanup_free_ long *root_of = calloc(s->ncontainers + 1, sizeof(*root_of));
        if (roots == NULL || root_of == NULL)
                return NULL;
        size_t nroots = 0;
        for (size_t i = 0; i < s->ncontainers; i++) {
                const char *r = s->containers[i].runtime_root;
                root_of[i] = root_index(roots, nroots, r);
                if (r != NULL && root_of[i] < 0) {
                        root_of[i] = (long)nroots;
                        roots[nroots++] = r;
                }
        }
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (f == NULL)
                return NULL;
        fprintf(f, "{\"version\":%d,\"enabled\":%s,\"bootId\":", CTK_TRACKER_STATE_VERSION,
                s->enabled ? "true" : "false");
        if (s->boot_id != NULL)
                put_string(f, s->boot_id);
        else
                fputs("null", f);
        fputs(",\"gpus\":[", f);
        for (size_t i = 0; i < s->ngpus; i++) {
                if (i > 0)
                        fputc(',', f);
                put_gpu(f, &s->gpus[i]);
        }
        fputs("],\"runtimeRoots\":[", f);
        for (size_t i = 0; i < nroots; i++) {
                if (i > 0)
                        fputc(',', f);
                put_string(f, roots[i]);
        }
        fputs("],\"containers\":[", f);
        for (size_t i = 0; i < s->ncontainers; i++) {
                const struct ctk_tracker_container *c = &s->containers[i];
                fputs(i > 0 ? ",[" : "[", f);
                put_string(f, c->id);
                fputs(",[", f);
                for (size_t k = 0; k < c->ngpus; k++)
                        fprintf(f, k > 0 ? ",%zu" : "%zu", c->gpus[k]);
                if (root_of[i] >= 0)
                        fprintf(f, "],%ld,%d,%llu]", root_of[i], (int)c->pid, c->pid_start);
                else
                        fprintf(f, "],null,%d,%llu]", (int)c->pid, c->pid_start);
        }
        fputs("]}\n", f);
        if (ferror(f)) {
                fclose(f);
                free(buf);
                return NULL;
        }
        if (fclose(f) != 0) {
                free(buf);
                return NULL;
        }
        return buf;
}
