/* Profile JSON -> the KFD topology beside node properties: link templates
 * (kfd_link_templates, then the built-in ones the driver's links follow),
 * memory bank and cache sets (kfd_mem_banks, kfd_caches), and each node's
 * io_links, p2p_links, mem_banks and caches. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/fakefs/kfd_links.h"
#include "backends/fakefs/kfd_props.h"
#include "backends/fakefs/profile_load.h"
#include "core/base/base.h"
#include "core/json/json.h"

static int load_link_templates(struct ctk_pj *c, json_t *root, struct ctk_fakefs_profile *p)
{
        json_t *obj = json_object_get(root, "kfd_link_templates");
        if (obj != NULL && ctk_pj_object(c, obj, "kfd_link_templates") < 0)
                return -1;
        size_t n = obj != NULL ? json_object_size(obj) : 0, nb = ctk_fakefs_builtin_link_count();
        p->link_templates = calloc(n + nb, sizeof(*p->link_templates));
        if (p->link_templates == NULL)
                return ctk_pj_oom(c);
        const char *key;
        json_t *v;
        json_object_foreach(obj, key, v)
        {
                AT(w, "kfd_link_templates", key);
                struct ctk_fakefs_template *t = &p->link_templates[p->nlink_templates++];
                if (ctk_pj_dup_str(c, key, &t->name) < 0 ||
                    ctk_pj_load_props(c, v, w, PROPS_CPU_OVERRIDE, &t->props) < 0)
                        return -1;
                if (ctk_fakefs_props_get(&t->props, "node_from") != NULL ||
                    ctk_fakefs_props_get(&t->props, "node_to") != NULL)
                        return ctk_pj_fail(c, w,
                                           "node_from and node_to are the link's ends; a template cannot "
                                           "name them");
        }
        for (size_t i = 0; i < nb; i++) {
                struct ctk_fakefs_template *t = &p->link_templates[p->nlink_templates++];
                if (ctk_fakefs_builtin_link(i, &t->name, &t->props) < 0)
                        return ctk_pj_oom(c);
        }
        return 0;
}

static int load_sets(struct ctk_pj *c, json_t *root, const char *what, enum props_kind kind,
                     struct ctk_fakefs_set **out, size_t *nout)
{
        json_t *obj = json_object_get(root, what);
        if (obj != NULL && ctk_pj_object(c, obj, what) < 0)
                return -1;
        size_t n = obj != NULL ? json_object_size(obj) : 0;
        *out = calloc(n + 1, sizeof(**out));
        if (*out == NULL)
                return ctk_pj_oom(c);
        const char *key;
        json_t *arr;
        json_object_foreach(obj, key, arr)
        {
                AT(w, what, key);
                struct ctk_fakefs_set *s = &(*out)[(*nout)++];
                if (ctk_pj_dup_str(c, key, &s->name) < 0)
                        return -1;
                if (!json_is_array(arr))
                        return ctk_pj_fail(c, w, "expected an array of property objects");
                s->items = calloc(json_array_size(arr) + 1, sizeof(*s->items));
                if (s->items == NULL)
                        return ctk_pj_oom(c);
                size_t i;
                json_t *o;
                json_array_foreach(arr, i, o)
                {
                        AT_INDEX(iw, w, i);
                        if (ctk_pj_load_props(c, o, iw, kind, &s->items[s->n++]) < 0)
                                return -1;
                }
        }
        return 0;
}

int ctk_pj_load_topology(struct ctk_pj *c, json_t *root, struct ctk_fakefs_profile *p)
{
        if (load_link_templates(c, root, p) < 0 ||
            load_sets(c, root, "kfd_mem_banks", PROPS_CPU_OVERRIDE, &p->bank_sets, &p->nbank_sets) < 0 ||
            load_sets(c, root, "kfd_caches", PROPS_CACHE, &p->cache_sets, &p->ncache_sets) < 0)
                return -1;
        return 0;
}

static const struct ctk_fakefs_template *find_link_template(const struct ctk_fakefs_profile *p, const char *name)
{
        for (size_t i = 0; i < p->nlink_templates; i++)
                if (strcmp(p->link_templates[i].name, name) == 0)
                        return &p->link_templates[i];
        return NULL;
}

static int by_node(const void *a, const void *b)
{
        const struct ctk_fakefs_link_ref *x = a, *y = b;
        return x->node < y->node ? -1 : x->node > y->node;
}

/* {"TEMPLATE": "NODES", ...}: links sorted by the node at their other end. */
static int load_links(struct ctk_pj *c, struct ctk_fakefs_profile *p, json_t *obj, const char *where, const char *key,
                      struct ctk_fakefs_links *out)
{
        json_t *links = json_object_get(obj, key);
        if (links == NULL)
                return 0;
        AT(w, where, key);
        if (ctk_pj_object(c, links, w) < 0)
                return -1;
        out->given = true;
        const char *name;
        json_t *v;
        json_object_foreach(links, name, v)
        {
                AT(lw, w, name);
                const struct ctk_fakefs_template *t = find_link_template(p, name);
                if (t == NULL)
                        return ctk_pj_fail(c, lw, "no link template \"%s\" in kfd_link_templates (nor built in)", name);
                _cleanup_free_ int *nodes = NULL;
                size_t n = 0;
                if (!json_is_string(v) || ctk_fakefs_parse_node_list(json_string_value(v), &nodes, &n) < 0)
                        return ctk_pj_fail(c, lw, "expected KFD node numbers like \"0\" or \"2-5,7\"");
                struct ctk_fakefs_link_ref *nv = realloc(out->v, (out->n + n + 1) * sizeof(*nv));
                if (nv == NULL)
                        return ctk_pj_oom(c);
                out->v = nv;
                for (size_t i = 0; i < n; i++)
                        out->v[out->n++] = (struct ctk_fakefs_link_ref){t, nodes[i]};
        }
        if (out->n > 1)
                qsort(out->v, out->n, sizeof(*out->v), by_node);
        for (size_t i = 1; i < out->n; i++)
                if (out->v[i].node == out->v[i - 1].node)
                        return ctk_pj_fail(c, w, "KFD node %d is linked twice", out->v[i].node);
        return 0;
}

static int find_set(struct ctk_pj *c, json_t *obj, const char *where, const char *key,
                    const struct ctk_fakefs_set *sets, size_t n, const char *list, const struct ctk_fakefs_set **out)
{
        const char *name = NULL;
        if (ctk_pj_string(c, obj, where, key, false, &name) < 0)
                return -1;
        if (name == NULL)
                return 0;
        for (size_t i = 0; i < n; i++)
                if (strcmp(sets[i].name, name) == 0) {
                        *out = &sets[i];
                        return 0;
                }
        AT(w, where, key);
        return ctk_pj_fail(c, w, "\"%s\" is not defined in %s", name, list);
}

int ctk_pj_load_extra(struct ctk_pj *c, struct ctk_fakefs_profile *p, json_t *obj, const char *where,
                      struct ctk_fakefs_node_extra *out)
{
        if (load_links(c, p, obj, where, "io_links", &out->io) < 0 ||
            load_links(c, p, obj, where, "p2p_links", &out->p2p) < 0 ||
            find_set(c, obj, where, "mem_banks", p->bank_sets, p->nbank_sets, "kfd_mem_banks", &out->banks) < 0 ||
            find_set(c, obj, where, "caches", p->cache_sets, p->ncache_sets, "kfd_caches", &out->caches) < 0)
                return -1;
        return 0;
}
