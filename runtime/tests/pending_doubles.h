/* Test doubles for library functions the runtime links against that are not
 * in libctk yet (the selection grammar).  Included by exactly one translation
 * unit per test binary; never called by these tests.  Remove once the real
 * implementations are in the library. */
#ifndef RT_TESTS_PENDING_DOUBLES_H
#define RT_TESTS_PENDING_DOUBLES_H

#include <errno.h>

#include "core/select.h"

int ctk_select_from_env(char *const *env, size_t nenv, const char *const *kinds, const struct ctk_gpu_list *gpus,
                        struct ctk_selection *out, struct ctk_error **err)
{
        (void)env, (void)nenv, (void)kinds, (void)gpus, (void)out;
        return ctk_error_set(err, ENOSYS, "not in this test");
}
void ctk_selection_clear(struct ctk_selection *s) { (void)s; }

#endif
