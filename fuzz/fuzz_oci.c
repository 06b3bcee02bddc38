/* The OCI spec edit: a config.json in, the edited one out (the runtime's
 * create without the host): parse, environment, device nodes (CDI's
 * replace-by-path rule), a group, the
 * seccomp NUMA rule, encode.  Whatever the input: an error or a spec that
 * parses again.  Differential with the quick look the runtime
 * takes first (rt_spec_may_request_gpus, on the raw text): a spec
 * whose environment names a selection variable, however JSON spells it,
 * is never taken for one that asks for no GPU.  And what runc takes that
 * jansson cannot hold (\u0000, uint64, 1e400, ...) comes back as it was.
 * And the count caps, small here: what the count over the bytes lets
 * through is within them in the document jansson builds (so what the
 * runtime builds is bounded by count); without a duplicated key, it
 * refuses exactly the specs over one. */
#include "fuzz.h"

#include "core/base/base.h"
#include "core/json/json.h"
#include "core/oci/oci.h"
#include "runtime/bundle.h"

/* the configuration's default annotation prefix */
static char *cdi_prefix_v[] = {(char *)CTK_CDI_ANNOTATION_PREFIX, NULL};
static const struct ctk_strv cdi_prefix = {.v = cdi_prefix_v, .n = 1};

static bool names_selection(const char *const *env, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (strncmp(env[i], "AMD_VISIBLE_DEVICES=", 20) == 0 || strncmp(env[i], "DOCKER_RESOURCE_", 16) == 0)
                        return true;
        return false;
}

/* What runc takes comes back as it was: the text encoded is encoded the
 * same after another parse (no literal lost or changed on the way); with
 * no literal set aside, it is json_dumps' text of jansson's own parse. */
static void check_literals(const char *text, size_t size, const json_t *spec, const struct ctk_oci_literals *lits)
{
        size_t len;
        _cleanup_free_ char *out = ctk_oci_spec_encode(spec, lits, &len);
        FUZZ_ASSERT(out != NULL && len > 0 && out[len - 1] == '\n');
        _cleanup_json_ json_t *again = NULL;
        _cleanup_oci_literals_ struct ctk_oci_literals lits2 = {0};
        FUZZ_ASSERT(ctk_oci_spec_parse(out, len, "out", &again, &lits2, NULL) == 0);
        _cleanup_free_ char *out2 = ctk_oci_spec_encode(again, &lits2, NULL);
        FUZZ_ASSERT(out2 != NULL && strcmp(out, out2) == 0);
        if (lits->n > 0)
                return;
        json_error_t jerr;
        _cleanup_json_ json_t *j = json_loadb(text, size, JSON_DECODE_ANY, &jerr);
        FUZZ_ASSERT(j != NULL);
        _cleanup_free_ char *want = json_dumps(j, JSON_COMPACT);
        FUZZ_ASSERT(want != NULL && strlen(want) + 1 == len && memcmp(out, want, len - 1) == 0);
}

static const struct ctk_oci_caps small_caps = {
    .env = 3, .annotations = 2, .mounts = 2, .devices = 2, .hooks = 3, .values = 64};

/* Members of an object or elements of an array (what the count counts). */
static size_t members(const json_t *v)
{
        return json_is_array(v) ? json_array_size(v) : json_is_object(v) ? json_object_size(v) : 0;
}

static size_t values(const json_t *v)
{
        size_t n = 1;
        if (json_is_array(v)) {
                for (size_t i = 0; i < json_array_size(v); i++)
                        n += values(json_array_get(v, i));
        } else if (json_is_object(v)) {
                const char *k;
                json_t *m;
                json_object_foreach((json_t *)v, k, m) n += values(m);
        }
        return n;
}

static bool over_a_cap(const json_t *spec, const struct ctk_oci_caps *c)
{
        const json_t *linux_ = json_object_get(spec, "linux"), *hooks = json_object_get(spec, "hooks");
        size_t nhooks = 0;
        const char *k;
        json_t *m;
        if (json_is_object(hooks))
                json_object_foreach((json_t *)hooks, k, m) nhooks += members(m);
        return members(json_object_get(json_object_get(spec, "process"), "env")) > c->env ||
               members(json_object_get(spec, "annotations")) > c->annotations ||
               members(json_object_get(spec, "mounts")) > c->mounts ||
               members(json_object_get(linux_, "devices")) > c->devices ||
               members(json_object_get(json_object_get(linux_, "resources"), "devices")) > c->devices ||
               nhooks > c->hooks || values(spec) > c->values;
}

static void check_counts(const char *text, size_t size, const json_t *spec)
{
        struct ctk_error *err = NULL;
        bool refused = ctk_oci_spec_check_counts(text, size, "c.json", &small_caps, &err) < 0;
        FUZZ_ASSERT(!refused || (err != NULL && strchr(err->msg, '\n') == NULL));
        ctk_error_free(err);
        bool over = over_a_cap(spec, &small_caps);
        FUZZ_ASSERT(refused || !over);
        json_error_t jerr;
        _cleanup_json_ json_t *unique = json_loadb(text, size, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &jerr);
        FUZZ_ASSERT(unique == NULL || refused == over);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        _cleanup_free_ char *text = fuzz_text(data, size);
        _cleanup_json_ json_t *spec = NULL;
        _cleanup_oci_literals_ struct ctk_oci_literals lits = {0};
        struct ctk_error *err = NULL;
        if (ctk_oci_spec_parse(text, size, "config.json", &spec, &lits, &err) < 0) {
                FUZZ_ASSERT(err != NULL && strchr(err->msg, '\n') == NULL);
                ctk_error_free(err);
                return 0;
        }
        check_literals(text, size, spec, &lits);
        check_counts(text, size, spec);
        const char **env = NULL;
        size_t nenv = 0;
        if (ctk_oci_env(spec, &env, &nenv, &err) == 0) {
                FUZZ_ASSERT(!names_selection(env, nenv) || rt_spec_may_request_gpus(text, size, &cdi_prefix));
                free(env);
        }
        ctk_error_free(err);
        err = NULL;
        const struct ctk_oci_device nodes[] = {
            {.path = "/dev/dri/card1",
             .type = 'c',
             .major = 226,
             .minor = 1,
             .has_mode = true,
             .mode = 0660,
             .has_gid = true,
             .gid = 44,
             .access = "rwm"},
            {.path = "/dev/dri/renderD128",
             .type = 'c',
             .major = 226,
             .minor = 128,
             .has_mode = true,
             .mode = 0660,
             .has_gid = true,
             .gid = 109,
             .access = "rwm"},
            {.path = "/dev/kfd", .type = 'c', .major = 235, .minor = 0, .has_mode = true, .mode = 0666, .access = "rw"},
        };
        struct ctk_oci_edit_stats st;
        bool changed;
        if (ctk_oci_put_devices(spec, nodes, 3, &st, &err) == 0 &&
            ctk_oci_add_additional_gid(spec, 44, &changed, &err) == 0 &&
            ctk_seccomp_numa_edit_spec(spec, &changed, &err) == 0) {
                size_t len;
                _cleanup_free_ char *out = ctk_oci_spec_encode(spec, &lits, &len);
                FUZZ_ASSERT(out != NULL);
                _cleanup_json_ json_t *again = NULL;
                _cleanup_oci_literals_ struct ctk_oci_literals lits2 = {0};
                struct ctk_error *err2 = NULL;
                FUZZ_ASSERT(ctk_oci_spec_parse(out, len, "out", &again, &lits2, &err2) == 0);
        }
        ctk_error_free(err);
        return 0;
}
