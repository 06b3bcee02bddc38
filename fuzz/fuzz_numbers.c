/* KFD properties text, UUIDs and numbers: the parsers of what sysfs and
 * users hand us.  A UUID that parses prints back and parses to the same
 * value; numbers respect their bound. */
#include "fuzz.h"

#include "core/base/base.h"
#include "core/device/device.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        _cleanup_free_ char *text = fuzz_text(data, size);
        struct ctk_kfd_props props;
        struct ctk_error *err = NULL;
        if (ctk_kfd_props_parse(text, size, "properties", &props, &err) == 0 && props.has_render_minor)
                FUZZ_ASSERT(props.render_minor <= INT32_MAX);
        ctk_error_free(err);
        uint64_t u;
        if (ctk_uuid_parse(text, &u) == 0) {
                char buf[CTK_UUID_STRLEN];
                ctk_uuid_format(u, buf);
                uint64_t back;
                FUZZ_ASSERT(ctk_uuid_parse(buf, &back) == 0 && back == u);
        }
        uint64_t v;
        if (ctk_parse_u64_dec(text, size, 4095, &v) == 0)
                FUZZ_ASSERT(v <= 4095);
        if (ctk_parse_u64_hex(text, size, 1, UINT32_MAX, &v) == 0)
                FUZZ_ASSERT(v <= UINT32_MAX);
        return 0;
}
