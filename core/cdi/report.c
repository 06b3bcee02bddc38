/* Problem lines of the CDI validator, with the location of the value. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "walk.h"
#include "core/base/base.h"

void ctk_cdi_report_clear(struct ctk_cdi_report *r)
{
        ctk_strv_clear(&r->errors);
        ctk_strv_clear(&r->warnings);
        r->more_errors = r->more_warnings = 0;
}

void ctk_cdi_walk_key(struct ctk_cdi_walk *w, const char *key)
{
        if (w->depth < CTK_CDI_MAX_DEPTH)
                w->path[w->depth] = (struct ctk_json_step){.key = key};
        w->depth++;
}

void ctk_cdi_walk_index(struct ctk_cdi_walk *w, size_t index)
{
        if (w->depth < CTK_CDI_MAX_DEPTH)
                w->path[w->depth] = (struct ctk_json_step){.key = NULL, .index = index};
        w->depth++;
}

void ctk_cdi_walk_pop(struct ctk_cdi_walk *w)
{
        if (w->depth > 0)
                w->depth--;
}

void ctk_cdi_walk_member(struct ctk_cdi_walk *w, const json_t *obj, const char *key, json_type type,
                         void (*fn)(const json_t *, struct ctk_cdi_walk *))
{
        const json_t *v = json_object_get(obj, key);
        if (v == NULL || json_typeof(v) != type)
                return;
        ctk_cdi_walk_key(w, key);
        fn(v, w);
        ctk_cdi_walk_pop(w);
}

/* "devices[0].containerEdits" */
static void print_path(FILE *f, const struct ctk_cdi_walk *w)
{
        size_t n = w->depth < CTK_CDI_MAX_DEPTH ? w->depth : CTK_CDI_MAX_DEPTH;
        for (size_t i = 0; i < n; i++) {
                if (w->path[i].key != NULL)
                        fprintf(f, "%s%s", i > 0 ? "." : "", w->path[i].key);
                else
                        fprintf(f, "[%zu]", w->path[i].index);
        }
}

__attribute__((format(printf, 3, 0))) static void add(struct ctk_cdi_walk *w, bool warning, const char *fmt, va_list ap)
{
        struct ctk_strv *list = warning ? &w->rep->warnings : &w->rep->errors;
        if (list->n >= CTK_CDI_REPORT_MAX) {
                (*(warning ? &w->rep->more_warnings : &w->rep->more_errors))++;
                return;
        }
        _cleanup_free_ char *line = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&line, &len);
        if (f == NULL)
                return;
        const struct ctk_cdi_source *src = w->src;
        bool located = false;
        if (src != NULL && src->file != NULL) {
                fprintf(f, "%s:", src->file);
                located = true;
        }
        struct ctk_json_pos pos;
        if (src != NULL && src->text != NULL && w->depth <= CTK_CDI_MAX_DEPTH &&
            ctk_json_locate(src->text, src->len, w->path, w->depth, &pos) == 0) {
                fprintf(f, "%d:%d:", pos.line, pos.column);
                located = true;
        }
        if (located)
                fputc(' ', f);
        if (w->depth > 0) {
                print_path(f, w);
                fputs(": ", f);
        }
        _cleanup_free_ char *what = ctk_vformat(fmt, ap);
        fputs(what != NULL ? what : "?", f);
        if (fclose(f) != 0)
                return;
        ctk_cdi_report_push(list, ctk_steal(&line));
}

void ctk_cdi_report_push(struct ctk_strv *list, char *line)
{
        line = ctk_one_line(line);
        if (line != NULL)
                ctk_strv_push_take(list, line);
}

void ctk_cdi_error(struct ctk_cdi_walk *w, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        add(w, false, fmt, ap);
        va_end(ap);
        w->nerrors++;
}

void ctk_cdi_warn(struct ctk_cdi_walk *w, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        add(w, true, fmt, ap);
        va_end(ap);
}
