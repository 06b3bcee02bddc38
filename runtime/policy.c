/* Who may have GPUs and CDI devices (see policy.h). */
#include "policy.h"

#include <errno.h>
#include <string.h>

#include "core/cdi/cdi.h"

bool rt_policy_privileged(const json_t *spec)
{
        const json_t *bounding =
            json_object_get(json_object_get(json_object_get(spec, "process"), "capabilities"), "bounding");
        size_t i;
        const json_t *cap;
        json_array_foreach(bounding, i, cap)
        {
                const char *s = json_string_value(cap);
                if (s != NULL && strcmp(s, "CAP_SYS_ADMIN") == 0)
                        return true;
        }
        return false;
}

bool rt_policy_env_accepted(const struct ctk_config *cfg, const json_t *spec)
{
        return cfg->accept_env_unprivileged || rt_policy_privileged(spec);
}

int rt_policy_check_kinds(const struct ctk_config *cfg, const struct ctk_strv *names, const struct ctk_strv *sources,
                          struct ctk_error **err)
{
        for (size_t i = 0; i < names->n; i++) {
                const char *name = names->v[i];
                /* a name that is not one is refused by its resolution, saying so */
                if (!ctk_cdi_qualified_valid(name) || ctk_config_cdi_kind_allowed(&cfg->cdi_kinds, name))
                        continue;
                const char *eq = strchr(name, '=');
                int kind_len = eq != NULL ? (int)(eq - name) : (int)strlen(name);
                _cleanup_free_ char *kinds = ctk_strv_join(&cfg->cdi_kinds, ", ");
                const char *source = sources != NULL && i < sources->n ? sources->v[i] : NULL;
                return ctk_error_set(err, EPERM,
                                     "%s%s'%s' is a CDI device of kind %s, which this runtime does not resolve "
                                     "(config key cdi-kinds: %s); add the kind to cdi-kinds, or \"*\" for any kind",
                                     CTK_CUT(source != NULL ? source : ""), source != NULL ? ": " : "", CTK_CUT(name),
                                     CTK_CUTN(name, kind_len),
                                     CTK_CUT(kinds != NULL && kinds[0] != '\0' ? kinds : "none"));
        }
        return 0;
}
