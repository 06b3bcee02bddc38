/* Who may have GPUs and CDI devices (see policy.h). */
#include "policy.h"

#include <errno.h>
#include <string.h>

#include "core/cdi/cdi.h"

/* Whether lnx (the spec's linux) lists a namespace of type "user". */
static bool has_user_namespace(const json_t *lnx)
{
        size_t i;
        const json_t *ns;
        json_array_foreach(json_object_get(lnx, "namespaces"), i, ns)
        {
                const char *type = json_string_value(json_object_get(ns, "type"));
                if (type != NULL && strcmp(type, "user") == 0)
                        return true;
        }
        return false;
}

/* Whether member of lnx (linux) is a mapping list with at least one entry. */
static bool has_mappings(const json_t *lnx, const char *member)
{
        const json_t *m = json_object_get(lnx, member);
        return json_is_array(m) && json_array_size(m) > 0;
}

enum rt_privilege rt_policy_privilege(const json_t *spec)
{
        const json_t *lnx = json_object_get(spec, "linux");
        if (has_user_namespace(lnx) || has_mappings(lnx, "uidMappings") || has_mappings(lnx, "gidMappings"))
                return RT_UNPRIVILEGED_USERNS;
        const json_t *bounding =
            json_object_get(json_object_get(json_object_get(spec, "process"), "capabilities"), "bounding");
        size_t i;
        const json_t *cap;
        json_array_foreach(bounding, i, cap)
        {
                const char *s = json_string_value(cap);
                if (s != NULL && strcmp(s, "CAP_SYS_ADMIN") == 0)
                        return RT_PRIVILEGED;
        }
        return RT_UNPRIVILEGED_CAPS;
}

const char *rt_policy_privilege_why(enum rt_privilege p)
{
        switch (p) {
        case RT_PRIVILEGED:
                return "privileged";
        case RT_UNPRIVILEGED_USERNS:
                return "unprivileged: user namespace (its CAP_SYS_ADMIN is not the host's)";
        case RT_UNPRIVILEGED_CAPS:
        default:
                return "unprivileged: CAP_SYS_ADMIN is not in its bounding set";
        }
}

bool rt_policy_env_accepted(const struct ctk_config *cfg, const json_t *spec)
{
        return cfg->accept_env_unprivileged || rt_policy_privilege(spec) == RT_PRIVILEGED;
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
                                     "(config key cdi-kinds: %s); add the kind to cdi-kinds, or [\"*\"] for any kind",
                                     CTK_CUT(source != NULL ? source : ""), source != NULL ? ": " : "", CTK_CUT(name),
                                     CTK_CUTN(name, kind_len),
                                     CTK_CUT(kinds != NULL && kinds[0] != '\0' ? kinds : "none"));
        }
        return 0;
}
