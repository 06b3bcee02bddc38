/* The selection grammar (AMD_VISIBLE_DEVICES, DOCKER_RESOURCE_*) on a host
 * with 63 partitions: whatever the value, a selection or one error; a
 * selection names existing GPUs only, each once. */
#include "fuzz.h"

#include "backends/open.h"
#include "core/base/base.h"
#include "core/device/device.h"

static struct ctk_gpu_list gpus;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
        (void)argc;
        (void)argv;
        const char *profile = getenv("CTK_FUZZ_PROFILE");
        struct ctk_backend *b = NULL;
        if (ctk_backend_open(NULL, profile != NULL ? profile : "sim/profiles/mi300x-cpx-x8.json", &b, NULL) < 0 ||
            ctk_discover_gpus(b, &gpus, NULL) < 0)
                abort();
        ctk_backend_free(b);
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        _cleanup_free_ char *value = fuzz_text(data, size);
        struct ctk_selection sel = {0};
        struct ctk_error *err = NULL;
        if (ctk_select_parse(value, &gpus, &sel, &err) == 0) {
                for (size_t i = 0; i < sel.n; i++) {
                        FUZZ_ASSERT(sel.idx[i] < gpus.n);
                        for (size_t k = 0; k < i; k++)
                                FUZZ_ASSERT(sel.idx[k] != sel.idx[i]);
                }
        } else {
                FUZZ_ASSERT(err != NULL && err->msg[0] != '\0' && strchr(err->msg, '\n') == NULL);
        }
        ctk_selection_clear(&sel);
        ctk_error_free(err);
        /* the same value through the environment, merged with a second variable */
        char *env[] = {NULL, (char *)"DOCKER_RESOURCE_AMD_GPU=0", NULL};
        _cleanup_free_ char *var = NULL;
        if (asprintf(&var, "AMD_VISIBLE_DEVICES=%s", value) < 0)
                abort();
        env[0] = var;
        static const char *const kinds[] = {"AMD_GPU", "GPU", NULL};
        struct ctk_error *err2 = NULL;
        if (ctk_select_from_env(env, 2, kinds, &gpus, &sel, &err2) == 0)
                for (size_t i = 0; i < sel.n; i++)
                        FUZZ_ASSERT(sel.idx[i] < gpus.n);
        ctk_selection_clear(&sel);
        ctk_error_free(err2);
        return 0;
}
