/* The container edits applier: a CDI spec and a config.json in (the input
 * is the spec, a NUL byte, then the config), the edited config out.  Every
 * device of a spec that passes the checks is applied (the spec's own edits
 * first) on a simulated host with one GPU; then: the result encodes and
 * parses again, and a failed apply left the config exactly as it was (all
 * or nothing). */
#include "fuzz.h"

#include <errno.h>

#include "backends/fakefs/backend.h"
#include "backends/fakefs/host.h"
#include "backends/fakefs/profile.h"
#include "core/base/base.h"
#include "core/cdi/cdi.h"
#include "core/json/json.h"
#include "core/oci/oci.h"

#define MAX_DEVICES 8

static const char profile[] = "{\"gpus\": [{\"pci\": \"0000:03:00.0\", \"device_id\": \"0x740f\", \"unique_id\": "
                              "\"0xEA35F57CC80DEB35\", \"kfd_node\": 1, \"card_minor\": 0, \"render_minor\": 128}]}";

static struct ctk_backend *host(void)
{
        static struct ctk_backend *b;
        if (b == NULL) {
                struct ctk_fakefs_profile *p = NULL;
                struct ctk_fakefs_host *h = NULL;
                if (ctk_fakefs_profile_parse(profile, "fuzz.json", &p, NULL) < 0 ||
                    ctk_fakefs_host_new_from_profile(p, &h, NULL) < 0 || ctk_fakefs_backend_from_host(h, &b, NULL) < 0)
                        abort();
                ctk_fakefs_host_unref(h); /* the backend keeps its reference */
        }
        return b;
}

static void apply(const json_t *spec, json_t *oci, const struct ctk_oci_literals *lits)
{
        struct ctk_cdi_edits edits[MAX_DEVICES + 1] = {0};
        struct ctk_cdi_origin o[MAX_DEVICES + 1];
        size_t n = 0, i;
        const json_t *d;
        if (ctk_cdi_edits_from_json(json_object_get(spec, "containerEdits"), &edits[n], NULL) == 0) {
                o[n] = (struct ctk_cdi_origin){.name = "spec", .file = "spec.json", .edits = &edits[n]};
                n++;
        }
        json_array_foreach(json_object_get(spec, "devices"), i, d)
        {
                if (n > MAX_DEVICES ||
                    ctk_cdi_edits_from_json(json_object_get(d, "containerEdits"), &edits[n], NULL) < 0)
                        break;
                o[n] =
                    (struct ctk_cdi_origin){.name = json_string_value(json_object_get(d, "name")), .edits = &edits[n]};
                n++;
        }
        _cleanup_json_ json_t *before = json_deep_copy(oci);
        struct ctk_error *err = NULL;
        if (ctk_cdi_apply(oci, o, n, host(), NULL, &err) < 0) {
                FUZZ_ASSERT(err != NULL && strchr(err->msg, '\n') == NULL);
                FUZZ_ASSERT(err->code == ENOMEM || json_equal(before, oci));
                ctk_error_free(err);
        }
        for (i = 0; i < n; i++)
                ctk_cdi_edits_clear(&edits[i]);
        size_t len;
        _cleanup_free_ char *out = ctk_oci_spec_encode(oci, lits, &len);
        FUZZ_ASSERT(out != NULL);
        _cleanup_json_ json_t *again = NULL;
        _cleanup_oci_literals_ struct ctk_oci_literals lits2 = {0};
        struct ctk_error *err2 = NULL;
        FUZZ_ASSERT(ctk_oci_spec_parse(out, len, "out", &again, &lits2, &err2) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        const uint8_t *nul = memchr(data, '\0', size);
        if (nul == NULL)
                return 0;
        size_t spec_len = (size_t)(nul - data);
        _cleanup_free_ char *config = fuzz_text(nul + 1, size - spec_len - 1);
        _cleanup_cdi_doc_ struct ctk_cdi_doc doc = {0};
        _cleanup_cdi_report_ struct ctk_cdi_report rep = {0};
        struct ctk_error *err = NULL;
        if (ctk_cdi_parse("spec.json", (const char *)data, spec_len, &doc, &rep, &err) < 0 || doc.root == NULL) {
                ctk_error_free(err);
                return 0;
        }
        const struct ctk_cdi_source src = ctk_cdi_doc_source(&doc);
        if (ctk_cdi_check(doc.root, &src, &rep) > 0)
                return 0;
        _cleanup_json_ json_t *oci = NULL;
        _cleanup_oci_literals_ struct ctk_oci_literals lits = {0};
        if (ctk_oci_spec_parse(config, size - spec_len - 1, "config.json", &oci, &lits, &err) < 0) {
                ctk_error_free(err);
                return 0;
        }
        apply(doc.root, oci, &lits);
        return 0;
}
