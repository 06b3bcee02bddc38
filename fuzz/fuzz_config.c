/* The toolkit configuration's two readers, differential: whatever the
 * launcher's scanner accepts, jansson's strict reader accepts with the same
 * result (the launcher must never act on a configuration the full runtime
 * would read otherwise). */
#include "fuzz.h"

#include "core/base/base.h"
#include "core/config/config.h"
#include "runtime/launcher/config_scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        _cleanup_free_ char *text = fuzz_text(data, size);
        struct ctk_config strict = {0}, scanned = {0};
        struct ctk_error *err = NULL;
        int rs = ctk_config_parse(text, size, "config.json", &strict, &err);
        FUZZ_ASSERT(rs == 0 || (err != NULL && strchr(err->msg, '\n') == NULL));
        if (rt_config_scan(text, size, &scanned) == 0) {
                FUZZ_ASSERT(rs == 0);
                char *a = ctk_config_dump(&strict), *b = ctk_config_dump(&scanned);
                FUZZ_ASSERT(a != NULL && b != NULL && strcmp(a, b) == 0);
                free(a);
                free(b);
        }
        ctk_config_clear(&strict);
        ctk_config_clear(&scanned);
        ctk_error_free(err);
        return 0;
}
