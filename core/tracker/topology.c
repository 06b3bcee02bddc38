#include "topology.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *str(const char *s)
{
        return s != NULL ? s : "";
}

static void uuid_text(bool has, uint64_t uuid, char buf[CTK_UUID_STRLEN])
{
        if (has)
                ctk_uuid_format(uuid, buf);
        else
                (void)snprintf(buf, CTK_UUID_STRLEN, "none");
}

static bool differ(char **why, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool differ(char **why, const char *fmt, ...)
{
        if (why != NULL) {
                va_list ap;
                va_start(ap, fmt);
                if (vasprintf(why, fmt, ap) < 0)
                        *why = NULL;
                va_end(ap);
        }
        return false;
}

bool ctk_tracker_topology_matches(const struct ctk_tracker_state *s, const struct ctk_gpu_list *gpus, char **why)
{
        size_t n = gpus != NULL ? gpus->n : 0;
        if (why != NULL)
                *why = NULL;
        if (s->ngpus != n)
                return differ(why, "%zu GPUs recorded, %zu found", s->ngpus, n);
        for (size_t i = 0; i < n; i++) {
                const struct ctk_tracker_gpu *r = &s->gpus[i];
                const struct ctk_gpu *g = &gpus->v[i];
                if (strcmp(str(r->pci), str(g->pci)) != 0)
                        return differ(why, "GPU %zu: PCI %s recorded, %s found", i, str(r->pci), str(g->pci));
                if (strcmp(str(r->partition), str(g->partition)) != 0)
                        return differ(why, "GPU %zu: partition \"%s\" recorded, \"%s\" found", i, str(r->partition),
                                      str(g->partition));
                if (r->has_uuid != g->has_uuid || (r->has_uuid && r->uuid != g->uuid)) {
                        char a[CTK_UUID_STRLEN], b[CTK_UUID_STRLEN];
                        uuid_text(r->has_uuid, r->uuid, a);
                        uuid_text(g->has_uuid, g->uuid, b);
                        return differ(why, "GPU %zu: UUID %s recorded, %s found", i, a, b);
                }
        }
        return true;
}
