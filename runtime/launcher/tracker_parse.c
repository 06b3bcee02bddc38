/* The launcher's reader of the GPU tracker state: only the canonical form
 * our writer produces (tracker_json_fast.c), without the jansson parser
 * that reads any other spelling in the full runtime and amd-ctk
 * (tracker_json_parse.c is not linked into the launcher).  A state it
 * refuses is released by `amd-ctk gpu-tracker release` instead
 * (release.c). */
#include <errno.h>

#include "core/tracker_state.h"

int ctk_tracker_state_parse(const char *text, size_t len, struct ctk_tracker_state *out, struct ctk_error **err)
{
        int r = ctk_tracker_state_parse_canonical(text, len, out, err);
        if (r == 0)
                return ctk_error_set(err, ENOTSUP, "not in the form amd-container-runtime writes");
        return r < 0 ? -1 : 0;
}
