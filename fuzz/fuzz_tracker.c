/* The tracker state's two readers, differential: the reader of our own
 * writer's text and jansson's strict one agree on every text the first
 * accepts (same state, written back the same); the writer's text is read
 * back to the same state (the first reader may decline it: then the
 * second reads it). */
#include "fuzz.h"

#include "core/base/base.h"
#include "core/tracker/tracker.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        _cleanup_free_ char *text = fuzz_text(data, size);
        struct ctk_tracker_state fast = {0}, strict = {0};
        struct ctk_error *err = NULL;
        int rf = ctk_tracker_state_parse_canonical(text, size, &fast, NULL);
        FUZZ_ASSERT(rf >= 0);
        int rs = ctk_tracker_state_parse_strict(text, size, &strict, &err);
        if (rf == 1) {
                FUZZ_ASSERT(rs == 0);
                char *a = ctk_tracker_state_format(&fast), *b = ctk_tracker_state_format(&strict);
                FUZZ_ASSERT(a != NULL && b != NULL && strcmp(a, b) == 0);
                free(a);
                free(b);
        }
        if (rs == 0) {
                _cleanup_free_ char *out = ctk_tracker_state_format(&strict);
                FUZZ_ASSERT(out != NULL);
                struct ctk_tracker_state again = {0};
                FUZZ_ASSERT(ctk_tracker_state_parse(out, strlen(out), &again, NULL) == 0);
                char *c = ctk_tracker_state_format(&again);
                FUZZ_ASSERT(c != NULL && strcmp(c, out) == 0);
                free(c);
                ctk_tracker_state_clear(&again);
        }
        ctk_tracker_state_clear(&fast);
        ctk_tracker_state_clear(&strict);
        ctk_error_free(err);
        return 0;
}
