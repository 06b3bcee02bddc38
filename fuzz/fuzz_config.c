/* The toolkit configuration's reader: whatever the text, one error line or
 * a configuration whose dump (what `amd-ctk config default` prints for the
 * defaults) reads back to the same configuration. */
#include "fuzz.h"

#include "core/base/base.h"
#include "core/config/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        _cleanup_free_ char *text = fuzz_text(data, size);
        _cleanup_config_ struct ctk_config c = {0};
        _cleanup_config_ struct ctk_config again = {0};
        _cleanup_error_ struct ctk_error *err = NULL;
        if (ctk_config_parse(text, size, "config.json", &c, &err) < 0) {
                FUZZ_ASSERT(err != NULL && strchr(err->msg, '\n') == NULL);
                return 0;
        }
        _cleanup_free_ char *dump = ctk_config_dump(&c);
        FUZZ_ASSERT(dump != NULL);
        FUZZ_ASSERT(ctk_config_parse(dump, strlen(dump), "dump", &again, &err) == 0);
        _cleanup_free_ char *dump2 = ctk_config_dump(&again);
        FUZZ_ASSERT(dump2 != NULL && strcmp(dump, dump2) == 0);
        return 0;
}
