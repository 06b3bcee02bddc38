/* The tracker state's reader on any text: an error or a state; a state is
 * written back, and that text is read back to the same state (written
 * again byte for byte). */
#include "fuzz.h"

#include "core/base/base.h"
#include "core/tracker/tracker.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        _cleanup_free_ char *text = fuzz_text(data, size);
        struct ctk_tracker_state st = {0};
        struct ctk_error *err = NULL;
        if (ctk_tracker_state_parse(text, size, &st, &err) < 0) {
                FUZZ_ASSERT(err != NULL && st.ngpus == 0 && st.ncontainers == 0 && st.boot_id == NULL);
                ctk_error_free(err);
                return 0;
        }
        _cleanup_free_ char *out = ctk_tracker_state_format(&st);
        FUZZ_ASSERT(out != NULL);
        struct ctk_tracker_state again = {0};
        FUZZ_ASSERT(ctk_tracker_state_parse(out, strlen(out), &again, NULL) == 0);
        char *c = ctk_tracker_state_format(&again);
        FUZZ_ASSERT(c != NULL && strcmp(c, out) == 0);
        free(c);
        ctk_tracker_state_clear(&again);
        ctk_tracker_state_clear(&st);
        return 0;
}
