/* Unit tests of the GPU selection grammar (core/device/select.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "core/device/select.h"

/* The 4-GPU host of the GPU tracker document. */
static struct ctk_gpu seed_v[] = {
    {.index = 0, .pci = "0000:03:00.0", .has_uuid = true, .uuid = 0xEA35F57CC80DEB35},
    {.index = 1, .pci = "0000:23:00.0", .has_uuid = true, .uuid = 0x89CAA15875FF5A43},
    {.index = 2, .pci = "0000:43:00.0", .has_uuid = true, .uuid = 0x6E32F10EFC982B4C},
    {.index = 3, .pci = "0000:63:00.0", .has_uuid = true, .uuid = 0x12FE4F7FDAF06B9},
};
static const struct ctk_gpu_list seed = {seed_v, 4};

static struct ctk_gpu one_v[] = {{.index = 0, .pci = "0000:03:00.0", .has_uuid = false}};
static const struct ctk_gpu_list one = {one_v, 1};
static const struct ctk_gpu_list empty = {NULL, 0};

/* Two GPUs split in partitions sharing their GPU's id; a GPU with a decimal-looking id. */
static struct ctk_gpu part_v[] = {
    {.index = 0, .pci = "0000:0c:00.0", .has_uuid = true, .uuid = 0xAAAA000000000001},
    {.index = 1, .pci = "0000:0c:00.0", .has_uuid = true, .uuid = 0xAAAA000000000001},
    {.index = 2, .pci = "0000:22:00.0", .has_uuid = true, .uuid = 0xBBBB000000000002},
    {.index = 3, .pci = "0000:22:00.0", .has_uuid = true, .uuid = 0xBBBB000000000002},
    {.index = 4, .pci = "0000:38:00.0", .has_uuid = true, .uuid = 0x123456789},
};
static const struct ctk_gpu_list part = {part_v, 5};

/* Two distinct GPUs reporting the same id (firmware reporting unique_id 0). */
static struct ctk_gpu dup_v[] = {
    {.index = 0, .pci = "0000:03:00.0", .has_uuid = true, .uuid = 0},
    {.index = 1, .pci = "0000:23:00.0", .has_uuid = true, .uuid = 0},
};
static const struct ctk_gpu_list dup_gpus = {dup_v, 2};

/* Expects value to select exactly the n indices in want. */
static void check_list(const char *value, const struct ctk_gpu_list *gpus, size_t n, const size_t *want)
{
        struct ctk_selection s;
        struct ctk_error *err = NULL;
        int r = ctk_select_parse(value, gpus, &s, &err);
        if (r < 0)
                fail_msg("'%s': unexpected error: %s", value, err->msg);
        assert_null(err);
        if (s.kind != CTK_SELECT_LIST)
                fail_msg("'%s': kind %d, want LIST", value, s.kind);
        if (s.n != n)
                fail_msg("'%s': %zu GPUs selected, want %zu", value, s.n, n);
        for (size_t i = 0; i < n; i++)
                if (s.idx[i] != want[i])
                        fail_msg("'%s': idx[%zu] = %zu, want %zu", value, i, s.idx[i], want[i]);
        ctk_selection_clear(&s);
        assert_null(s.idx);
}

#define LIST(value, gpus, ...)                                                                                         \
        do {                                                                                                           \
                const size_t want_[] = {__VA_ARGS__};                                                                  \
                check_list(value, gpus, sizeof(want_) / sizeof(want_[0]), want_);                                      \
        } while (0)
#define EMPTY_LIST(value, gpus) check_list(value, gpus, 0, NULL)

static void check_kind(const char *value, enum ctk_select_kind kind)
{
        struct ctk_selection s;
        struct ctk_error *err = NULL;
        assert_int_equal(ctk_select_parse(value, &seed, &s, &err), 0);
        assert_null(err);
        if (s.kind != kind)
                fail_msg("'%s': kind %d, want %d", value ? value : "(null)", s.kind, kind);
        assert_int_equal(s.n, 0);
        assert_null(s.idx);
}

static void check_error(const char *value, const struct ctk_gpu_list *gpus, const char *want)
{
        struct ctk_selection s = {.kind = CTK_SELECT_LIST, .idx = (size_t *)&s, .n = 99};
        struct ctk_error *err = NULL;
        int r = ctk_select_parse(value, gpus, &s, &err);
        if (r >= 0)
                fail_msg("'%s': accepted (%zu GPUs), want error '%s'", value, s.n, want);
        assert_non_null(err);
        if (strcmp(err->msg, want) != 0)
                fail_msg("'%s':\n got: %s\nwant: %s", value, err->msg, want);
        /* Nothing leaks or dangles on error. */
        assert_int_equal(s.kind, CTK_SELECT_UNSET);
        assert_null(s.idx);
        assert_int_equal(s.n, 0);
        ctk_error_free(err);
}

/* --- the rows of the Go toolkit's table (spec section 2), with our semantics --- */

static void test_table_all(void **state)
{
        (void)state;
        LIST("all", &seed, 0, 1, 2, 3);
}

static void test_table_range_with_duplicate(void **state)
{
        (void)state;
        LIST("0-2,1", &seed, 0, 1, 2); /* Go: 0 1 1 2 */
}

static void test_table_range_past_end(void **state)
{
        (void)state;
        /* Go: valid 3, invalid 4 5, silently. */
        check_error("3-5", &seed, "GPU range 3-5 goes past the last GPU (this host has GPUs 0-3)");
}

static void test_table_bad_range_garbage_empty(void **state)
{
        (void)state;
        /* Go: nothing valid, warnings only.  The first bad token is reported. */
        check_error("2-1,x,", &seed, "invalid GPU range '2-1' (start is greater than end)");
        check_error("x,", &seed,
                    "'x' is not a GPU index, range or UUID (expected all, none, or a list like 0,2-3,0x<UUID>)");
        check_error("0,", &seed, "empty entry in GPU list '0,'");
}

static void test_table_uuid_prefixed(void **state)
{
        (void)state;
        LIST("0xEA35F57CC80DEB35", &seed, 0);
}

static void test_table_uuid_bare(void **state)
{
        (void)state;
        LIST("EA35F57CC80DEB35", &seed, 0);
}

static void test_table_eight_hex_chars(void **state)
{
        (void)state;
        check_error("abcdef12", &seed,
                    "'abcdef12' is not a GPU index, range or UUID (expected all, none, or a list like 0,2-3,0x<UUID>)");
}

/* --- keywords --- */

static void test_all_any_case_and_in_lists(void **state)
{
        (void)state;
        LIST("All", &seed, 0, 1, 2, 3);
        LIST("ALL", &seed, 0, 1, 2, 3);
        LIST("aLL", &seed, 0, 1, 2, 3);
        LIST("  all\t", &seed, 0, 1, 2, 3);
        LIST("all,0", &seed, 0, 1, 2, 3);
        LIST("1, all", &seed, 0, 1, 2, 3);
        LIST("all", &one, 0);
        EMPTY_LIST("all", &empty); /* all of nothing is not an error */
}

static void test_unset_values(void **state)
{
        (void)state;
        check_kind(NULL, CTK_SELECT_UNSET);
        check_kind("", CTK_SELECT_UNSET);
        check_kind("   ", CTK_SELECT_UNSET);
        check_kind("void", CTK_SELECT_UNSET);
        check_kind("VOID", CTK_SELECT_UNSET);
        check_kind(" void ", CTK_SELECT_UNSET);
}

static void test_none(void **state)
{
        (void)state;
        check_kind("none", CTK_SELECT_NONE);
        check_kind("None", CTK_SELECT_NONE);
        check_kind(" NONE\n", CTK_SELECT_NONE);
}

static void test_keywords_not_combinable(void **state)
{
        (void)state;
        check_error("none,0", &seed, "'none' cannot be combined with other entries");
        check_error("0, void", &seed, "'void' cannot be combined with other entries");
        check_error("all,none", &seed, "'none' cannot be combined with other entries");
}

/* --- indices --- */

static void test_indices(void **state)
{
        (void)state;
        LIST("0", &seed, 0);
        LIST("3", &seed, 3);
        LIST("2,0,1", &seed, 0, 1, 2);
        LIST("0, 1", &seed, 0, 1);
        LIST(" 0 ,\t1 ", &seed, 0, 1);
        LIST("0,0,0", &seed, 0);
        LIST("01", &seed, 1);
        LIST("00000003", &seed, 3);
}

static void test_index_missing(void **state)
{
        (void)state;
        check_error("9", &seed, "GPU 9 does not exist (this host has GPUs 0-3)");
        check_error("4", &seed, "GPU 4 does not exist (this host has GPUs 0-3)");
        check_error("0,1,4", &seed, "GPU 4 does not exist (this host has GPUs 0-3)");
        check_error("1", &one, "GPU 1 does not exist (this host has GPU 0)");
        check_error("0", &empty, "GPU 0 does not exist (this host has no AMD GPUs)");
        check_error("99999999", &seed, "GPU 99999999 does not exist (this host has GPUs 0-3)");
}

static void test_index_garbage(void **state)
{
        (void)state;
        const char *bad[] = {"+1", "1.0", "x", "one", "1a", "0b1", "#1", "1 2", "GPU0", "0x1 2"};
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                struct ctk_selection s;
                struct ctk_error *err = NULL;
                if (ctk_select_parse(bad[i], &seed, &s, &err) == 0)
                        fail_msg("'%s' accepted", bad[i]);
                assert_non_null(strstr(err->msg, "not a"));
                ctk_error_free(err);
        }
}

static void test_empty_entries(void **state)
{
        (void)state;
        check_error("0,,1", &seed, "empty entry in GPU list '0,,1'");
        check_error(",0", &seed, "empty entry in GPU list ',0'");
        check_error("0, ,1", &seed, "empty entry in GPU list '0, ,1'");
        check_error(",", &seed, "empty entry in GPU list ','");
        check_error(" 1, ", &seed, "empty entry in GPU list '1,'");
}

/* --- ranges --- */

static void test_ranges(void **state)
{
        (void)state;
        LIST("0-3", &seed, 0, 1, 2, 3);
        LIST("1-2", &seed, 1, 2);
        LIST("2-2", &seed, 2);
        LIST("0 - 1", &seed, 0, 1);
        LIST("3,0-1", &seed, 0, 1, 3);
        LIST("0-1,1-2", &seed, 0, 1, 2);
        LIST("0-0,3-3", &seed, 0, 3);
        LIST("00-01", &seed, 0, 1);
}

static void test_range_bad_syntax(void **state)
{
        (void)state;
        check_error("2-1", &seed, "invalid GPU range '2-1' (start is greater than end)");
        check_error("-1", &seed, "invalid GPU range '-1' (expected START-END, e.g. 0-3)");
        check_error("1-", &seed, "invalid GPU range '1-' (expected START-END, e.g. 0-3)");
        check_error("1-2-3", &seed, "invalid GPU range '1-2-3' (expected START-END, e.g. 0-3)");
        check_error("a-b", &seed, "invalid GPU range 'a-b' (expected START-END, e.g. 0-3)");
        check_error("1--2", &seed, "invalid GPU range '1--2' (expected START-END, e.g. 0-3)");
        check_error("+1-2", &seed, "invalid GPU range '+1-2' (expected START-END, e.g. 0-3)");
}

static void test_range_bounded_before_expansion(void **state)
{
        (void)state;
        check_error("0-2000000000", &seed, "GPU range 0-2000000000 goes past the last GPU (this host has GPUs 0-3)");
        check_error("0-99999999999999999999999999", &seed,
                    "GPU range 0-99999999999999999999999999 goes past the last GPU (this host has GPUs 0-3)");
        check_error("99999999999999999999999999-1", &seed,
                    "invalid GPU range '99999999999999999999999999-1' (start is greater than end)");
        check_error("4-5", &seed, "GPUs 4-5 do not exist (this host has GPUs 0-3)");
        check_error("0-0", &empty, "GPUs 0-0 do not exist (this host has no AMD GPUs)");
        check_error("0-1", &one, "GPU range 0-1 goes past the last GPU (this host has GPU 0)");
}

/* --- UUIDs --- */

static void test_uuid_forms(void **state)
{
        (void)state;
        LIST("0xea35f57cc80deb35", &seed, 0);
        LIST("0Xea35F57cc80DEB35", &seed, 0);
        LIST("ea35f57cc80deb35", &seed, 0);
        LIST("0x12FE4F7FDAF06B9", &seed, 3);
        LIST("0x012FE4F7FDAF06B9", &seed, 3); /* zero padded: Go rejects it */
        LIST("012FE4F7FDAF06B9", &seed, 3);
        LIST("12fe4f7fdaf06b9", &seed, 3);
        LIST(" 0x89CAA15875FF5A43 ", &seed, 1);
}

static void test_uuid_mixed(void **state)
{
        (void)state;
        LIST("0,0xEA35F57CC80DEB35", &seed, 0); /* Go: 0 0 */
        LIST("0x6E32F10EFC982B4C,0-1", &seed, 0, 1, 2);
        LIST("0x12FE4F7FDAF06B9,0x89CAA15875FF5A43", &seed, 1, 3);
        LIST("3, 89CAA15875FF5A43 ,all", &seed, 0, 1, 2, 3);
}

static void test_uuid_no_match(void **state)
{
        (void)state;
        check_error("0xdeadbeef", &seed,
                    "no GPU has UUID 0xdeadbeef (this host has GPUs 0-3; 'amd-ctk gpu list' shows their UUIDs)");
        check_error(
            "0,0xEF2C1799A1F3E2ED", &seed,
            "no GPU has UUID 0xEF2C1799A1F3E2ED (this host has GPUs 0-3; 'amd-ctk gpu list' shows their UUIDs)");
        check_error("123456789", &seed,
                    "no GPU has UUID 123456789 (this host has GPUs 0-3; 'amd-ctk gpu list' shows their UUIDs)");
        check_error("0x0", &one, "no GPU has UUID 0x0 (this host has GPU 0; 'amd-ctk gpu list' shows their UUIDs)");
        check_error("0x1", &empty,
                    "no GPU has UUID 0x1 (this host has no AMD GPUs; 'amd-ctk gpu list' shows their UUIDs)");
}

static void test_uuid_malformed(void **state)
{
        (void)state;
        check_error("0x", &seed, "'0x' is not a valid GPU UUID (expected 0x and up to 16 hex digits)");
        check_error("0xZZ", &seed, "'0xZZ' is not a valid GPU UUID (expected 0x and up to 16 hex digits)");
        check_error("0x1-0x2", &seed, "'0x1-0x2' is not a valid GPU UUID (expected 0x and up to 16 hex digits)");
        check_error("0x1EA35F57CC80DEB35", &seed,
                    "'0x1EA35F57CC80DEB35' is not a valid GPU UUID (expected 0x and up to 16 hex digits)");
        check_error("99999999999999999999", &seed,
                    "'99999999999999999999' is not a valid GPU UUID (expected 0x and up to 16 hex digits)");
}

static void test_uuid_partitions_share_id(void **state)
{
        (void)state;
        LIST("0xAAAA000000000001", &part, 0, 1);
        LIST("0xbbbb000000000002,0", &part, 0, 2, 3);
        /* Nine or more decimal digits are a UUID written without 0x. */
        LIST("123456789", &part, 4);
        LIST("0x123456789", &part, 4);
}

static void test_uuid_ambiguous(void **state)
{
        (void)state;
        check_error("0x0", &dup_gpus, "UUID 0x0 is ambiguous: GPUs 0 and 1 both report it; select them by index");
        LIST("0-1", &dup_gpus, 0, 1);
}

static void test_uuid_without_id(void **state)
{
        (void)state;
        /* A GPU without a unique_id is never matched, even by 0x0. */
        check_error("0x0", &one, "no GPU has UUID 0x0 (this host has GPU 0; 'amd-ctk gpu list' shows their UUIDs)");
}

/* --- many GPUs --- */

static void test_large_host(void **state)
{
        (void)state;
        struct ctk_gpu v[64] = {{0}};
        for (size_t i = 0; i < 64; i++)
                v[i] = (struct ctk_gpu){.index = i, .pci = "0000:03:00.0", .has_uuid = false};
        struct ctk_gpu_list l = {v, 64};
        LIST("0-3,5,8", &l, 0, 1, 2, 3, 5, 8);
        LIST("63,62,0-1,17-20,8", &l, 0, 1, 8, 17, 18, 19, 20, 62, 63);
        struct ctk_selection s;
        struct ctk_error *err = NULL;
        assert_int_equal(ctk_select_parse("all", &l, &s, &err), 0);
        assert_int_equal(s.n, 64);
        for (size_t i = 0; i < 64; i++)
                assert_int_equal(s.idx[i], i);
        ctk_selection_clear(&s);
        check_error("64", &l, "GPU 64 does not exist (this host has GPUs 0-63)");
}

static void test_long_value(void **state)
{
        (void)state;
        /* 100000 repetitions of "3," then "1": a long value, a short result. */
        size_t reps = 100000;
        char *v = malloc(reps * 2 + 2);
        assert_non_null(v);
        for (size_t i = 0; i < reps; i++) {
                v[2 * i] = '3';
                v[2 * i + 1] = ',';
        }
        v[2 * reps] = '1';
        v[2 * reps + 1] = '\0';
        LIST(v, &seed, 1, 3);
        free(v);
}

/* --- merge --- */

static struct ctk_selection sel(enum ctk_select_kind kind, size_t n, const size_t *idx)
{
        struct ctk_selection s = {.kind = kind, .n = n};
        if (n > 0) {
                s.idx = calloc(n, sizeof(*s.idx));
                memcpy(s.idx, idx, n * sizeof(*idx));
        }
        return s;
}

static void test_merge(void **state)
{
        (void)state;
        struct ctk_error *err = NULL;
        struct ctk_selection a = sel(CTK_SELECT_UNSET, 0, NULL);
        struct ctk_selection unset = sel(CTK_SELECT_UNSET, 0, NULL);
        struct ctk_selection none = sel(CTK_SELECT_NONE, 0, NULL);

        assert_int_equal(ctk_select_merge(&a, &unset, &err), 0);
        assert_int_equal(a.kind, CTK_SELECT_UNSET);
        assert_int_equal(ctk_select_merge(&a, &none, &err), 0);
        assert_int_equal(a.kind, CTK_SELECT_NONE);
        assert_int_equal(ctk_select_merge(&a, &unset, &err), 0);
        assert_int_equal(a.kind, CTK_SELECT_NONE);

        const size_t x[] = {1, 3, 5}, y[] = {0, 3, 4, 9};
        struct ctk_selection b = sel(CTK_SELECT_LIST, 3, x);
        assert_int_equal(ctk_select_merge(&a, &b, &err), 0);
        assert_int_equal(a.kind, CTK_SELECT_LIST);
        assert_int_equal(a.n, 3);
        assert_int_equal(ctk_select_merge(&a, &none, &err), 0);
        assert_int_equal(a.kind, CTK_SELECT_LIST);
        assert_int_equal(a.n, 3);

        struct ctk_selection c = sel(CTK_SELECT_LIST, 4, y);
        assert_int_equal(ctk_select_merge(&a, &c, &err), 0);
        const size_t want[] = {0, 1, 3, 4, 5, 9};
        assert_int_equal(a.n, 6);
        for (size_t i = 0; i < 6; i++)
                assert_int_equal(a.idx[i], want[i]);
        /* Merging a list into itself changes nothing. */
        assert_int_equal(ctk_select_merge(&a, &c, &err), 0);
        assert_int_equal(a.n, 6);

        /* An empty list ("all" on a host without GPUs) still makes the kind LIST. */
        struct ctk_selection d = sel(CTK_SELECT_NONE, 0, NULL), e = sel(CTK_SELECT_LIST, 0, NULL);
        assert_int_equal(ctk_select_merge(&d, &e, &err), 0);
        assert_int_equal(d.kind, CTK_SELECT_LIST);
        assert_int_equal(d.n, 0);

        assert_null(err);
        ctk_selection_clear(&a);
        ctk_selection_clear(&b);
        ctk_selection_clear(&c);
        ctk_selection_clear(&d);
        assert_int_equal(a.kind, CTK_SELECT_UNSET);
        assert_null(a.idx);
}

/* --- environment --- */

static const char *const default_kinds[] = {"AMD_GPU", "GPU", NULL};

static struct ctk_selection from_env(const char *const *env, size_t n, const char *const *kinds, int want_rc,
                                     const char *want_err)
{
        struct ctk_selection s;
        struct ctk_error *err = NULL;
        int r = ctk_select_from_env((char *const *)env, n, kinds, &seed, &s, &err);
        if (want_rc == 0 && r < 0)
                fail_msg("unexpected error: %s", err->msg);
        if (want_rc < 0) {
                if (r >= 0)
                        fail_msg("accepted, want error '%s'", want_err);
                if (strcmp(err->msg, want_err) != 0)
                        fail_msg("\n got: %s\nwant: %s", err->msg, want_err);
                assert_int_equal(s.kind, CTK_SELECT_UNSET);
                assert_null(s.idx);
                ctk_error_free(err);
        }
        return s;
}

static void expect_idx(struct ctk_selection *s, size_t n, const size_t *want)
{
        assert_int_equal(s->kind, CTK_SELECT_LIST);
        assert_int_equal(s->n, n);
        for (size_t i = 0; i < n; i++)
                assert_int_equal(s->idx[i], want[i]);
        ctk_selection_clear(s);
}

#define ENV_N(e) (sizeof(e) / sizeof((e)[0]))

static void test_env_nothing(void **state)
{
        (void)state;
        const char *env[] = {
            "PATH=/usr/bin",          "HOME=/root",          "AMD_VISIBLE_DEVICESX=0", "AMD_VISIBLE_DEVICE=1",
            "XAMD_VISIBLE_DEVICES=2", "AMD_VISIBLE_DEVICES", "DOCKER_RESOURCE_=3"};
        struct ctk_selection s = from_env(env, ENV_N(env), default_kinds, 0, NULL);
        assert_int_equal(s.kind, CTK_SELECT_UNSET);
        s = from_env(NULL, 0, default_kinds, 0, NULL);
        assert_int_equal(s.kind, CTK_SELECT_UNSET);
        const char *voids[] = {"AMD_VISIBLE_DEVICES=void", "DOCKER_RESOURCE_GPU="};
        s = from_env(voids, ENV_N(voids), default_kinds, 0, NULL);
        assert_int_equal(s.kind, CTK_SELECT_UNSET);
}

static void test_env_amd_visible_devices(void **state)
{
        (void)state;
        const char *env[] = {"PATH=/bin", "AMD_VISIBLE_DEVICES=0-1, 3"};
        struct ctk_selection s = from_env(env, ENV_N(env), default_kinds, 0, NULL);
        expect_idx(&s, 3, (const size_t[]){0, 1, 3});
        const char *none[] = {"AMD_VISIBLE_DEVICES=none"};
        s = from_env(none, 1, default_kinds, 0, NULL);
        assert_int_equal(s.kind, CTK_SELECT_NONE);
}

static void test_env_docker_resources(void **state)
{
        (void)state;
        const char *gpu[] = {"DOCKER_RESOURCE_GPU=0xEA35F57CC80DEB35"};
        struct ctk_selection s = from_env(gpu, 1, default_kinds, 0, NULL);
        expect_idx(&s, 1, (const size_t[]){0});

        const char *amd_gpu[] = {"DOCKER_RESOURCE_AMD_GPU=0x89CAA15875FF5A43,0x6E32F10EFC982B4C"};
        s = from_env(amd_gpu, 1, default_kinds, 0, NULL);
        expect_idx(&s, 2, (const size_t[]){1, 2});

        /* Other swarm resources are not GPU lists (Go: NIC=1 reserved GPU 1). */
        const char *others[] = {"DOCKER_RESOURCE_NIC=1", "DOCKER_RESOURCE_GPU_COMPUTE=0x583de6f2d99dc333",
                                "DOCKER_RESOURCE_FPGA=garbage"};
        s = from_env(others, ENV_N(others), default_kinds, 0, NULL);
        assert_int_equal(s.kind, CTK_SELECT_UNSET);

        /* Without kinds only AMD_VISIBLE_DEVICES counts. */
        const char *both[] = {"DOCKER_RESOURCE_GPU=1", "AMD_VISIBLE_DEVICES=2"};
        s = from_env(both, 2, NULL, 0, NULL);
        expect_idx(&s, 1, (const size_t[]){2});
        const char *const no_kinds[] = {NULL};
        s = from_env(both, 2, no_kinds, 0, NULL);
        expect_idx(&s, 1, (const size_t[]){2});

        /* Kinds from the config match the upper-cased variable name. */
        const char *const lower[] = {"gpu", NULL};
        s = from_env(gpu, 1, lower, 0, NULL);
        expect_idx(&s, 1, (const size_t[]){0});
        const char *const custom[] = {"NIC", NULL};
        s = from_env(others, ENV_N(others), custom, 0, NULL);
        expect_idx(&s, 1, (const size_t[]){1});
}

static void test_env_union(void **state)
{
        (void)state;
        /* Union of all variables, not "last wins"; repeated entries count too. */
        const char *env[] = {"AMD_VISIBLE_DEVICES=0", "DOCKER_RESOURCE_GPU=0x12FE4F7FDAF06B9",
                             "DOCKER_RESOURCE_AMD_GPU=0,2", "AMD_VISIBLE_DEVICES=1"};
        struct ctk_selection s = from_env(env, ENV_N(env), default_kinds, 0, NULL);
        expect_idx(&s, 4, (const size_t[]){0, 1, 2, 3});

        const char *with_none[] = {"AMD_VISIBLE_DEVICES=none", "DOCKER_RESOURCE_GPU=2"};
        s = from_env(with_none, 2, default_kinds, 0, NULL);
        expect_idx(&s, 1, (const size_t[]){2});

        const char *with_void[] = {"DOCKER_RESOURCE_GPU=3", "AMD_VISIBLE_DEVICES=void"};
        s = from_env(with_void, 2, default_kinds, 0, NULL);
        expect_idx(&s, 1, (const size_t[]){3});

        const char *nones[] = {"AMD_VISIBLE_DEVICES=void", "DOCKER_RESOURCE_GPU=none"};
        s = from_env(nones, 2, default_kinds, 0, NULL);
        assert_int_equal(s.kind, CTK_SELECT_NONE);
}

static void test_env_errors_name_the_variable(void **state)
{
        (void)state;
        const char *env[] = {"AMD_VISIBLE_DEVICES=9"};
        from_env(env, 1, default_kinds, -1, "AMD_VISIBLE_DEVICES: GPU 9 does not exist (this host has GPUs 0-3)");

        /* An error in a later variable discards what earlier ones selected. */
        const char *later[] = {"AMD_VISIBLE_DEVICES=0-3", "DOCKER_RESOURCE_GPU=0xdeadbeef"};
        from_env(later, 2, default_kinds, -1,
                 "DOCKER_RESOURCE_GPU: no GPU has UUID 0xdeadbeef (this host has GPUs 0-3; 'amd-ctk gpu list' shows "
                 "their UUIDs)");

        const char *amd_gpu[] = {"DOCKER_RESOURCE_AMD_GPU=0,,1"};
        from_env(amd_gpu, 1, default_kinds, -1, "DOCKER_RESOURCE_AMD_GPU: empty entry in GPU list '0,,1'");

        const char *range[] = {"AMD_VISIBLE_DEVICES=0-2000000000"};
        from_env(range, 1, default_kinds, -1,
                 "AMD_VISIBLE_DEVICES: GPU range 0-2000000000 goes past the last GPU (this host has GPUs 0-3)");
}

/* Fully qualified CDI names (vendor/class=name) are set aside for the CDI
 * layer by the *_names functions, in order, mixed with plain tokens; the
 * plain functions refuse them. */
static void test_cdi_names(void **state)
{
        (void)state;
        struct ctk_selection s;
        struct ctk_strv names _cleanup_strv_ = {0};
        assert_int_equal(ctk_select_parse_names("0, amd.com/gpu=2 ,example.com/nic=eth0,3", &seed, &s, &names, NULL),
                         0);
        assert_int_equal(s.kind, CTK_SELECT_LIST);
        assert_int_equal(s.n, 2);
        assert_int_equal(s.idx[0], 0);
        assert_int_equal(s.idx[1], 3);
        assert_int_equal(names.n, 2);
        assert_string_equal(names.v[0], "amd.com/gpu=2");
        assert_string_equal(names.v[1], "example.com/nic=eth0");
        ctk_selection_clear(&s);
        ctk_strv_clear(&names);
        /* names only: no plain GPU */
        assert_int_equal(ctk_select_parse_names("amd.com/gpu=all", &seed, &s, &names, NULL), 0);
        assert_int_equal(s.kind, CTK_SELECT_UNSET);
        assert_int_equal(names.n, 1);
        ctk_strv_clear(&names);
        /* a plain token still fails as before */
        struct ctk_error *err = NULL;
        assert_int_equal(ctk_select_parse_names("amd.com/gpu=0,9", &seed, &s, &names, &err), -1);
        assert_string_equal(err->msg, "GPU 9 does not exist (this host has GPUs 0-3)");
        ctk_error_free(err);
        err = NULL;
        ctk_strv_clear(&names);
        /* = without a / before it is no CDI name */
        check_error("gpu=0", &seed,
                    "'gpu=0' is not a GPU index, range or UUID (expected all, none, or a list like "
                    "0,2-3,0x<UUID>)");
        check_error("amd.com/gpu=1", &seed,
                    "'amd.com/gpu=1' is a CDI device name: GPU indices, ranges and UUIDs select GPUs here");
        /* from the environment: the variable of each name */
        const char *env[] = {"AMD_VISIBLE_DEVICES=1,amd.com/gpu=0", "DOCKER_RESOURCE_GPU=example.com/x=y"};
        struct ctk_strv vars _cleanup_strv_ = {0};
        const char *const kinds[] = {"GPU", NULL};
        assert_int_equal(ctk_select_from_env_names((char *const *)env, 2, kinds, &seed, &s, &names, &vars, NULL), 0);
        assert_int_equal(s.n, 1);
        assert_int_equal(names.n, 2);
        assert_string_equal(vars.v[0], "AMD_VISIBLE_DEVICES");
        assert_string_equal(vars.v[1], "DOCKER_RESOURCE_GPU");
        ctk_selection_clear(&s);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_table_all),
            cmocka_unit_test(test_cdi_names),
            cmocka_unit_test(test_table_range_with_duplicate),
            cmocka_unit_test(test_table_range_past_end),
            cmocka_unit_test(test_table_bad_range_garbage_empty),
            cmocka_unit_test(test_table_uuid_prefixed),
            cmocka_unit_test(test_table_uuid_bare),
            cmocka_unit_test(test_table_eight_hex_chars),
            cmocka_unit_test(test_all_any_case_and_in_lists),
            cmocka_unit_test(test_unset_values),
            cmocka_unit_test(test_none),
            cmocka_unit_test(test_keywords_not_combinable),
            cmocka_unit_test(test_indices),
            cmocka_unit_test(test_index_missing),
            cmocka_unit_test(test_index_garbage),
            cmocka_unit_test(test_empty_entries),
            cmocka_unit_test(test_ranges),
            cmocka_unit_test(test_range_bad_syntax),
            cmocka_unit_test(test_range_bounded_before_expansion),
            cmocka_unit_test(test_uuid_forms),
            cmocka_unit_test(test_uuid_mixed),
            cmocka_unit_test(test_uuid_no_match),
            cmocka_unit_test(test_uuid_malformed),
            cmocka_unit_test(test_uuid_partitions_share_id),
            cmocka_unit_test(test_uuid_ambiguous),
            cmocka_unit_test(test_uuid_without_id),
            cmocka_unit_test(test_large_host),
            cmocka_unit_test(test_long_value),
            cmocka_unit_test(test_merge),
            cmocka_unit_test(test_env_nothing),
            cmocka_unit_test(test_env_amd_visible_devices),
            cmocka_unit_test(test_env_docker_resources),
            cmocka_unit_test(test_env_union),
            cmocka_unit_test(test_env_errors_name_the_variable),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
