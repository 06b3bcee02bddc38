/* CDI spec loading and validation: any text gives a report, never a crash;
 * a spec without errors stays without errors when checked again. */
#include "fuzz.h"

#include "core/base/base.h"
#include "core/cdi/cdi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        _cleanup_free_ char *text = fuzz_text(data, size);
        _cleanup_cdi_doc_ struct ctk_cdi_doc doc = {0};
        _cleanup_cdi_report_ struct ctk_cdi_report rep = {0};
        struct ctk_error *err = NULL;
        if (ctk_cdi_parse("spec.json", text, size, &doc, &rep, &err) < 0) {
                ctk_error_free(err);
                return 0;
        }
        if (doc.root == NULL)
                return 0;
        const struct ctk_cdi_source src = {.file = "spec.json", .text = text, .len = size};
        if (ctk_cdi_check(doc.root, &src, &rep) == 0) {
                _cleanup_cdi_report_ struct ctk_cdi_report again = {0};
                FUZZ_ASSERT(ctk_cdi_check(doc.root, &src, &again) == 0);
        }
        return 0;
}
