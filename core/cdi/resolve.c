/* Qualified names -> the edits to apply (see resolve.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdi.h"
#include "core/base/base.h"

void ctk_cdi_resolved_clear(struct ctk_cdi_resolved *r)
{
        for (size_t i = 0; i < r->n; i++)
                ctk_cdi_edits_clear(&r->edits[i]);
        free(r->edits);
        free(r->origins);
        free(r->entries);
        free(r->spec_of);
        *r = (struct ctk_cdi_resolved){0};
}

static bool seen_entry(const struct ctk_cdi_resolved *r, const struct ctk_cdi_entry *e)
{
        for (size_t i = 0; i < r->n; i++)
                if (r->entries[i] == e)
                        return true;
        return false;
}

static bool seen_spec(const struct ctk_cdi_resolved *r, size_t spec)
{
        for (size_t i = 0; i < r->n; i++)
                if (r->spec_of[i] == spec)
                        return true;
        return false;
}

/* Appends the edits of containerEdits ce as an origin (entry NULL: the spec's own). */
static int add(const struct ctk_cdi_cache *c, struct ctk_cdi_resolved *r, const struct ctk_cdi_entry *e, size_t spec,
               const json_t *ce, struct ctk_error **err)
{
        size_t i = r->n;
        if (ctk_cdi_edits_from_json(ce, &r->edits[i], err) < 0)
                return -1;
        r->origins[i] = (struct ctk_cdi_origin){
            .name = e != NULL ? e->name : c->specs[spec].kind, .file = c->specs[spec].path, .edits = &r->edits[i]};
        r->entries[i] = e;
        r->spec_of[i] = spec;
        r->n++;
        return 0;
}

/* "SOURCE: NAME: why" for the first unresolvable name, and the others named. */
static int unresolvable(const struct ctk_cdi_cache *c, const struct ctk_strv *names, const struct ctk_strv *sources,
                        const bool *bad, struct ctk_error **err)
{
        size_t first = SIZE_MAX, more = 0;
        _cleanup_free_ char *others = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&others, &len);
        if (f == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < names->n; i++) {
                if (!bad[i])
                        continue;
                if (first == SIZE_MAX)
                        first = i;
                else
                        fprintf(f, "%s%s", more++ > 0 ? ", " : "", names->v[i]);
        }
        if (fclose(f) != 0)
                return ctk_error_set(err, ENOMEM, "out of memory");
        const char *name = names->v[first];
        const char *source = sources != NULL && first < sources->n ? sources->v[first] : NULL;
        _cleanup_free_ char *why = ctk_cdi_qualified_valid(name)
                                       ? ctk_cdi_cache_why_missing(c, name)
                                       : strdup("not a fully qualified CDI device name (vendor/class=name, e.g. "
                                                "amd.com/gpu=0)");
        /* (why is a message: taken whole; the names are values) */
        ctk_error_set_msg(err, ENOENT, why != NULL ? why : "out of memory");
        ctk_error_prefix(err, "%s", CTK_CUT(name));
        if (source != NULL)
                ctk_error_prefix(err, "%s", CTK_CUT(source));
        if (more > 0)
                ctk_error_suffix(err, "; unresolvable too: %s", CTK_CUT(others));
        return -1;
}

int ctk_cdi_resolve(const struct ctk_cdi_cache *c, const struct ctk_strv *names, const struct ctk_strv *sources,
                    struct ctk_cdi_resolved *out, struct ctk_error **err)
{
        *out = (struct ctk_cdi_resolved){0};
        size_t cap = 2 * names->n + 1;
        _cleanup_free_ bool *bad = calloc(names->n + 1, sizeof(*bad));
        // NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers
        const struct ctk_cdi_entry **found = calloc(names->n + 1, sizeof(*found));
        // NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers
        out->edits = calloc(cap, sizeof(*out->edits));
        out->origins = calloc(cap, sizeof(*out->origins));
        // NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers
        out->entries = calloc(cap, sizeof(*out->entries));
        out->spec_of = calloc(cap, sizeof(*out->spec_of));
        if (bad == NULL || found == NULL || out->edits == NULL || out->origins == NULL || out->entries == NULL ||
            out->spec_of == NULL) {
                free(found);
                ctk_cdi_resolved_clear(out);
                return ctk_error_set(err, ENOMEM, "out of memory");
        }
        bool any_bad = false;
        for (size_t i = 0; i < names->n; i++) {
                found[i] = ctk_cdi_qualified_valid(names->v[i]) ? ctk_cdi_cache_find(c, names->v[i]) : NULL;
                bad[i] = found[i] == NULL;
                any_bad = any_bad || bad[i];
        }
        int r = any_bad ? unresolvable(c, names, sources, bad, err) : 0;
        for (size_t i = 0; r == 0 && i < names->n; i++) {
                const struct ctk_cdi_entry *e = found[i];
                if (e == NULL || seen_entry(out, e)) /* (r == 0: every name was found) */
                        continue;
                const json_t *own = json_object_get(c->specs[e->spec].doc->root, "containerEdits");
                if (own != NULL && !seen_spec(out, e->spec))
                        r = add(c, out, NULL, e->spec, own, err);
                if (r == 0)
                        r = add(c, out, e, e->spec, json_object_get(e->device, "containerEdits"), err);
        }
        free(found);
        if (r < 0)
                ctk_cdi_resolved_clear(out);
        return r;
}
