/* Mode cdi's freshness rule on a simulated host: a repartition, renumbered
 * nodes and changed modes make the spec stale; another vendor's GPU does
 * not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backends/fakefs/tests/fakefs_test.h"
#include "core/base/base.h"
#include "core/base/tests/scratch_dir.h"
#include "core/cdi/cdi.h"
#include "core/json/json.h"

/* Two MI300X in SPX (card0/renderD128, card8/renderD136) and an Intel iGPU
 * (card16/renderD144, i915). */
static const char *const profile =
    "{\"cpu_nodes\": [{\"node\": 0}],\n"
    " \"gpus\": [\n"
    "  {\"pci\": \"0000:05:00.0\", \"device_id\": \"0x74a1\", \"unique_id\": \"0xE3AA140F9A5F9E31\",\n"
    "   \"kfd_node\": 1, \"card_minor\": 0, \"render_minor\": 128,\n"
    "   \"partition\": {\"compute\": \"SPX\", \"memory\": \"NPS1\", \"xcds\": 8}},\n"
    "  {\"pci\": \"0000:27:00.0\", \"device_id\": \"0x74a1\", \"unique_id\": \"0x2250F807CAF2231A\",\n"
    "   \"kfd_node\": 2, \"card_minor\": 8, \"render_minor\": 136,\n"
    "   \"partition\": {\"compute\": \"SPX\", \"memory\": \"NPS1\", \"xcds\": 8}},\n"
    "  {\"pci\": \"0000:00:02.0\", \"vendor_id\": \"0x8086\", \"device_id\": \"0x4680\", \"class\": \"0x030000\",\n"
    "   \"driver\": \"i915\", \"card_minor\": 16, \"render_minor\": 144}\n"
    " ]}\n";

struct fixture {
        char dir[64];
        struct test_backend *t;
        struct ctk_fakefs_host *host; /* the test backend's */
        struct ctk_backend *b;
        char *spec_path;
};

/* Writes the spec of the host as it is now, with an edit (NULL: none). */
static void generate(struct fixture *f, void (*edit)(json_t *))
{
        _cleanup_gpu_list_ struct ctk_gpu_list gpus = {0};
        _cleanup_cdi_host_ struct ctk_cdi_host host = {0};
        _cleanup_json_ json_t *spec = NULL;
        struct ctk_cdi_options o;
        ctk_cdi_options_init(&o);
        o.by_uuid = true;
        assert_int_equal(ctk_discover_gpus(f->b, &gpus, NULL), 0);
        assert_int_equal(ctk_cdi_host_collect(f->b, &gpus, &host, NULL), 0);
        assert_int_equal(ctk_cdi_spec_build(&host, &o, &spec, NULL), 0);
        if (edit != NULL)
                edit(spec);
        _cleanup_free_ char *text = ctk_cdi_spec_dump(spec);
        assert_int_equal(ctk_cdi_spec_save(f->spec_path, text, true, NULL, NULL), 0);
}

static int setup(void **state)
{
        struct fixture *f = calloc(1, sizeof(*f));
        if (f == NULL)
                return -1;
        *state = f;
        strcpy(f->dir, "/tmp/ctk-cdi-stale-XXXXXX");
        if (scratch_dir_make(f->dir) == NULL)
                return -1;
        f->t = test_backend_new(profile);
        f->host = f->t->host;
        f->b = f->t->b;
        f->spec_path = scratch_path(f->dir, "amd.json");
        generate(f, NULL);
        return 0;
}

static int teardown(void **state)
{
        struct fixture *f = *state;
        test_backend_free(f->t);
        int r = scratch_dir_remove(f->dir);
        free(f->spec_path);
        free(f);
        return r;
}

/* The rule's verdict: NULL (fresh) or the difference; with request, for the devices named. */
static char *verdict(struct fixture *f, const char *request)
{
        const char *dirs[] = {f->dir};
        _cleanup_cdi_cache_ struct ctk_cdi_cache c;
        assert_int_equal(ctk_cdi_cache_load(dirs, 1, &c, NULL), 0);
        assert_int_equal(c.nproblems, 0);
        struct ctk_cdi_resolved r = {0};
        struct ctk_strv names _cleanup_strv_ = {0};
        if (request != NULL) {
                assert_int_equal(ctk_strv_push(&names, request), 0);
                assert_int_equal(ctk_cdi_resolve(&c, &names, NULL, &r, NULL), 0);
        }
        char *why = NULL;
        assert_int_equal(ctk_cdi_stale_dri(&c, "amd.com/gpu", f->b, &why, NULL), 0);
        if (why == NULL && request != NULL)
                assert_int_equal(ctk_cdi_stale_requested(&r, "amd.com/gpu", f->b, &why, NULL), 0);
        ctk_cdi_resolved_clear(&r);
        return why;
}

static void assert_fresh(struct fixture *f, const char *request)
{
        _cleanup_free_ char *why = verdict(f, request);
        if (why != NULL)
                fail_msg("stale: %s", why);
}

static void assert_stale(struct fixture *f, const char *request, const char *want)
{
        _cleanup_free_ char *why = verdict(f, request);
        if (why == NULL)
                fail_msg("fresh, want stale: %s", want);
        if (strcmp(why, want) != 0)
                fail_msg("got  %s\nwant %s", why, want);
}

static void test_fresh_beside_another_vendor(void **state)
{
        struct fixture *f = *state;
        /* the iGPU's card16/renderD144 are not in the spec: not ours */
        assert_fresh(f, NULL);
        assert_fresh(f, "amd.com/gpu=all");
        assert_fresh(f, "amd.com/gpu=0xE3AA140F9A5F9E31");
}

static void test_repartition(void **state)
{
        struct fixture *f = *state;
        assert_int_equal(ctk_fakefs_host_set_compute_partition(f->host, "0000:05:00.0", "CPX", NULL), 0);
        /* GPU 0 now has 8 partitions: 7 more card and render nodes */
        _cleanup_free_ char *why = verdict(f, NULL);
        assert_non_null(why);
        assert_non_null(strstr(why, " is on this host but not in the spec (and 13 more differences)"));
        assert_int_equal(strncmp(why, "/dev/dri/", 9), 0);
        assert_int_equal(ctk_fakefs_host_set_compute_partition(f->host, "0000:05:00.0", "SPX", NULL), 0);
        assert_fresh(f, "amd.com/gpu=0");
        /* the spec written in CPX, the host back in SPX: nodes gone */
        assert_int_equal(ctk_fakefs_host_set_compute_partition(f->host, "0000:05:00.0", "CPX", NULL), 0);
        generate(f, NULL);
        assert_fresh(f, NULL);
        assert_int_equal(ctk_fakefs_host_set_compute_partition(f->host, "0000:05:00.0", "SPX", NULL), 0);
        why = (free(why), verdict(f, NULL));
        assert_non_null(why);
        assert_non_null(strstr(why, " is in the spec but not on this host"));
}

/* The spec's first device's second node (renderD128) says 226:200. */
static void renumber(json_t *spec)
{
        json_t *n = json_array_get(
            json_object_get(json_object_get(json_array_get(json_object_get(spec, "devices"), 0), "containerEdits"),
                            "deviceNodes"),
            1);
        json_object_set_new(n, "minor", json_integer(200));
}

/* ... and /dev/kfd of every device mode 0666. */
static void kfd_mode(json_t *spec)
{
        size_t i;
        json_t *d;
        json_array_foreach(json_object_get(spec, "devices"), i, d)
        {
                json_t *nodes = json_object_get(json_object_get(d, "containerEdits"), "deviceNodes");
                json_object_set_new(json_array_get(nodes, json_array_size(nodes) - 1), "fileMode", json_integer(0666));
        }
}

static void test_numbers_and_modes(void **state)
{
        struct fixture *f = *state;
        generate(f, renumber);
        assert_stale(f, NULL, "device renderD128: /dev/dri/renderD128 is 226:128 on this host, 226:200 in the spec");
        generate(f, kfd_mode);
        /* /dev/kfd is outside /dev/dri: checked for what is requested */
        assert_fresh(f, NULL);
        assert_stale(f, "amd.com/gpu=1", "device 1: /dev/kfd has mode 0660 on this host, 0666 in the spec");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_setup_teardown(test_fresh_beside_another_vendor, setup, teardown),
            cmocka_unit_test_setup_teardown(test_repartition, setup, teardown),
            cmocka_unit_test_setup_teardown(test_numbers_and_modes, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
