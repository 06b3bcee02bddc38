/* Weak stand-ins for the unit tests of amd-ctk's command files: main.c
 * (not linked into program tests) and the library parts a test does not
 * exercise; the real ones win wherever they are linked.  Include once,
 * after cmocka and core/base. */
#ifndef CTK_TESTS_CLI_STUBS_H
#define CTK_TESTS_CLI_STUBS_H

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "core/device/device.h"
#include "ctk/cli.h"

__attribute__((weak)) int ctk_cli_fail(const struct ctk_error *err)
{
        (void)err;
        return 1;
}
__attribute__((weak)) int ctk_cli_state_dir(struct ctk_cli *cli, const char **out, struct ctk_error **err)
{
        (void)cli;
        (void)out;
        return ctk_error_set(err, ENOSYS, "not in this test");
}
__attribute__((weak)) int ctk_cli_config(struct ctk_cli *cli, const struct ctk_config **out, struct ctk_error **err)
{
        (void)cli;
        (void)out;
        return ctk_error_set(err, ENOSYS, "not in this test");
}
__attribute__((weak)) int ctk_cli_root(struct ctk_cli *cli, const char **root, struct ctk_error **err)
{
        (void)cli;
        (void)root;
        return ctk_error_set(err, ENOSYS, "not in this test");
}
__attribute__((weak)) int ctk_cli_open_backend(struct ctk_cli *cli, struct ctk_backend **out, struct ctk_error **err)
{
        (void)cli;
        (void)out;
        return ctk_error_set(err, ENOSYS, "not in this test");
}
__attribute__((weak)) int ctk_discover_gpus(struct ctk_backend *b, struct ctk_gpu_list *out, struct ctk_error **err)
{
        (void)b;
        (void)out;
        return ctk_error_set(err, ENOSYS, "not in this test");
}
__attribute__((weak)) int ctk_select_parse(const char *value, const struct ctk_gpu_list *gpus,
                                           struct ctk_selection *out, struct ctk_error **err)
{
        (void)value;
        (void)gpus;
        (void)out;
        return ctk_error_set(err, ENOSYS, "not in this test");
}
__attribute__((weak)) void ctk_selection_clear(struct ctk_selection *s)
{
        (void)s;
}
__attribute__((weak)) void ctk_gpu_list_clear(struct ctk_gpu_list *l)
{
        (void)l;
}
__attribute__((weak)) void ctk_uuid_format(uint64_t uuid, char buf[CTK_UUID_STRLEN])
{
        snprintf(buf, CTK_UUID_STRLEN, "0x%" PRIX64, uuid);
}
__attribute__((weak)) int ctk_uuid_parse(const char *s, uint64_t *out)
{
        (void)s;
        (void)out;
        return -1;
}

#endif
