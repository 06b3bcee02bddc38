/* Test doubles for library functions the runtime links against that are not
 * in libctk yet (selection, discovery, device nodes, backends).  Included by
 * exactly one translation unit per test binary; never called by these tests.
 * Remove once the real implementations are in the library. */
#ifndef RT_TESTS_PENDING_DOUBLES_H
#define RT_TESTS_PENDING_DOUBLES_H

#include <errno.h>

#include "backends/open.h"
#include "core/config.h"
#include "core/devnode.h"
#include "core/gpu.h"
#include "core/select.h"

int ctk_select_from_env(char *const *env, size_t nenv, const char *const *kinds, const struct ctk_gpu_list *gpus,
                        struct ctk_selection *out, struct ctk_error **err)
{
        (void)env, (void)nenv, (void)kinds, (void)gpus, (void)out;
        return ctk_error_set(err, ENOSYS, "not in this test");
}
void ctk_selection_clear(struct ctk_selection *s)
{
        (void)s;
}
int ctk_discover_gpus(struct ctk_backend *b, struct ctk_gpu_list *out, struct ctk_error **err)
{
        (void)b, (void)out;
        return ctk_error_set(err, ENOSYS, "not in this test");
}
void ctk_gpu_list_clear(struct ctk_gpu_list *l)
{
        (void)l;
}
int ctk_devnode_stat(struct ctk_backend *b, const char *path, struct ctk_devnode *out, struct ctk_error **err)
{
        (void)b, (void)path, (void)out;
        return ctk_error_set(err, ENOSYS, "not in this test");
}
void ctk_devnode_clear(struct ctk_devnode *d)
{
        (void)d;
}
int ctk_backend_open(const char *root, const char *profile, struct ctk_backend **out, struct ctk_error **err)
{
        (void)root, (void)profile, (void)out;
        return ctk_error_set(err, ENOSYS, "not in this test");
}

#endif
