/* CDI spec loading and validation, of the text as JSON and as YAML: any
 * text gives a report, never a crash; a spec without errors stays without
 * errors when checked again; every problem is one line. */
#include "fuzz.h"

#include "core/base/base.h"
#include "core/cdi/cdi.h"

static void one(const char *name, const char *text, size_t size)
{
        _cleanup_cdi_doc_ struct ctk_cdi_doc doc = {0};
        _cleanup_cdi_report_ struct ctk_cdi_report rep = {0};
        struct ctk_error *err = NULL;
        if (ctk_cdi_parse(name, text, size, &doc, &rep, &err) < 0) {
                ctk_error_free(err);
                return;
        }
        for (size_t i = 0; i < rep.errors.n; i++)
                FUZZ_ASSERT(strchr(rep.errors.v[i], '\n') == NULL);
        if (doc.root == NULL)
                return;
        const struct ctk_cdi_source src = ctk_cdi_doc_source(&doc);
        if (ctk_cdi_check(doc.root, &src, &rep) == 0) {
                _cleanup_cdi_report_ struct ctk_cdi_report again = {0};
                FUZZ_ASSERT(ctk_cdi_check(doc.root, &src, &again) == 0);
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        _cleanup_free_ char *text = fuzz_text(data, size);
        one("spec.json", text, size);
        one("spec.yaml", text, size);
        return 0;
}
