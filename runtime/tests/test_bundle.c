/* Unit tests of runtime/bundle.c: the spec path and the cheap test for a
 * GPU request, which decides whether a spec is parsed at all. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "core/base/base.h"
#include "runtime/bundle.h"

static bool may_with(const char *text, const char *const *prefixes)
{
        struct ctk_strv p _cleanup_strv_ = {0};
        for (size_t i = 0; prefixes[i] != NULL; i++)
                assert_int_equal(ctk_strv_push(&p, prefixes[i]), 0);
        return rt_spec_may_request_gpus(text, strlen(text), &p);
}

/* with the default configuration's prefix */
static bool may(const char *text)
{
        return may_with(text, (const char *const[]){"cdi.k8s.io/", NULL});
}

static void test_spec_path(void **state)
{
        (void)state;
        struct rt_args a = {0};
        _cleanup_free_ char *p1 = rt_spec_path(&a);
        assert_string_equal(p1, "./config.json");
        a.bundle = "/b";
        _cleanup_free_ char *p2 = rt_spec_path(&a);
        assert_string_equal(p2, "/b/config.json");
        a.config = "spec.json"; /* crun --config */
        _cleanup_free_ char *p3 = rt_spec_path(&a);
        assert_string_equal(p3, "/b/spec.json");
        a.config = "/abs.json";
        _cleanup_free_ char *p4 = rt_spec_path(&a);
        assert_string_equal(p4, "/abs.json");
}

static void test_may_request_gpus(void **state)
{
        (void)state;
        assert_false(may(""));
        assert_false(may("{\"process\":{\"env\":[\"PATH=/bin\",\"TERM=xterm\"]}}"));
        assert_true(may("{\"process\":{\"env\":[\"AMD_VISIBLE_DEVICES=0\"]}}"));
        assert_true(may("{\"process\":{\"env\":[\"AMD_VISIBLE_DEVICES=\"]}}"));
        assert_true(may("{\"process\":{\"env\":[\"DOCKER_RESOURCE_AMD_GPU=0x1\"]}}"));
        assert_true(may("{\"process\":{\"env\":[\"DOCKER_RESOURCE_CUSTOM=1\"]}}"));
        /* names spelt with \u escapes of capitals or '_' */
        assert_true(may("[\"\\u0041MD_VISIBLE_DEVICES=0\"]"));
        assert_true(may("[\"DOCKER\\u005fRESOURCE_GPU=0\"]"));
        assert_true(may("[\"\\u0044OCKER_RESOURCE_GPU=0\"]"));
        /* CDI's request annotations, also with the '/' escaped or a letter spelt \u00XX */
        assert_true(may("{\"annotations\":{\"cdi.k8s.io/nic\":\"example.com/nic=eth0\"}}"));
        assert_true(may("{\"annotations\":{\"cdi.k8s.io\\/nic\":\"example.com/nic=eth0\"}}"));
        assert_true(may("{\"annotations\":{\"\\u0063di.k8s.io/nic\":\"x\"}}"));
        assert_false(may("{\"annotations\":{\"io.kubernetes.cri.sandbox-id\":\"x\"}}"));
        /* Go's escapes of < > & and other characters do not count */
        assert_false(may("[\"X=\\u003cy\\u003e\\u0026\"]"));
        assert_false(may("[\"\\u00e9\"]"));
        assert_false(may("\\u00")); /* cut short */
        /* the raw bytes, not a parse: a mention anywhere counts */
        assert_true(may("{\"annotations\":{\"note\":\"set AMD_VISIBLE_DEVICES\"}}"));
}

/* config key cdi-annotation-prefixes: the prefixes given decide, however
 * JSON spells them; none: annotations do not count */
static void test_prefixes(void **state)
{
        (void)state;
        const char *const custom[] = {"gpus.example.com/amd-", NULL};
        const char *const none[] = {NULL};
        const char *const slashes[] = {"/", NULL};
        const char *cdi = "{\"annotations\":{\"cdi.k8s.io/nic\":\"amd.com/gpu=0\"}}";
        assert_true(may(cdi));
        assert_false(may_with(cdi, custom));
        assert_false(may_with(cdi, none));
        assert_true(may_with("{\"annotations\":{\"gpus.example.com/amd-x\":\"amd.com/gpu=0\"}}", custom));
        assert_true(may_with("{\"annotations\":{\"gpus.example.com\\/amd-x\":\"amd.com/gpu=0\"}}", custom));
        assert_true(may_with("{\"annotations\":{\"gpus.\\u0065xample.com/amd-x\":\"amd.com/gpu=0\"}}", custom));
        assert_false(may_with("{\"annotations\":{\"gpus.example.org/amd-x\":\"amd.com/gpu=0\"}}", custom));
        /* the variables count whatever the prefixes */
        assert_true(may_with("{\"process\":{\"env\":[\"AMD_VISIBLE_DEVICES=0\"]}}", none));
        /* a prefix without a part between slashes could be anywhere */
        assert_true(may_with("{}", slashes));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_spec_path),
            cmocka_unit_test(test_may_request_gpus),
            cmocka_unit_test(test_prefixes),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
