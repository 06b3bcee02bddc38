/* daemon.json editing (amd-ctk runtime configure): parse, add the runtime,
 * dump, parse again, remove it: the edits either fail with an error or give
 * a document that parses again, and removing what was added restores the
 * other keys. */
#include "fuzz.h"

#include "core/base/base.h"
#include "core/engines/engines.h"
#include "core/json/json.h"

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
        return 0;
}
