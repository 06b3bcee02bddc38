/* The OCI spec edit: a config.json in, the edited one out (the runtime's
 * create without the host): parse, environment, device nodes (CDI's
 * replace-by-path rule), a group, the
 * seccomp NUMA rule, encode.  Whatever the input: an error or a spec that
 * parses again.  Differential with the quick look the runtime
 * takes first (rt_spec_may_request_gpus, on the raw text): a spec
 * whose environment names a selection variable, however JSON spells it,
 * is never taken for one that asks for no GPU.  And what runc takes that
 * jansson cannot hold (\u0000, uint64, 1e400, ...) comes back as it was. */
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
