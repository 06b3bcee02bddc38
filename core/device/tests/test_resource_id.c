/* Unit tests of the Swarm resource ids (core/device/resource_id.c): what
 * runtime configure --swarm-resources writes, and that the selection grammar
 * resolves every id it writes back to the same device. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/device/resource_id.h"
#include "core/device/select.h"

/* Four GPUs, one device each. */
static struct ctk_gpu seed_v[] = {
    {.index = 0, .pci = "0000:03:00.0", .has_uuid = true, .uuid = 0xEA35F57CC80DEB35},
    {.index = 1, .pci = "0000:23:00.0", .has_uuid = true, .uuid = 0x89CAA15875FF5A43},
    {.index = 2, .pci = "0000:43:00.0", .has_uuid = true, .uuid = 0x6E32F10EFC982B4C},
    {.index = 3, .pci = "0000:63:00.0", .has_uuid = true, .uuid = 0x12FE4F7FDAF06B9},
};
static const struct ctk_gpu_list seed = {seed_v, 4};

/* A GPU in three partitions (sharing its UUID), then an unpartitioned one,
 * then a GPU in two partitions. */
static struct ctk_gpu part_v[] = {
    {.index = 0, .pci = "0000:0c:00.0", .has_uuid = true, .uuid = 0xE3AA140F9A5F9E31},
    {.index = 1, .pci = "0000:0c:00.0", .has_uuid = true, .uuid = 0xE3AA140F9A5F9E31},
    {.index = 2, .pci = "0000:0c:00.0", .has_uuid = true, .uuid = 0xE3AA140F9A5F9E31},
    {.index = 3, .pci = "0000:22:00.0", .has_uuid = true, .uuid = 0x123456789},
    {.index = 4, .pci = "0000:38:00.0", .has_uuid = true, .uuid = 0x2250F807CAF2231A},
    {.index = 5, .pci = "0000:38:00.0", .has_uuid = true, .uuid = 0x2250F807CAF2231A},
};
static const struct ctk_gpu_list part = {part_v, 6};

/* No UUID on GPU 1; GPUs 2 and 3 are distinct GPUs reporting the same one. */
static struct ctk_gpu odd_v[] = {
    {.index = 0, .pci = "0000:03:00.0", .has_uuid = true, .uuid = 0x1111},
    {.index = 1, .pci = "0000:23:00.0", .has_uuid = false},
    {.index = 2, .pci = "0000:43:00.0", .has_uuid = true, .uuid = 0},
    {.index = 3, .pci = "0000:63:00.0", .has_uuid = true, .uuid = 0},
};
static const struct ctk_gpu_list odd = {odd_v, 4};
static const struct ctk_gpu_list empty = {NULL, 0};

static void check_format(const struct ctk_gpu_list *gpus, size_t i, enum ctk_resource_id_form form, const char *want)
{
        char *id = NULL;
        struct ctk_error *err = NULL;
        if (ctk_resource_id_format(gpus, i, form, &id, &err) < 0)
                fail_msg("GPU %zu: unexpected error: %s", i, err->msg);
        if (strcmp(id, want) != 0)
                fail_msg("GPU %zu: id '%s', want '%s'", i, id, want);
        free(id);
}

static void check_format_error(const struct ctk_gpu_list *gpus, size_t i, const char *want)
{
        char *id = NULL;
        struct ctk_error *err = NULL;
        assert_int_equal(ctk_resource_id_format(gpus, i, CTK_RESOURCE_ID_UUID, &id, &err), -1);
        assert_null(id);
        assert_non_null(err);
        if (strcmp(err->msg, want) != 0)
                fail_msg("GPU %zu:\n got: %s\nwant: %s", i, err->msg, want);
        ctk_error_free(err);
}

/* value selects exactly the one device index through the selection grammar. */
static void check_selects(const char *value, const struct ctk_gpu_list *gpus, size_t index)
{
        struct ctk_selection s;
        struct ctk_error *err = NULL;
        if (ctk_select_parse(value, gpus, &s, &err) < 0)
                fail_msg("'%s': unexpected error: %s", value, err->msg);
        if (s.kind != CTK_SELECT_LIST || s.n != 1 || s.idx[0] != index)
                fail_msg("'%s': %zu GPUs selected (first %zu), want GPU %zu only", value, s.n, s.n > 0 ? s.idx[0] : 0,
                         index);
        ctk_selection_clear(&s);
}

static void check_select_error(const char *value, const struct ctk_gpu_list *gpus, const char *want)
{
        struct ctk_selection s;
        struct ctk_error *err = NULL;
        if (ctk_select_parse(value, gpus, &s, &err) == 0)
                fail_msg("'%s': accepted (%zu GPUs), want error '%s'", value, s.n, want);
        assert_non_null(err);
        if (strcmp(err->msg, want) != 0)
                fail_msg("'%s':\n got: %s\nwant: %s", value, err->msg, want);
        assert_null(s.idx);
        ctk_error_free(err);
}

static void test_format_uuid_whole_gpus(void **state)
{
        (void)state;
        check_format(&seed, 0, CTK_RESOURCE_ID_UUID, "0xEA35F57CC80DEB35");
        check_format(&seed, 3, CTK_RESOURCE_ID_UUID, "0x12FE4F7FDAF06B9");
}

static void test_format_uuid_partitions(void **state)
{
        (void)state;
        check_format(&part, 0, CTK_RESOURCE_ID_UUID, "0xE3AA140F9A5F9E31:0");
        check_format(&part, 1, CTK_RESOURCE_ID_UUID, "0xE3AA140F9A5F9E31:1");
        check_format(&part, 2, CTK_RESOURCE_ID_UUID, "0xE3AA140F9A5F9E31:2");
        check_format(&part, 3, CTK_RESOURCE_ID_UUID, "0x123456789");
        /* counted within its own GPU, whatever comes before it */
        check_format(&part, 4, CTK_RESOURCE_ID_UUID, "0x2250F807CAF2231A:0");
        check_format(&part, 5, CTK_RESOURCE_ID_UUID, "0x2250F807CAF2231A:1");
}

static void test_format_index(void **state)
{
        (void)state;
        check_format(&part, 0, CTK_RESOURCE_ID_INDEX, "gpu0");
        check_format(&part, 5, CTK_RESOURCE_ID_INDEX, "gpu5");
        /* the index form needs no UUID */
        check_format(&odd, 1, CTK_RESOURCE_ID_INDEX, "gpu1");
}

static void test_format_errors(void **state)
{
        (void)state;
        check_format_error(&odd, 1, "GPU 1 reports no UUID");
        check_format_error(&odd, 2, "GPUs 2 and 3 both report UUID 0x0");
        check_format_error(&odd, 3, "GPUs 2 and 3 both report UUID 0x0");
        check_format_error(&odd, 4, "GPU 4 does not exist");
}

/* Every id written, in either form, selects its own device and nothing else. */
static void test_round_trip(void **state)
{
        (void)state;
        const struct ctk_gpu_list *hosts[] = {&seed, &part};
        for (size_t h = 0; h < 2; h++)
                for (size_t i = 0; i < hosts[h]->n; i++)
                        for (int f = CTK_RESOURCE_ID_UUID; f <= CTK_RESOURCE_ID_INDEX; f++) {
                                char *id = NULL;
                                struct ctk_error *err = NULL;
                                assert_int_equal(ctk_resource_id_format(hosts[h], i, f, &id, &err), 0);
                                check_selects(id, hosts[h], i);
                                free(id);
                        }
}

static void test_resolve_forms(void **state)
{
        (void)state;
        /* UUIDs in any case, zero padded, with or without 0x */
        check_selects("0xe3aa140f9a5f9e31:2", &part, 2);
        check_selects("E3AA140F9A5F9E31:1", &part, 1);
        check_selects("0x0000000123456789:0", &part, 3); /* :0 names an unpartitioned GPU */
        check_selects("0x2250F807CAF2231A:01", &part, 5);
        check_selects(" gpu3 ", &part, 3);
        /* a whole partitioned GPU is still its plain UUID */
        struct ctk_selection s;
        struct ctk_error *err = NULL;
        assert_int_equal(ctk_select_parse("0xE3AA140F9A5F9E31", &part, &s, &err), 0);
        assert_int_equal(s.n, 3);
        ctk_selection_clear(&s);
}

static void test_resolve_in_lists_and_env(void **state)
{
        (void)state;
        struct ctk_selection s;
        struct ctk_error *err = NULL;
        /* what Swarm hands a task: the granted ids, comma-joined */
        char *env[] = {"DOCKER_RESOURCE_AMD_GPU=0x2250F807CAF2231A:1,0xE3AA140F9A5F9E31:0", "HOME=/"};
        static const char *const kinds[] = {"AMD_GPU", "GPU", NULL};
        assert_int_equal(ctk_select_from_env(env, 2, kinds, &part, &s, &err), 0);
        assert_int_equal(s.n, 2);
        assert_int_equal(s.idx[0], 0);
        assert_int_equal(s.idx[1], 5);
        ctk_selection_clear(&s);
        assert_int_equal(ctk_select_parse("gpu1, 3, 0x123456789:0,gpu1", &part, &s, &err), 0);
        assert_int_equal(s.n, 2);
        assert_int_equal(s.idx[0], 1);
        assert_int_equal(s.idx[1], 3);
        ctk_selection_clear(&s);
}

static void test_resolve_errors_named(void **state)
{
        (void)state;
        check_select_error("0x123456789:1", &part,
                           "GPU 0x123456789:1 does not exist (GPU 0x123456789 is not partitioned: 0x123456789:0)");
        check_select_error("0xE3AA140F9A5F9E31:3", &part,
                           "GPU 0xE3AA140F9A5F9E31:3 does not exist (GPU 0xE3AA140F9A5F9E31 has partitions 0-2)");
        check_select_error("0xABC:0", &part,
                           "no GPU has UUID 0xABC (for 0xABC:0; 'amd-ctk gpu list' shows their UUIDs)");
        check_select_error("0x0:0", &odd, "0x0:0: GPUs 2 and 3 both report UUID 0x0");
        check_select_error("gpu6", &part, "GPU gpu6 does not exist (this host has gpu0 to gpu5)");
        check_select_error("gpu0", &empty, "GPU gpu0 does not exist (this host has no AMD GPUs)");
        static const char *const bad_partition[] = {"0xE3AA140F9A5F9E31:",          ":1",     "0xE3AA140F9A5F9E31:x",
                                                    "0xE3AA140F9A5F9E31:-1",        "0xZZ:1", "0xE3AA140F9A5F9E31:1:2",
                                                    "0xE3AA140F9A5F9E31:123456789", "gpu0:1"};
        for (size_t i = 0; i < sizeof(bad_partition) / sizeof(bad_partition[0]); i++) {
                char want[256];
                snprintf(want, sizeof(want),
                         "'%s' is not a GPU partition id (expected 0x<UUID>:<N>, e.g. 0xE3AA140F9A5F9E31:3)",
                         bad_partition[i]);
                check_select_error(bad_partition[i], &part, want);
        }
        static const char *const bad_index[] = {"gpu", "gpux", "gpu-1", "gpu 1", "gpu123456789", "gpu0x1"};
        for (size_t i = 0; i < sizeof(bad_index) / sizeof(bad_index[0]); i++) {
                char want[256];
                snprintf(want, sizeof(want), "'%s' is not a GPU id (expected gpu<N>, e.g. gpu0)", bad_index[i]);
                check_select_error(bad_index[i], &part, want);
        }
}

static void test_shape(void **state)
{
        (void)state;
        assert_true(ctk_resource_id_is("gpu0", 4));
        assert_true(ctk_resource_id_is("gpux", 4));
        assert_true(ctk_resource_id_is("0x1:0", 5));
        assert_true(ctk_resource_id_is(":", 1));
        /* the grammar's other tokens */
        static const char *const others[] = {"all",           "none", "void", "0",    "0-3",  "0x1", "EA35F57CC80DEB35",
                                             "amd.com/gpu=1", "gp",   "x",    "GPU0", "gpu=0"};
        for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
                if (ctk_resource_id_is(others[i], strlen(others[i])))
                        fail_msg("'%s' taken for a resource id", others[i]);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_format_uuid_whole_gpus),
            cmocka_unit_test(test_format_uuid_partitions),
            cmocka_unit_test(test_format_index),
            cmocka_unit_test(test_format_errors),
            cmocka_unit_test(test_round_trip),
            cmocka_unit_test(test_resolve_forms),
            cmocka_unit_test(test_resolve_in_lists_and_env),
            cmocka_unit_test(test_resolve_errors_named),
            cmocka_unit_test(test_shape),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
