/* The GPU tracker state model and its JSON file form. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>

#include "core/cleanup.h"
#include "core/tracker_state.h"
#include "core/tracker_topology.h"
#include "tracker_fixtures.h"

static void parse_ok(const char *text, struct ctk_tracker_state *st)
{
        struct ctk_error *err = NULL;
        int r = ctk_tracker_state_parse(text, strlen(text), st, &err);
        if (r < 0)
                fail_msg("parse failed: %s", err->msg);
}

static char *parse_err(const char *text)
{
        struct ctk_tracker_state st;
        struct ctk_error *err = NULL;
        assert_int_equal(ctk_tracker_state_parse(text, strlen(text), &st, &err), -1);
        assert_non_null(err);
        char *msg = strdup(err->msg);
        ctk_error_free(err);
        return msg;
}

static void test_init_records_host_gpus(void **state)
{
        (void)state;
        _cleanup_gpu_list_ struct ctk_gpu_list gpus = {0};
        fx_gpus(&gpus, 4);
        _cleanup_tracker_state_ struct ctk_tracker_state st = {0};
        assert_int_equal(ctk_tracker_state_init(&st, &gpus, true, "boot-1", NULL), 0);
        assert_true(st.enabled);
        assert_string_equal(st.boot_id, "boot-1");
        assert_int_equal(st.ngpus, 4);
        assert_string_equal(st.gpus[2].pci, "0000:43:00.0");
        assert_int_equal(st.gpus[3].uuid, 0x12FE4F7FDAF06B9ULL);
        assert_string_equal(st.gpus[0].drm.v[1], "/dev/dri/renderD128");
        assert_int_equal(st.gpus[1].access, CTK_TRACKER_SHARED);
        assert_int_equal(st.gpus[1].holders.n, 0);
        assert_true(ctk_tracker_topology_matches(&st, &gpus, NULL));
}

static void test_round_trip(void **state)
{
        (void)state;
        _cleanup_gpu_list_ struct ctk_gpu_list gpus = {0};
        fx_gpus(&gpus, 12);
        gpus.v[0].has_uuid = false;
        free(gpus.v[0].partition);
        gpus.v[0].partition = strdup("cpx_nps4");
        _cleanup_tracker_state_ struct ctk_tracker_state a = {0};
        assert_int_equal(ctk_tracker_state_init(&a, &gpus, true, "b", NULL), 0);
        a.gpus[1].access = CTK_TRACKER_EXCLUSIVE;
        ctk_strv_push(&a.gpus[1].holders, "c1");
        ctk_strv_push(&a.gpus[11].holders, "c1");
        ctk_strv_push(&a.gpus[11].holders, "c2");
        a.containers = calloc(2, sizeof(*a.containers));
        a.ncontainers = 2;
        a.containers[0].id = strdup("c1");
        a.containers[0].runtime_root = strdup("/run/runc");
        a.containers[0].pid = 42;
        a.containers[0].pid_start = 1234567890123ULL;
        a.containers[1].id = strdup("c2");

        _cleanup_free_ char *text = ctk_tracker_state_format(&a);
        assert_non_null(text);
        assert_int_equal(text[strlen(text) - 1], '\n');
        assert_null(strchr(text, '\n') + 1 == text + strlen(text) ? NULL : "one line");
        /* Keys the Go toolkit wrote stay where scripts read them. */
        assert_non_null(strstr(text, "\"gpusStatus\":{\"0\":{\"uuid\":\"\",\"partitionType\":\"cpx_nps4\","
                                     "\"accessibility\":0,\"containerIds\":[]}"));
        assert_non_null(strstr(text, "\"1\":{\"uuid\":\"0x89CAA15875FF5A43\",\"partitionType\":\"\","
                                     "\"accessibility\":1,\"containerIds\":[\"c1\"]}"));

        _cleanup_tracker_state_ struct ctk_tracker_state b = {0};
        parse_ok(text, &b);
        _cleanup_free_ char *again = ctk_tracker_state_format(&b);
        assert_string_equal(text, again);
        assert_false(b.gpus[0].has_uuid);
        assert_string_equal(b.gpus[0].partition, "cpx_nps4");
        assert_int_equal(b.gpus[1].access, CTK_TRACKER_EXCLUSIVE);
        assert_int_equal(b.gpus[11].holders.n, 2);
        assert_int_equal(b.ncontainers, 2);
        struct ctk_tracker_container *c1 = ctk_tracker_state_find_container(&b, "c1");
        assert_non_null(c1);
        assert_string_equal(c1->runtime_root, "/run/runc");
        assert_int_equal(c1->pid, 42);
        assert_int_equal(c1->pid_start, 1234567890123ULL);
        assert_null(ctk_tracker_state_find_container(&b, "c2")->runtime_root);
        assert_true(ctk_tracker_topology_matches(&b, &gpus, NULL));

        _cleanup_tracker_state_ struct ctk_tracker_state c = {0};
        assert_int_equal(ctk_tracker_state_copy(&c, &b, NULL), 0);
        _cleanup_free_ char *copied = ctk_tracker_state_format(&c);
        assert_string_equal(text, copied);
}

/* A state file written by the Go toolkit (keys sorted as strings, duplicate
 * ids, no pci) is read; its duplicates count once. */
static void test_reads_go_toolkit_file(void **state)
{
        (void)state;
        const char *go = "{\"enabled\":true,\"gpusStatus\":{"
                         "\"0\":{\"uuid\":\"0xEA35F57CC80DEB35\",\"partitionType\":\"\",\"accessibility\":0,"
                         "\"containerIds\":[\"a\",\"a\",\"b\"]},"
                         "\"1\":{\"uuid\":\"0x89CAA15875FF5A43\",\"partitionType\":\"\",\"accessibility\":1,"
                         "\"containerIds\":[]}},"
                         "\"gpusInfo\":{\"0\":{\"DrmDevices\":[\"/dev/dri/card1\",\"/dev/dri/renderD128\"],"
                         "\"PartitionType\":\"\"},\"1\":{\"DrmDevices\":[],\"PartitionType\":\"\"}}}\n";
        _cleanup_tracker_state_ struct ctk_tracker_state st = {0};
        parse_ok(go, &st);
        assert_true(st.enabled);
        assert_null(st.boot_id);
        assert_int_equal(st.ngpus, 2);
        assert_int_equal(st.gpus[0].holders.n, 2);
        assert_string_equal(st.gpus[0].pci, "");
        assert_int_equal(st.gpus[1].access, CTK_TRACKER_EXCLUSIVE);
        assert_int_equal(st.ncontainers, 0);
}

static void test_corrupt_inputs(void **state)
{
        (void)state;
        static const struct {
                const char *text, *want;
        } cases[] = {
            {"", "line 1 column 0"},
            {"{\"enabled\":true,", "line 1"},
            {"garbage", "line 1 column 7"},
            {"[]", "top level must be an object"},
            {"{\"gpusStatus\":{}}", "\"enabled\" must be true or false"},
            {"{\"enabled\":1,\"gpusStatus\":{}}", "\"enabled\" must be true or false"},
            {"{\"enabled\":true}", "\"gpusStatus\" must be an object"},
            {"{\"enabled\":true,\"gpusStatus\":{\"1\":{\"accessibility\":0}}}", "unexpected GPU index \"1\""},
            {"{\"enabled\":true,\"gpusStatus\":{\"00\":{\"accessibility\":0}}}", "unexpected GPU index \"00\""},
            {"{\"enabled\":true,\"gpusStatus\":{\"0\":{\"accessibility\":2}}}", "GPU 0: \"accessibility\" must be 0"},
            {"{\"enabled\":true,\"gpusStatus\":{\"0\":{}}}", "GPU 0: \"accessibility\" must be 0"},
            {"{\"enabled\":true,\"gpusStatus\":{\"0\":{\"accessibility\":0,\"uuid\":\"xyz\"}}}",
             "GPU 0: invalid uuid \"xyz\""},
            {"{\"enabled\":true,\"gpusStatus\":{\"0\":{\"accessibility\":0,\"containerIds\":[1]}}}",
             "\"containerIds\" must be an array of non-empty strings"},
            {"{\"enabled\":true,\"gpusStatus\":{\"0\":{\"accessibility\":0,\"containerIds\":[\"\"]}}}",
             "\"containerIds\" must be an array of non-empty strings"},
            {"{\"enabled\":true,\"gpusStatus\":{},\"containers\":{\"c\":{\"pid\":-1}}}",
             "container c: \"pid\" must be an integer between 0 and"},
            {"{\"enabled\":true,\"gpusStatus\":{},\"containers\":[]}", "\"containers\" must be an object"},
            {"{\"version\":2,\"enabled\":true,\"gpusStatus\":{}}", "written by a newer toolkit (state version 2"},
            {"{\"enabled\":true,\"enabled\":false,\"gpusStatus\":{}}", "duplicate object key"},
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                _cleanup_free_ char *msg = parse_err(cases[i].text);
                if (strstr(msg, cases[i].want) == NULL)
                        fail_msg("case %zu: \"%s\" does not contain \"%s\"", i, msg, cases[i].want);
        }
}

static void test_topology_identity(void **state)
{
        (void)state;
        _cleanup_gpu_list_ struct ctk_gpu_list gpus = {0};
        fx_gpus(&gpus, 4);
        _cleanup_tracker_state_ struct ctk_tracker_state st = {0};
        assert_int_equal(ctk_tracker_state_init(&st, &gpus, true, NULL, NULL), 0);
        char *why = NULL;

        /* Card and render renumbering (a reboot) keeps the recorded GPUs valid. */
        for (size_t i = 0; i < 4; i++) {
                free(gpus.v[i].drm.v[0]);
                gpus.v[i].drm.v[0] = strdup(i == 0 ? "/dev/dri/card9" : "/dev/dri/card0");
        }
        assert_true(ctk_tracker_topology_matches(&st, &gpus, &why));
        assert_null(why);

        /* Repartition: the partition mode changes. */
        free(gpus.v[1].partition);
        gpus.v[1].partition = strdup("cpx_nps1");
        assert_false(ctk_tracker_topology_matches(&st, &gpus, &why));
        assert_string_equal(why, "GPU 1: partition \"\" recorded, \"cpx_nps1\" found");
        free(why);
        free(gpus.v[1].partition);
        gpus.v[1].partition = strdup("");

        /* Another GPU in a slot. */
        gpus.v[2].uuid = 0x1234;
        assert_false(ctk_tracker_topology_matches(&st, &gpus, &why));
        assert_string_equal(why, "GPU 2: UUID 0x6E32F10EFC982B4C recorded, 0x1234 found");
        free(why);
        gpus.v[2].uuid = fx_seed_uuids[2];

        /* PCI order changed. */
        free(gpus.v[3].pci);
        gpus.v[3].pci = strdup("0000:99:00.0");
        assert_false(ctk_tracker_topology_matches(&st, &gpus, &why));
        assert_string_equal(why, "GPU 3: PCI 0000:63:00.0 recorded, 0000:99:00.0 found");
        free(why);

        /* Unplug: fewer GPUs. */
        _cleanup_gpu_list_ struct ctk_gpu_list three = {0};
        fx_gpus(&three, 3);
        assert_false(ctk_tracker_topology_matches(&st, &three, &why));
        assert_string_equal(why, "4 GPUs recorded, 3 found");
        free(why);
        assert_false(ctk_tracker_topology_matches(&st, NULL, NULL));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_init_records_host_gpus), cmocka_unit_test(test_round_trip),
            cmocka_unit_test(test_reads_go_toolkit_file),  cmocka_unit_test(test_corrupt_inputs),
            cmocka_unit_test(test_topology_identity),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
