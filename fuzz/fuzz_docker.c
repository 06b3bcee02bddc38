/* daemon.json editing (amd-ctk runtime configure): parse, add the runtime,
 * dump, parse again, remove it: the edits either fail with an error or give
 * a document that parses again, and removing what was added restores the
 * other keys.  Then the Swarm entries: written, read back as written,
 * removed, with every entry of another kind kept in its order. */
#include "fuzz.h"

#include "core/base/base.h"
#include "core/engines/engines.h"
#include "core/json/json.h"

/* The entries of kinds other than AMD_GPU, in order. */
static json_t *others(const json_t *doc)
{
        json_t *a = json_array(), *e;
        size_t i;
        json_array_foreach(json_object_get(doc, "node-generic-resources"), i, e)
        {
                const char *s = json_string_value(e);
                struct ctk_strv v = {0};
                json_t *one = json_object();
                json_object_set_new(one, "node-generic-resources", json_pack("[O]", e));
                FUZZ_ASSERT(ctk_docker_resources_get(one, "AMD_GPU", &v, NULL) == 0);
                if (v.n == 0)
                        json_array_append_new(a, json_string(s));
                ctk_strv_clear(&v);
                json_decref(one);
        }
        return a;
}

static void fuzz_resources(json_t *doc, const char *text, size_t size)
{
        struct ctk_error *err = NULL;
        if (ctk_docker_resources_check(doc, text, size, "daemon.json", &err) < 0) {
                FUZZ_ASSERT(err != NULL && strchr(err->msg, '\n') == NULL);
                ctk_error_free(err);
                return;
        }
        _cleanup_json_ json_t *before = others(doc);
        char *values[] = {(char *)"0xE3AA140F9A5F9E31:0", (char *)"gpu1"};
        bool changed;
        FUZZ_ASSERT(ctk_docker_resources_set(doc, "AMD_GPU", values, 2, &changed, NULL) == 0);
        struct ctk_strv got = {0};
        FUZZ_ASSERT(ctk_docker_resources_get(doc, "AMD_GPU", &got, NULL) == 0);
        FUZZ_ASSERT(got.n == 2 && strcmp(got.v[0], values[0]) == 0 && strcmp(got.v[1], values[1]) == 0);
        ctk_strv_clear(&got);
        _cleanup_json_ json_t *kept = others(doc);
        FUZZ_ASSERT(json_equal(before, kept));
        FUZZ_ASSERT(ctk_docker_resources_set(doc, "AMD_GPU", NULL, 0, &changed, NULL) == 0 && changed);
        FUZZ_ASSERT(ctk_docker_resources_get(doc, "AMD_GPU", &got, NULL) == 0 && got.n == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        _cleanup_free_ char *text = fuzz_text(data, size);
        _cleanup_json_ json_t *doc = NULL;
        struct ctk_error *err = NULL;
        if (ctk_docker_config_parse(text, size, "daemon.json", &doc, &err) < 0) {
                FUZZ_ASSERT(err != NULL);
                ctk_error_free(err);
                return 0;
        }
        char *args[] = {(char *)"--amd-config=/etc/amd-container-toolkit/config.json"};
        const struct ctk_docker_edit add = {.action = CTK_DOCKER_ADD,
                                            .name = "amd",
                                            .path = "/usr/bin/amd-container-runtime",
                                            .args = args,
                                            .nargs = 1,
                                            .set_as_default = true};
        unsigned changes = 0;
        if (ctk_docker_config_apply(doc, &add, &changes, &err) < 0) {
                ctk_error_free(err);
                return 0;
        }
        _cleanup_free_ char *out = ctk_docker_config_dump(doc, ctk_json_guess_indent(text, size));
        FUZZ_ASSERT(out != NULL);
        _cleanup_json_ json_t *again = NULL;
        FUZZ_ASSERT(ctk_docker_config_parse(out, strlen(out), "out", &again, NULL) == 0);
        const struct ctk_docker_edit del = {.action = CTK_DOCKER_REMOVE, .name = "amd"};
        FUZZ_ASSERT(ctk_docker_config_apply(again, &del, &changes, NULL) == 0);
        FUZZ_ASSERT(json_object_get(json_object_get(again, "runtimes"), "amd") == NULL);
        fuzz_resources(doc, text, size);
        return 0;
}
