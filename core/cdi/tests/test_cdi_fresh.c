/* Comparing a CDI spec with the host. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cdi_test_host.h"
#include "core/cdi/cdi.h"

static json_t *generate(const struct ctk_cdi_host *h, bool by_uuid, bool gids)
{
        struct ctk_cdi_options o;
        ctk_cdi_options_init(&o);
        o.by_uuid = by_uuid;
        o.additional_gids = gids;
        json_t *spec = NULL;
        assert_int_equal(ctk_cdi_spec_build(h, &o, &spec, NULL), 0);
        return spec;
}

static json_t *node(json_t *spec, size_t dev, size_t n)
{
        return json_array_get(
            json_object_get(json_object_get(json_array_get(json_object_get(spec, "devices"), dev), "containerEdits"),
                            "deviceNodes"),
            n);
}

static void expect(const json_t *spec, const struct ctk_cdi_host *h, const char *const *want, size_t n)
{
        struct ctk_cdi_report rep = {0};
        size_t got = ctk_cdi_fresh_check(spec, h, &rep);
        if (got != n)
                for (size_t i = 0; i < rep.errors.n; i++)
                        fprintf(stderr, "  %s\n", rep.errors.v[i]);
        assert_int_equal(got, n);
        assert_int_equal(rep.errors.n, n);
        for (size_t i = 0; i < n; i++)
                assert_string_equal(rep.errors.v[i], want[i]);
        ctk_cdi_report_clear(&rep);
}

static void test_fresh_spec(void **state)
{
        (void)state;
        struct ctk_cdi_host h;
        test_host_4(&h);
        for (int uuid = 0; uuid < 2; uuid++) {
                for (int gids = 0; gids < 2; gids++) {
                        json_t *spec = generate(&h, uuid, gids);
                        expect(spec, &h, NULL, 0);
                        json_decref(spec);
                }
        }
        test_host_free(&h);
}

static void test_numbers_changed(void **state)
{
        (void)state;
        struct ctk_cdi_host h;
        test_host_4(&h);
        json_t *spec = generate(&h, false, false);
        h.gpus[2].nodes[1].minor = 131;
        const char *want[] = {
            "device 2: /dev/dri/renderD130 is 226:131 on this host, 226:130 in the spec",
            "device all: /dev/dri/renderD130 is 226:131 on this host, 226:130 in the spec",
        };
        expect(spec, &h, want, 2);
        json_decref(spec);
        test_host_free(&h);
}

static void test_mode_owner_group_type(void **state)
{
        (void)state;
        struct ctk_cdi_host h;
        test_host_1(&h);
        json_t *spec = generate(&h, false, false);
        h.gpus[0].nodes[1].mode = 0666;
        h.gpus[0].nodes[1].gid = 110;
        h.gpus[0].nodes[1].uid = 5;
        h.kfd.type = 'b';
        const char *want[] = {
            "device 0: /dev/dri/renderD128 has mode 0666 on this host, 0660 in the spec",
            "device 0: /dev/dri/renderD128 has owner 5 on this host, 0 in the spec",
            "device 0: /dev/dri/renderD128 has group 110 on this host, 109 in the spec",
            "device 0: /dev/kfd is of type \"b\" on this host, \"c\" in the spec",
            "device all: /dev/dri/renderD128 has mode 0666 on this host, 0660 in the spec",
            "device all: /dev/dri/renderD128 has owner 5 on this host, 0 in the spec",
            "device all: /dev/dri/renderD128 has group 110 on this host, 109 in the spec",
            "device all: /dev/kfd is of type \"b\" on this host, \"c\" in the spec",
        };
        expect(spec, &h, want, 8);
        json_decref(spec);
        test_host_free(&h);
}

static void test_devices_missing_and_extra(void **state)
{
        (void)state;
        struct ctk_cdi_host h4, h1;
        test_host_4(&h4);
        test_host_1(&h1);
        json_t *spec = generate(&h1, false, false);
        /* the host gained GPUs (card1/renderD128 is now index 0) */
        const char *gained[] = {
            "device 0: in the spec but not on this host: /dev/dri/card0; on this host but not in the spec: "
            "/dev/dri/card1",
            "device all: in the spec but not on this host: /dev/dri/card0; on this host but not in the spec: "
            "/dev/dri/card1, /dev/dri/card2, /dev/dri/renderD129, /dev/dri/card3, /dev/dri/renderD130, "
            "/dev/dri/renderD131",
            "device 1 is on this host (/dev/dri/card2, /dev/dri/renderD129, /dev/kfd), but not in the spec",
            "device 2 is on this host (/dev/dri/card3, /dev/dri/renderD130, /dev/kfd), but not in the spec",
            "device 3 is on this host (/dev/dri/renderD131, /dev/kfd), but not in the spec",
        };
        expect(spec, &h4, gained, 5);
        json_decref(spec);

        /* the host lost GPUs */
        spec = generate(&h4, false, false);
        struct ctk_cdi_report rep = {0};
        ctk_cdi_fresh_check(spec, &h1, &rep);
        assert_true(ctk_strv_contains(&rep.errors, "device 1 is in the spec, but this host has GPUs 0-0 only"));
        assert_true(ctk_strv_contains(&rep.errors, "device 3 is in the spec, but this host has GPUs 0-0 only"));
        ctk_cdi_report_clear(&rep);
        json_decref(spec);
        test_host_free(&h4);
        test_host_free(&h1);
}

static void test_uuid_devices(void **state)
{
        (void)state;
        struct ctk_cdi_host h;
        test_host_4(&h);
        json_t *spec = generate(&h, true, false);
        /* names are matched as UUIDs: case and zero padding do not matter */
        json_object_set_new(json_array_get(json_object_get(spec, "devices"), 5), "name",
                            json_string("0x012fe4f7fdaf06b9"));
        expect(spec, &h, NULL, 0);
        h.gpus[1].uuid = 0x1234;
        h.gpus[2].uuid = 0x1234;
        const char *want[] = {
            "device 0x012fe4f7fdaf06b9 is in the spec, but no GPU on this host has that UUID",
            "device 0x1234 is on this host (/dev/dri/card2, /dev/dri/renderD129, /dev/dri/card3, "
            "/dev/dri/renderD130, /dev/kfd), but not in the spec",
        };
        expect(spec, &h, want, 2);
        json_decref(spec);
        test_host_free(&h);
}

static void test_additional_gids(void **state)
{
        (void)state;
        struct ctk_cdi_host h;
        test_host_1(&h);
        json_t *spec = generate(&h, false, true);
        h.kfd.gid = 110;
        struct ctk_cdi_report rep = {0};
        ctk_cdi_fresh_check(spec, &h, &rep);
        assert_true(ctk_strv_contains(
            &rep.errors, "device 0: additionalGids 44, 109 in the spec; this host's nodes need 44, 109, 110"));
        ctk_cdi_report_clear(&rep);
        json_decref(spec);
        test_host_free(&h);
}

/* What the Go toolkit writes: cdiVersion 0.6.0, zero major/minor omitted,
 * an empty top-level containerEdits.  Still a fresh spec. */
static void test_go_style_spec(void **state)
{
        (void)state;
        struct ctk_cdi_host h;
        test_host_1(&h);
        json_t *spec = generate(&h, false, false);
        json_object_set_new(spec, "cdiVersion", json_string("0.6.0"));
        json_object_set_new(spec, "containerEdits", json_object());
        json_object_del(node(spec, 0, 0), "minor");
        json_object_del(node(spec, 0, 2), "minor");
        expect(spec, &h, NULL, 0);
        /* no major at all: the runtime takes both numbers from the host */
        json_object_del(node(spec, 0, 1), "major");
        json_object_del(node(spec, 0, 1), "minor");
        h.gpus[0].nodes[1].minor = 129;
        const char *want[] = {"device all: /dev/dri/renderD128 is 226:129 on this host, 226:128 in the spec"};
        expect(spec, &h, want, 1);
        json_decref(spec);
        test_host_free(&h);
}

static void test_long_lists_are_shortened(void **state)
{
        (void)state;
        struct ctk_cdi_host h4, h1;
        test_host_4(&h4);
        test_host_1(&h1);
        json_t *spec = generate(&h4, false, false);
        /* "all" of the 4-GPU spec has 7 DRM nodes the 1-GPU host lacks; the
         * 4-GPU host's "all" device, compared with a 1-GPU spec, 8 extra ones */
        json_t *all = json_array_get(json_object_get(spec, "devices"), 4);
        json_t *nodes = json_object_get(json_object_get(all, "containerEdits"), "deviceNodes");
        json_array_insert_new(nodes, 0, json_pack("{s:s}", "path", "/dev/dri/renderD200"));
        json_array_insert_new(nodes, 0, json_pack("{s:s}", "path", "/dev/dri/renderD201"));
        struct ctk_cdi_report rep = {0};
        ctk_cdi_fresh_check(spec, &h1, &rep);
        assert_true(ctk_strv_contains(&rep.errors, "device all: in the spec but not on this host: /dev/dri/renderD201, "
                                                   "/dev/dri/renderD200, /dev/dri/card1, /dev/dri/card2, "
                                                   "/dev/dri/renderD129, /dev/dri/card3, /dev/dri/renderD130, "
                                                   "/dev/dri/renderD131; on this host but not in the spec: "
                                                   "/dev/dri/card0"));
        json_array_insert_new(nodes, 0, json_pack("{s:s}", "path", "/dev/dri/renderD202"));
        ctk_cdi_report_clear(&rep);
        ctk_cdi_fresh_check(spec, &h1, &rep);
        assert_true(ctk_strv_contains(&rep.errors, "device all: in the spec but not on this host: /dev/dri/renderD202, "
                                                   "/dev/dri/renderD201, /dev/dri/renderD200, /dev/dri/card1, "
                                                   "/dev/dri/card2, /dev/dri/renderD129, /dev/dri/card3, "
                                                   "/dev/dri/renderD130 and 1 more; on this host but not in the spec: "
                                                   "/dev/dri/card0"));
        ctk_cdi_report_clear(&rep);
        json_decref(spec);
        test_host_free(&h4);
        test_host_free(&h1);
}

static void test_foreign_device_name(void **state)
{
        (void)state;
        struct ctk_cdi_host h;
        test_host_1(&h);
        json_t *spec = generate(&h, false, false);
        json_object_set_new(json_array_get(json_object_get(spec, "devices"), 0), "name", json_string("gpu0"));
        const char *want[] = {
            "device \"gpu0\" is in the spec, but is not a GPU index, UUID or \"all\"",
            "device 0 is on this host (/dev/dri/card0, /dev/dri/renderD128, /dev/kfd), but not in the spec",
        };
        expect(spec, &h, want, 2);
        json_decref(spec);
        test_host_free(&h);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_fresh_spec),
            cmocka_unit_test(test_numbers_changed),
            cmocka_unit_test(test_mode_owner_group_type),
            cmocka_unit_test(test_devices_missing_and_extra),
            cmocka_unit_test(test_uuid_devices),
            cmocka_unit_test(test_additional_gids),
            cmocka_unit_test(test_go_style_spec),
            cmocka_unit_test(test_long_lists_are_shortened),
            cmocka_unit_test(test_foreign_device_name),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
