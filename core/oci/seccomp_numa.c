/* Opening the NUMA memory-policy syscalls in a seccomp profile (see seccomp_numa.h).
 *
 * The profile is read into a plain view first (default action, architectures,
 * which of the wanted names existing rules already decide); only when all of
 * it is well formed is the one new rule appended. */
#include "seccomp_numa.h"

#include <ctype.h>
#include <errno.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/base.h"
#include "core/json/json.h"

const char *const ctk_seccomp_numa_syscalls[] = {"get_mempolicy", "mbind", "set_mempolicy", "set_mempolicy_home_node",
                                                 NULL};

enum action_kind {
        ACTION_PERMITS, /* the call runs: SCMP_ACT_ALLOW, SCMP_ACT_LOG */
        ACTION_DEFERS,  /* a supervisor decides: SCMP_ACT_NOTIFY */
        ACTION_DENIES,  /* errno, signal, kill or tracer */
};

static const struct {
        const char *name;
        enum action_kind kind;
} actions[] = {
    {"SCMP_ACT_ALLOW", ACTION_PERMITS},       {"SCMP_ACT_LOG", ACTION_PERMITS}, {"SCMP_ACT_NOTIFY", ACTION_DEFERS},
    {"SCMP_ACT_ERRNO", ACTION_DENIES},        {"SCMP_ACT_KILL", ACTION_DENIES}, {"SCMP_ACT_KILL_THREAD", ACTION_DENIES},
    {"SCMP_ACT_KILL_PROCESS", ACTION_DENIES}, {"SCMP_ACT_TRAP", ACTION_DENIES}, {"SCMP_ACT_TRACE", ACTION_DENIES},
};

static int classify_action(const json_t *v, const char *where, const char *field, enum action_kind *out,
                           struct ctk_error **err)
{
        if (!json_is_string(v))
                return ctk_error_set(err, EINVAL, "%s.%s: expected an action string like \"SCMP_ACT_ERRNO\"", where,
                                     field);
        const char *s = json_string_value(v);
        for (size_t i = 0; i < sizeof(actions) / sizeof(actions[0]); i++) {
                if (strcmp(s, actions[i].name) == 0) {
                        *out = actions[i].kind;
                        return 0;
                }
        }
        return ctk_error_set(err, EINVAL, "%s.%s: unknown seccomp action \"%s\"", where, field, CTK_CUT(s));
}

/* The libseccomp token for an OCI/Docker architecture name ("SCMP_ARCH_X86_64"
 * -> "x86_64"); 0 when libseccomp does not know it. */
static uint32_t resolve_arch(const char *name)
{
        static const char prefix[] = "SCMP_ARCH_";
        if (strncmp(name, prefix, sizeof(prefix) - 1) != 0)
                return 0;
        _cleanup_free_ char *lower = strdup(name + sizeof(prefix) - 1);
        if (lower == NULL || lower[0] == '\0')
                return 0;
        for (char *p = lower; *p != '\0'; p++)
                *p = (char)tolower((unsigned char)*p);
        if (strcmp(lower, "native") == 0)
                return 0;
        return seccomp_arch_resolve_name(lower);
}

struct arch_list {
        uint32_t *v;
        size_t n;
        size_t listed; /* names seen, known or not */
};

static int arch_list_add(struct arch_list *a, const json_t *v, const char *where, struct ctk_error **err)
{
        if (!json_is_string(v))
                return ctk_error_set(err, EINVAL, "%s: expected an architecture name like \"SCMP_ARCH_X86_64\"", where);
        a->listed++;
        uint32_t token = resolve_arch(json_string_value(v));
        if (token == 0)
                return 0; /* unknown to libseccomp: it resolves no names */
        uint32_t *nv = realloc(a->v, (a->n + 1) * sizeof(*nv));
        if (nv == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        a->v = nv;
        a->v[a->n++] = token;
        return 0;
}

static int arch_list_add_array(struct arch_list *a, const json_t *arr, const char *where, const char *field,
                               struct ctk_error **err)
{
        if (arr == NULL || json_is_null(arr))
                return 0;
        if (!json_is_array(arr))
                return ctk_error_set(err, EINVAL, "%s.%s: expected an array of architecture names", where, field);
        size_t i;
        const json_t *v;
        json_array_foreach(arr, i, v)
        {
                _cleanup_free_ char *at = NULL;
                if (asprintf(&at, "%s.%s[%zu]", where, field, i) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
                if (arch_list_add(a, v, at, err) < 0)
                        return -1;
        }
        return 0;
}

/* Docker's "archMap": [{"architecture": A, "subArchitectures": [B, ...]}, ...] */
static int arch_list_add_map(struct arch_list *a, const json_t *map, const char *where, struct ctk_error **err)
{
        if (map == NULL || json_is_null(map))
                return 0;
        if (!json_is_array(map))
                return ctk_error_set(err, EINVAL, "%s.archMap: expected an array", where);
        size_t i;
        const json_t *entry;
        json_array_foreach(map, i, entry)
        {
                _cleanup_free_ char *at = NULL;
                if (asprintf(&at, "%s.archMap[%zu]", where, i) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
                if (!json_is_object(entry))
                        return ctk_error_set(err, EINVAL, "%s: expected an object", at);
                _cleanup_free_ char *arch_at = NULL;
                if (asprintf(&arch_at, "%s.architecture", at) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
                if (arch_list_add(a, json_object_get(entry, "architecture"), arch_at, err) < 0 ||
                    arch_list_add_array(a, json_object_get(entry, "subArchitectures"), at, "subArchitectures", err) < 0)
                        return -1;
        }
        return 0;
}

/* True when `name` is a syscall on at least one architecture of `a`. */
static bool known_syscall(const struct arch_list *a, const char *name)
{
        for (size_t i = 0; i < a->n; i++)
                if (seccomp_syscall_resolve_name_arch(a->v[i], name) != __NR_SCMP_ERROR)
                        return true;
        return false;
}

/* A Docker filter ("includes"/"excludes") that restricts nothing: absent, null,
 * or an object whose members are all null or empty. */
static int filter_is_empty(const json_t *f, const char *where, const char *field, bool *empty, struct ctk_error **err)
{
        *empty = true;
        if (f == NULL || json_is_null(f))
                return 0;
        if (!json_is_object(f))
                return ctk_error_set(err, EINVAL, "%s.%s: expected an object", where, field);
        const char *key;
        const json_t *v;
        json_object_foreach((json_t *)f, key, v)
        {
                bool blank = json_is_null(v) || (json_is_array(v) && json_array_size(v) == 0) ||
                             (json_is_string(v) && json_string_length(v) == 0) ||
                             (json_is_object(v) && json_object_size(v) == 0);
                if (!blank)
                        *empty = false;
        }
        return 0;
}

/* What the existing rules decide for each wanted name. */
enum decided {
        UNDECIDED = 0,
        ALLOWED,   /* an unconditional rule permits it */
        CONFIGURED /* a rule gives it another action: the author's choice, left alone */
};

static int rule_names(const json_t *rule, enum ctk_seccomp_format fmt, const char *at, struct ctk_strv *out,
                      struct ctk_error **err)
{
        const json_t *names = json_object_get(rule, "names");
        const json_t *name = fmt == CTK_SECCOMP_DOCKER ? json_object_get(rule, "name") : NULL;
        if ((names == NULL || json_is_null(names)) && name != NULL && !json_is_null(name)) {
                if (!json_is_string(name))
                        return ctk_error_set(err, EINVAL, "%s.name: expected a syscall name", at);
                return ctk_strv_push(out, json_string_value(name)) < 0 ? ctk_error_set(err, ENOMEM, "out of memory")
                                                                       : 0;
        }
        if (!json_is_array(names))
                return ctk_error_set(err, EINVAL, "%s.names: expected an array of syscall names", at);
        size_t i;
        const json_t *v;
        json_array_foreach(names, i, v)
        {
                if (!json_is_string(v))
                        return ctk_error_set(err, EINVAL, "%s.names[%zu]: expected a syscall name", at, i);
                if (ctk_strv_push(out, json_string_value(v)) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
        }
        return 0;
}

static int scan_rule(const json_t *rule, enum ctk_seccomp_format fmt, const char *at, const char *const *wanted,
                     enum decided *decided, struct ctk_error **err)
{
        if (!json_is_object(rule))
                return ctk_error_set(err, EINVAL, "%s: expected an object", at);
        _cleanup_strv_ struct ctk_strv names = {0};
        if (rule_names(rule, fmt, at, &names, err) < 0)
                return -1;
        enum action_kind kind;
        if (classify_action(json_object_get(rule, "action"), at, "action", &kind, err) < 0)
                return -1;
        const json_t *args = json_object_get(rule, "args");
        if (args != NULL && !json_is_null(args) && !json_is_array(args))
                return ctk_error_set(err, EINVAL, "%s.args: expected an array", at);
        bool no_includes, no_excludes;
        if (filter_is_empty(json_object_get(rule, "includes"), at, "includes", &no_includes, err) < 0 ||
            filter_is_empty(json_object_get(rule, "excludes"), at, "excludes", &no_excludes, err) < 0)
                return -1;
        bool unconditional = json_array_size(args) == 0 && no_includes && no_excludes;

        for (size_t w = 0; wanted[w] != NULL; w++) {
                if (!ctk_strv_contains(&names, wanted[w]))
                        continue;
                if (kind != ACTION_PERMITS)
                        decided[w] = CONFIGURED;
                else if (unconditional && decided[w] == UNDECIDED)
                        decided[w] = ALLOWED;
        }
        return 0;
}

static json_t *new_rule(const struct ctk_strv *names, enum ctk_seccomp_format fmt)
{
        _cleanup_json_ json_t *arr = json_array();
        if (arr == NULL)
                return NULL;
        for (size_t i = 0; i < names->n; i++)
                if (json_array_append_new(arr, json_string(names->v[i])) < 0)
                        return NULL;
        _cleanup_json_ json_t *rule = json_object();
        if (rule == NULL || json_object_set(rule, "names", arr) < 0 ||
            json_object_set_new(rule, "action", json_string("SCMP_ACT_ALLOW")) < 0)
                return NULL;
        if (fmt == CTK_SECCOMP_DOCKER &&
            json_object_set_new(rule, "comment",
                                json_string("amd-container-toolkit: NUMA memory policy for GPU containers")) < 0)
                return NULL;
        return ctk_steal(&rule);
}

int ctk_seccomp_allow_syscalls(json_t *profile, enum ctk_seccomp_format fmt, const char *where,
                               const char *const *names, bool *changed, struct ctk_error **err)
{
        *changed = false;
        if (!json_is_object(profile))
                return ctk_error_set(err, EINVAL, "%s: expected an object", where);

        enum action_kind def;
        if (classify_action(json_object_get(profile, "defaultAction"), where, "defaultAction", &def, err) < 0)
                return -1;

        struct arch_list arches = {0};
        _cleanup_free_ uint32_t *arch_mem = NULL;
        int r = arch_list_add_array(&arches, json_object_get(profile, "architectures"), where, "architectures", err);
        if (r == 0 && fmt == CTK_SECCOMP_DOCKER)
                r = arch_list_add_map(&arches, json_object_get(profile, "archMap"), where, err);
        arch_mem = arches.v; // NOLINT(clang-analyzer-deadcode.DeadStores): freed by its cleanup attribute
        if (r < 0)
                return -1;

        json_t *syscalls = json_object_get(profile, "syscalls");
        if (syscalls != NULL && !json_is_null(syscalls) && !json_is_array(syscalls))
                return ctk_error_set(err, EINVAL, "%s.syscalls: expected an array of rules", where);

        size_t nwanted = 0;
        while (names[nwanted] != NULL)
                nwanted++;
        _cleanup_free_ enum decided *decided = calloc(nwanted + 1, sizeof(*decided));
        if (decided == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        size_t i;
        const json_t *rule;
        json_array_foreach(syscalls, i, rule)
        {
                _cleanup_free_ char *at = NULL;
                if (asprintf(&at, "%s.syscalls[%zu]", where, i) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
                if (scan_rule(rule, fmt, at, names, decided, err) < 0)
                        return -1;
        }

        if (def != ACTION_DENIES)
                return 0;
        uint32_t native = seccomp_arch_native();
        if (arches.listed == 0) {
                arches.v = &native;
                arches.n = 1;
        }
        _cleanup_strv_ struct ctk_strv missing = {0};
        for (size_t w = 0; w < nwanted; w++)
                if (decided[w] == UNDECIDED && known_syscall(&arches, names[w]) &&
                    ctk_strv_push(&missing, names[w]) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
        if (missing.n == 0)
                return 0;

        _cleanup_json_ json_t *add = new_rule(&missing, fmt);
        if (add == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        if (syscalls == NULL || json_is_null(syscalls)) {
                _cleanup_json_ json_t *arr = json_array();
                if (arr == NULL || json_array_append(arr, add) < 0 || json_object_set(profile, "syscalls", arr) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
        } else if (json_array_append(syscalls, add) < 0) {
                return ctk_error_set(err, ENOMEM, "out of memory");
        }
        *changed = true;
        return 0;
}

int ctk_seccomp_numa_edit_spec(json_t *spec, bool *changed, struct ctk_error **err)
{
        *changed = false;
        if (!json_is_object(spec))
                return ctk_error_set(err, EINVAL, "OCI spec: expected a JSON object");
        json_t *linux_ = json_object_get(spec, "linux");
        if (linux_ == NULL || json_is_null(linux_))
                return 0;
        if (!json_is_object(linux_))
                return ctk_error_set(err, EINVAL, "linux: expected an object");
        json_t *seccomp = json_object_get(linux_, "seccomp");
        if (seccomp == NULL || json_is_null(seccomp))
                return 0;
        return ctk_seccomp_allow_syscalls(seccomp, CTK_SECCOMP_OCI, "linux.seccomp", ctk_seccomp_numa_syscalls, changed,
                                          err);
}

int ctk_seccomp_numa_edit_docker_profile(json_t *profile, bool *changed, struct ctk_error **err)
{
        return ctk_seccomp_allow_syscalls(profile, CTK_SECCOMP_DOCKER, "seccomp profile", ctk_seccomp_numa_syscalls,
                                          changed, err);
}
