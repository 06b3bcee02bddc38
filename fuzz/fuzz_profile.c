/* Host profiles of the simulator: any text is a profile (loaded and
 * checked) or one error naming the place. */
#include "fuzz.h"

#include "backends/fakefs/profile.h"
#include "backends/fakefs/profile_check.h"
#include "core/base/base.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        _cleanup_free_ char *text = fuzz_text(data, size);
        struct ctk_fakefs_profile *p = NULL;
        struct ctk_error *err = NULL;
        if (ctk_fakefs_profile_parse(text, "profile.json", &p, &err) < 0)
                FUZZ_ASSERT(err != NULL && strchr(err->msg, '\n') == NULL);
        ctk_fakefs_profile_free(p);
        ctk_error_free(err);
        return 0;
}
