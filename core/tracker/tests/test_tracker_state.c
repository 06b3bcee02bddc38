/* The GPU tracker state model and its JSON file form. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>

#include "core/base/base.h"
#include "core/tracker/state.h"
#include "core/tracker/topology.h"
#include "tracker_fixtures.h"

static void parse_ok(const char *text, struct ctk_tracker_state *st)
{
        struct ctk_error *err = NULL;
        int r = ctk_tracker_state_parse(text, strlen(text), st, &err);
        if (r < 0)
                fail_msg("parse failed: %s", err->msg);
}

/* The text of tests/fixtures/NAME (malloc'ed). */
static char *fixture(const char *name, size_t *len)
{
        const char *slash = strrchr(__FILE__, '/');
        int dirlen = slash != NULL ? (int)(slash - __FILE__ + 1) : 0;
        _cleanup_free_ char *path = NULL;
        assert_true(asprintf(&path, "%.*sfixtures/%s", dirlen, __FILE__, name) >= 0);
        char *text = NULL;
        if (ctk_file_read_all(path, &text, len, NULL) < 0)
                fail_msg("cannot read %s", path);
        return text;
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
        assert_int_equal(st.ncontainers, 0);
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
        fx_add_container(&a, "c1", (size_t[]){1, 11}, 2);
        fx_add_container(&a, "c2", (size_t[]){11}, 1);
        fx_add_container(&a, "c3", (size_t[]){0}, 1);
        a.containers[0].runtime_root = strdup("/run/runc");
        a.containers[0].pid = 42;
        a.containers[0].pid_start = 1234567890123ULL;
        a.containers[2].runtime_root = strdup("/run/runc");
        /* Strings that need escaping, and bytes that are not UTF-8. */
        ctk_strv_push(&a.gpus[2].drm, "/dev/dri/we\"ird\\\n\x01\xc3\xa9");
        ctk_strv_push(&a.gpus[3].drm, "/dev/bad\xff\xc3");

        _cleanup_free_ char *text = ctk_tracker_state_format(&a);
        assert_non_null(text);
        assert_ptr_equal(strchr(text, '\n'), text + strlen(text) - 1); /* one line */
        assert_non_null(strstr(text, "{\"version\":1,\"enabled\":true,\"bootId\":\"b\",\"gpus\":[{\"uuid\":null,"
                                     "\"pci\":\"0000:03:00.0\",\"partition\":\"cpx_nps4\",\"drm\":[\"/dev/dri/card1\","
                                     "\"/dev/dri/renderD128\"],\"accessibility\":\"shared\"},"));
        assert_non_null(strstr(text, "\"accessibility\":\"exclusive\""));
        /* Each container once, runtime roots once. */
        assert_non_null(strstr(text, "\"runtimeRoots\":[\"/run/runc\"],\"containers\":[[\"c1\",[1,11],0,42,"
                                     "1234567890123],[\"c2\",[11],null,0,0],[\"c3\",[0],0,0,0]]}\n"));

        _cleanup_tracker_state_ struct ctk_tracker_state b = {0};
        parse_ok(text, &b);
        _cleanup_free_ char *again = ctk_tracker_state_format(&b);
        assert_string_equal(text, again);
        assert_false(b.gpus[0].has_uuid);
        assert_string_equal(b.gpus[0].partition, "cpx_nps4");
        assert_int_equal(b.gpus[1].access, CTK_TRACKER_EXCLUSIVE);
        assert_string_equal(b.gpus[2].drm.v[2], "/dev/dri/we\"ird\\\n\x01\xc3\xa9");
        assert_string_equal(b.gpus[3].drm.v[2], "/dev/bad\xef\xbf\xbd\xef\xbf\xbd");
        assert_int_equal(ctk_tracker_state_count_holders(&b, 11), 2);
        assert_string_equal(fx_holder(&b, 11, 0), "c1");
        assert_string_equal(fx_holder(&b, 11, 1), "c2");
        assert_int_equal(b.ncontainers, 3);
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

/* Files the toolkit wrote before the state went through jansson (its own
 * writer: control bytes as \u00xx, U+FFFD for bytes that are not UTF-8)
 * are read; what they hold is written back byte for byte. */
static void test_reads_files_of_the_earlier_writer(void **state)
{
        (void)state;
        size_t len;
        _cleanup_free_ char *text = fixture("state-v1.json", &len);
        _cleanup_tracker_state_ struct ctk_tracker_state st = {0};
        parse_ok(text, &st);
        assert_true(st.enabled);
        assert_string_equal(st.boot_id, "6e1f-boot");
        assert_int_equal(st.ngpus, 5);
        assert_false(st.gpus[0].has_uuid);
        assert_int_equal(st.gpus[2].uuid, fx_seed_uuids[2]);
        assert_string_equal(st.gpus[1].partition, "cpx_nps4");
        assert_int_equal(st.gpus[1].access, CTK_TRACKER_EXCLUSIVE);
        assert_string_equal(st.gpus[4].drm.v[1], "/dev/dri/renderD132");
        assert_int_equal(st.ncontainers, 4);
        assert_string_equal(st.containers[2].id, "c3");
        assert_int_equal(st.containers[2].ngpus, 3);
        assert_string_equal(st.containers[2].runtime_root, "/run/runc");
        assert_string_equal(st.containers[3].runtime_root, "/run/docker/runtime-runc/moby");
        assert_int_equal(st.containers[3].pid, 2147483647);
        assert_int_equal(st.containers[3].pid_start, 9223372036854775807ULL);
        assert_null(st.containers[1].runtime_root);
        _cleanup_free_ char *again = ctk_tracker_state_format(&st);
        assert_string_equal(again, text);

        _cleanup_free_ char *escaped = fixture("state-v1-escapes.json", &len);
        _cleanup_tracker_state_ struct ctk_tracker_state e = {0};
        parse_ok(escaped, &e);
        assert_string_equal(e.gpus[2].drm.v[2], "/dev/dri/we\"ird\\\n\x01\xc3\xa9");
        assert_string_equal(e.gpus[3].drm.v[2], "/dev/bad\xef\xbf\xbd\xef\xbf\xbd");
}

/* Every prefix of a state (a half-written file) is an error. */
static void test_truncated(void **state)
{
        (void)state;
        size_t n;
        _cleanup_free_ char *text = fixture("state-v1.json", &n);
        for (size_t len = 0; len + 1 < n; len++) {
                char *cut = malloc(len ? len : 1); /* exactly len bytes: ASan sees any overread */
                memcpy(cut, text, len);
                struct ctk_tracker_state st;
                struct ctk_error *err = NULL;
                assert_int_equal(ctk_tracker_state_parse(cut, len, &st, &err), -1);
                assert_non_null(err);
                assert_int_equal(st.ngpus + st.ncontainers, 0);
                ctk_error_free(err);
                free(cut);
        }
}

/* Hand edits: unknown keys are ignored, GPU lists are normalized. */
static void test_lenient_where_harmless(void **state)
{
        (void)state;
        const char *text = "{\"version\":1,\"enabled\":false,\"note\":\"x\",\"gpus\":[{\"accessibility\":\"shared\","
                           "\"extra\":1},{\"accessibility\":\"exclusive\",\"uuid\":\"12fe4f7fdaf06b9\"}],"
                           "\"containers\":[[\"a\",[1,0,1],null,0,0]]}";
        _cleanup_tracker_state_ struct ctk_tracker_state st = {0};
        parse_ok(text, &st);
        assert_false(st.enabled);
        assert_null(st.boot_id);
        assert_int_equal(st.ngpus, 2);
        assert_string_equal(st.gpus[0].pci, "");
        assert_int_equal(st.gpus[1].uuid, 0x12FE4F7FDAF06B9ULL);
        assert_int_equal(st.containers[0].ngpus, 2);
        assert_int_equal(st.containers[0].gpus[0], 0);
        assert_int_equal(st.containers[0].gpus[1], 1);
}

static void test_corrupt_inputs(void **state)
{
        (void)state;
#define HEAD "{\"version\":1,\"enabled\":true,\"gpus\":[{\"accessibility\":\"shared\"}]"
        static const struct {
                const char *text, *want;
        } cases[] = {
            {"", "line 1 column 0"},
            {"{\"enabled\":true,", "line 1"},
            {"garbage", "line 1 column 7"},
            {"[]", "top level must be an object"},
            {"{\"enabled\":true,\"gpus\":[]}", "\"version\" must be a positive integer"},
            {"{\"version\":2,\"enabled\":true,\"gpus\":[]}", "written by a newer toolkit (state version 2"},
            {"{\"version\":1,\"gpus\":[]}", "\"enabled\" must be true or false"},
            {"{\"version\":1,\"enabled\":1,\"gpus\":[]}", "\"enabled\" must be true or false"},
            {"{\"version\":1,\"enabled\":true}", "\"gpus\" must be an array"},
            {"{\"version\":1,\"enabled\":true,\"gpus\":[{}]}", "GPU 0: \"accessibility\" must be \"shared\""},
            {"{\"version\":1,\"enabled\":true,\"gpus\":[{\"accessibility\":1}]}",
             "GPU 0: \"accessibility\" must be a string"},
            {"{\"version\":1,\"enabled\":true,\"gpus\":[{\"accessibility\":\"shared\",\"uuid\":\"xyz\"}]}",
             "GPU 0: invalid uuid \"xyz\""},
            {"{\"version\":1,\"enabled\":true,\"gpus\":[{\"accessibility\":\"shared\",\"drm\":[1]}]}",
             "GPU 0: \"drm\" must be an array of strings"},
            {HEAD ",\"containers\":{}}", "\"containers\" must be an array"},
            {HEAD ",\"containers\":[[\"a\",[0],null,0]]}", "container 0 must be [id, [GPU indices]"},
            {HEAD ",\"containers\":[[\"a\",[0],null,-1,0]]}", "container 0 must be [id"},
            {HEAD ",\"containers\":[[\"a\",[0],null,2147483648,0]]}", "container 0 must be [id"},
            {HEAD ",\"containers\":[[\"a\",[0],null,01,0]]}", "line 1"},
            {HEAD ",\"containers\":[[\"a/b\",[0],null,0,0]]}", "container 0: invalid id \"a/b\""},
            {HEAD ",\"containers\":[[\"a\",[1],null,0,0]]}", "container a: GPU indices must be below 1"},
            {HEAD ",\"containers\":[[\"a\",[0],0,0,0]]}", "container a: no runtime root 0"},
            {HEAD ",\"runtimeRoots\":[\"/r\"],\"containers\":[[\"a\",[0],0,0,0],[\"b\",[0],0,0,0],"
                  "[\"a\",[0],null,0,0]]}",
             "container a is listed twice"},
            {HEAD ",\"runtimeRoots\":{}}", "\"runtimeRoots\" must be an array"},
            {"{\"version\":1,\"enabled\":true,\"enabled\":false,\"gpus\":[]}", "duplicate object key"},
        };
#undef HEAD
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                _cleanup_free_ char *msg = fx_parse_error(cases[i].text);
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
            cmocka_unit_test(test_init_records_host_gpus),
            cmocka_unit_test(test_round_trip),
            cmocka_unit_test(test_reads_files_of_the_earlier_writer),
            cmocka_unit_test(test_truncated),
            cmocka_unit_test(test_lenient_where_harmless),
            cmocka_unit_test(test_corrupt_inputs),
            cmocka_unit_test(test_topology_identity),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
