/* Unit tests of the launcher's GPU tracker state reader
 * (runtime/launcher/tracker_parse.c): our writer's form only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "core/cleanup.h"
#include "core/tracker_state.h"

#define CANONICAL                                                                                                      \
        "{\"version\":1,\"enabled\":true,\"bootId\":\"b\",\"gpus\":[{\"uuid\":\"0xEA35F57CC80DEB35\","                 \
        "\"pci\":\"0000:03:00.0\",\"partition\":\"\",\"drm\":[\"/dev/dri/card1\",\"/dev/dri/renderD128\"],"            \
        "\"accessibility\":\"exclusive\"}],\"runtimeRoots\":[\"/run/runc\"],\"containers\":[[\"c1\",[0],0,42,7]]}\n"

static void test_canonical(void **state)
{
        (void)state;
        _cleanup_tracker_state_ struct ctk_tracker_state st;
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(ctk_tracker_state_parse(CANONICAL, strlen(CANONICAL), &st, &err), 0);
        assert_true(st.enabled);
        assert_int_equal(st.ngpus, 1);
        assert_int_equal(st.ncontainers, 1);
        assert_string_equal(st.containers[0].id, "c1");
        assert_string_equal(st.containers[0].runtime_root, "/run/runc");
        /* what it writes back is what it read */
        _cleanup_free_ char *text = ctk_tracker_state_format(&st);
        assert_string_equal(text, CANONICAL);
}

static void not_read(const char *text)
{
        struct ctk_tracker_state st;
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(ctk_tracker_state_parse(text, strlen(text), &st, &err), -1);
        assert_int_equal(err->code, ENOTSUP);
        assert_int_equal(st.ncontainers, 0); /* nothing half read */
        assert_null(st.containers);
}

/* Valid states in another spelling, and invalid ones, are all left to the
 * jansson reader of amd-ctk. */
static void test_other_spellings(void **state)
{
        (void)state;
        not_read("{\n  \"version\": 1,\n  \"enabled\": true\n}\n");
        not_read("{\"enabled\":true,\"version\":1,\"bootId\":null,\"gpus\":[],\"runtimeRoots\":[],\"containers\":[]}");
        not_read("");
        not_read("garbage");
        not_read(CANONICAL " ");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_canonical),
            cmocka_unit_test(test_other_spellings),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
