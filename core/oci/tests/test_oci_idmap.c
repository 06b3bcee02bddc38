/* The rule for a node's group in the container's user namespace: mapped,
 * unmapped, the overflow gid, no user namespace; the maps it reads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/base/base.h"
#include "core/json/json.h"
#include "core/json/tests/json_test.h"
#include "core/oci/oci.h"

static struct ctk_oci_idmap parsed(const char *text)
{
        struct ctk_oci_idmap m;
        assert_int_equal(ctk_oci_idmap_parse(text, strlen(text), &m, NULL), 0);
        return m;
}

/* /proc/self/gid_map as the kernel writes it. */
static void test_parse(void **state)
{
        (void)state;
        struct ctk_oci_idmap m = parsed("         0       1000          1\n         1     100000      65536\n");
        assert_int_equal(m.n, 2);
        assert_int_equal(m.v[0].inside, 0);
        assert_int_equal(m.v[0].outside, 1000);
        assert_int_equal(m.v[0].count, 1);
        assert_int_equal(m.v[1].inside, 1);
        assert_int_equal(m.v[1].outside, 100000);
        assert_int_equal(m.v[1].count, 65536);
        ctk_oci_idmap_clear(&m);
        m = parsed("0 0 4294967295"); /* the initial namespace, without the newline */
        assert_int_equal(m.n, 1);
        assert_int_equal(m.v[0].count, UINT32_MAX);
        ctk_oci_idmap_clear(&m);
        m = parsed(""); /* a namespace nothing is mapped into yet */
        assert_int_equal(m.n, 0);
        ctk_oci_idmap_clear(&m);
}

static void test_parse_refused(void **state)
{
        (void)state;
        const char *bad[] = {"0 0\n",     "0 0 0\n",          "0 0 1 1\n",        "-1 0 1\n",        "0 x 1\n",
                             "0 1 1\n\n", "2 0 4294967295\n", "0 4294967295 2\n", "0 0 4294967296\n"};
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                struct ctk_oci_idmap m = {0};
                _cleanup_error_ struct ctk_error *err = NULL;
                assert_int_equal(ctk_oci_idmap_parse(bad[i], strlen(bad[i]), &m, &err), -1);
                assert_non_null(strstr(err->msg, "is not \"ID-INSIDE ID-OUTSIDE COUNT\""));
                assert_null(m.v);
        }
        _cleanup_error_ struct ctk_error *err = NULL;
        struct ctk_oci_idmap m = {0};
        assert_int_equal(ctk_oci_idmap_parse("0 0 1\n0 1 2 3\n", 14, &m, &err), -1);
        assert_string_equal(err->msg, "line 2 is not \"ID-INSIDE ID-OUTSIDE COUNT\" with a count > 0 within 32 bits");
        /* more lines than the kernel allows */
        size_t cap = 341 * 12 + 1, len = 0;
        _cleanup_free_ char *many = malloc(cap);
        assert_non_null(many);
        for (int i = 0; i < 341; i++)
                len += (size_t)snprintf(many + len, cap - len, "%d %d 1\n", i, i);
        ctk_error_free(err);
        err = NULL;
        assert_int_equal(ctk_oci_idmap_parse(many, len, &m, &err), -1);
        assert_string_equal(err->msg, "more than 340 ranges");
}

/* No user namespace of the container's own: the runtime's map decides. */
static void test_no_user_namespace(void **state)
{
        (void)state;
        uint32_t out = 0;
        /* the initial namespace maps everything: the node's group as it is */
        struct ctk_oci_idmap init = parsed("0 0 4294967295\n");
        struct ctk_oci_gid_view v = {.self = &init, .overflow = 65534};
        assert_int_equal(ctk_oci_gid_in_container(&v, 44, &out), CTK_OCI_GID_MAPPED);
        assert_int_equal(out, 44);
        /* never the overflow gid, even where it is mapped */
        assert_int_equal(ctk_oci_gid_in_container(&v, 65534, &out), CTK_OCI_GID_OVERFLOW);
        ctk_oci_idmap_clear(&init);
        /* a kernel without user namespaces (no gid_map): every group but the overflow one */
        v.self = NULL;
        assert_int_equal(ctk_oci_gid_in_container(&v, 109, &out), CTK_OCI_GID_MAPPED);
        assert_int_equal(out, 109);
        assert_int_equal(ctk_oci_gid_in_container(&v, 65534, &out), CTK_OCI_GID_OVERFLOW);
        /* another overflow gid (the sysctl) */
        v.overflow = 99;
        assert_int_equal(ctk_oci_gid_in_container(&v, 99, &out), CTK_OCI_GID_OVERFLOW);
        assert_int_equal(ctk_oci_gid_in_container(&v, 65534, &out), CTK_OCI_GID_MAPPED);
}

/* Rootless Podman: the runtime runs in the user's namespace (0 -> the user,
 * 1.. -> subordinate ids); the nodes' host groups read as the overflow gid. */
static void test_rootless(void **state)
{
        (void)state;
        struct ctk_oci_idmap self = parsed("         0       1000          1\n         1     100000      65536\n");
        struct ctk_oci_gid_view v = {.self = &self, .overflow = 65534};
        uint32_t out = 0;
        /* video and render, unmapped on the host: stat says 65534, which the
         * namespace maps (to subordinate gid 165533): never added */
        assert_int_equal(ctk_oci_gid_in_container(&v, 65534, &out), CTK_OCI_GID_OVERFLOW);
        /* a node of the user's own group (0 inside) or of a subordinate one: mapped */
        assert_int_equal(ctk_oci_gid_in_container(&v, 0, &out), CTK_OCI_GID_MAPPED);
        assert_int_equal(out, 0);
        assert_int_equal(ctk_oci_gid_in_container(&v, 65536, &out), CTK_OCI_GID_MAPPED);
        assert_int_equal(out, 65536);
        /* past the namespace's ranges (an id stat cannot give here, but a profile may) */
        assert_int_equal(ctk_oci_gid_in_container(&v, 65537, &out), CTK_OCI_GID_NOT_MAPPED);
        ctk_oci_idmap_clear(&self);
}

/* The container's own user namespace: its gidMappings decide, and the
 * group becomes the container's id of it. */
static void test_spec_user_namespace(void **state)
{
        (void)state;
        _cleanup_json_ json_t *spec =
            test_json("{\"linux\":{\"namespaces\":[{\"type\":\"pid\"},{\"type\":\"user\"}],\"gidMappings\":["
                      "{\"containerID\":0,\"hostID\":200000,\"size\":65536},"
                      "{\"containerID\":1000,\"hostID\":44,\"size\":1}]}}");
        assert_true(ctk_oci_has_user_namespace(spec));
        struct ctk_oci_idmap c;
        assert_int_equal(ctk_oci_spec_gid_mappings(spec, &c, NULL), 0);
        assert_int_equal(c.n, 2);
        struct ctk_oci_idmap init = parsed("0 0 4294967295\n");
        struct ctk_oci_gid_view v = {.self = &init, .userns = true, .container = &c, .overflow = 65534};
        uint32_t out = 0;
        assert_int_equal(ctk_oci_gid_in_container(&v, 44, &out), CTK_OCI_GID_MAPPED); /* mapped: translated */
        assert_int_equal(out, 1000);
        assert_int_equal(ctk_oci_gid_in_container(&v, 200109, &out), CTK_OCI_GID_MAPPED);
        assert_int_equal(out, 109);
        /* the host's render group, which the container does not map */
        assert_int_equal(ctk_oci_gid_in_container(&v, 109, &out), CTK_OCI_GID_NOT_IN_CONTAINER);
        assert_int_equal(ctk_oci_gid_in_container(&v, 265536, &out), CTK_OCI_GID_NOT_IN_CONTAINER);
        assert_int_equal(ctk_oci_gid_in_container(&v, 65534, &out), CTK_OCI_GID_OVERFLOW);
        /* a user namespace without gidMappings (joined by path): nothing is known to be mapped */
        struct ctk_oci_idmap none = {0};
        v.container = &none;
        assert_int_equal(ctk_oci_gid_in_container(&v, 44, &out), CTK_OCI_GID_NOT_IN_CONTAINER);
        ctk_oci_idmap_clear(&c);
        ctk_oci_idmap_clear(&init);
}

static void test_spec_gid_mappings_refused(void **state)
{
        (void)state;
        struct {
                const char *spec, *msg;
        } cases[] = {
            {"{\"linux\":{\"gidMappings\":{}}}", "linux.gidMappings is not an array"},
            {"{\"linux\":{\"gidMappings\":[1]}}", "linux.gidMappings[0] is not an object"},
            {"{\"linux\":{\"gidMappings\":[{\"containerID\":0,\"hostID\":-1,\"size\":1}]}}",
             "linux.gidMappings[0].hostID is not an unsigned 32-bit integer"},
            {"{\"linux\":{\"gidMappings\":[{\"containerID\":0,\"hostID\":0}]}}",
             "linux.gidMappings[0].size is not an unsigned 32-bit integer"},
            {"{\"linux\":{\"gidMappings\":[{\"containerID\":0,\"hostID\":2,\"size\":4294967295}]}}",
             "linux.gidMappings[0]: size must be > 0 and the range within 32 bits"},
            {"{\"linux\":{\"gidMappings\":[{\"containerID\":0,\"hostID\":1,\"size\":0}]}}",
             "linux.gidMappings[0]: size must be > 0 and the range within 32 bits"},
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                _cleanup_json_ json_t *spec = test_json(cases[i].spec);
                struct ctk_oci_idmap m = {0};
                _cleanup_error_ struct ctk_error *err = NULL;
                assert_int_equal(ctk_oci_spec_gid_mappings(spec, &m, &err), -1);
                assert_string_equal(err->msg, cases[i].msg);
                assert_null(m.v);
        }
        _cleanup_json_ json_t *plain = test_json("{\"linux\":{\"namespaces\":[{\"type\":\"mount\"}]}}");
        assert_false(ctk_oci_has_user_namespace(plain));
        struct ctk_oci_idmap m;
        assert_int_equal(ctk_oci_spec_gid_mappings(plain, &m, NULL), 0);
        assert_int_equal(m.n, 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_parse),
            cmocka_unit_test(test_parse_refused),
            cmocka_unit_test(test_no_user_namespace),
            cmocka_unit_test(test_rootless),
            cmocka_unit_test(test_spec_user_namespace),
            cmocka_unit_test(test_spec_gid_mappings_refused),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
