/* Engine TOML files (containerd's config.toml): the strict reader, the
 * imports edit and the drop-in's copy of the CRI section.  Whatever the
 * text: one error, or an edit whose result is valid TOML again, lists the
 * drop-in once, and is undone by removing it; and one error, or a drop-in
 * that is valid TOML. */
#include "fuzz.h"

#include "core/base/base.h"
#include "core/engines/engines.h"

#define DROPIN "/etc/containerd/conf.d/99-amd.toml"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        _cleanup_free_ char *text = fuzz_text(data, size);
        char *added = NULL;
        int version;
        struct ctk_error *err = NULL;
        if (ctk_dropin_containerd_imports(text, size, "config.toml", DROPIN, true, 2, &added, &version, &err) < 0) {
                FUZZ_ASSERT(err != NULL && strchr(err->msg, '\n') == NULL);
                ctk_error_free(err);
                return 0;
        }
        const char *now = added != NULL ? added : text;
        struct ctk_toml_top top;
        FUZZ_ASSERT(ctk_toml_check(now, strlen(now), "added", &top, NULL, NULL) == 0);
        size_t listed = 0;
        for (size_t i = 0; i < top.imports.n; i++)
                listed += strcmp(top.imports.v[i], DROPIN) == 0;
        FUZZ_ASSERT(listed >= 1);
        ctk_toml_top_clear(&top);
        char *removed = NULL;
        FUZZ_ASSERT(
            ctk_dropin_containerd_imports(now, strlen(now), "added", DROPIN, false, 2, &removed, &version, NULL) == 0);
        if (removed != NULL) {
                FUZZ_ASSERT(ctk_toml_check(removed, strlen(removed), "removed", &top, NULL, NULL) == 0);
                for (size_t i = 0; i < top.imports.n; i++)
                        FUZZ_ASSERT(strcmp(top.imports.v[i], DROPIN) != 0);
                ctk_toml_top_clear(&top);
        }
        free(removed);
        free(added);
        static const char *const dirs[] = {"/etc/cdi"};
        struct ctk_dropin d = {.engine = CTK_DROPIN_CONTAINERD,
                               .name = "amd",
                               .runtime_path = "/usr/bin/amd-container-runtime",
                               .set_as_default = size % 2 == 0,
                               .containerd_version = 2,
                               .cdi_dirs = dirs,
                               .ncdi_dirs = 1,
                               .source = text,
                               .source_len = size,
                               .source_name = "config.toml"};
        char *dropin = NULL;
        if (ctk_dropin_text(&d, &dropin, &err) < 0) {
                FUZZ_ASSERT(err != NULL && strchr(err->msg, '\n') == NULL);
                ctk_error_free(err);
                return 0;
        }
        FUZZ_ASSERT(ctk_toml_check(dropin, strlen(dropin), "dropin", &top, NULL, NULL) == 0);
        ctk_toml_top_clear(&top);
        free(dropin);
        return 0;
}
