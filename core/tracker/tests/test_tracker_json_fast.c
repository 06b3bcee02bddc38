/* The specialised reader of the GPU tracker state (the canonical form our
 * writer produces): it must agree with the strict jansson reader on every
 * input it accepts, and hand everything else to it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>

#include "core/base/base.h"
#include "core/tracker/alloc.h"
#include "core/tracker/state.h"
#include "tracker_fixtures.h"

/* A state with every feature of the form: no UUID, a partition, exclusive
 * GPUs, two runtime roots, unknown roots, pids. */
static char *sample_text(void)
{
        struct ctk_gpu_list gpus = {0};
        fx_gpus(&gpus, 5);
        gpus.v[0].has_uuid = false;
        free(gpus.v[1].partition);
        gpus.v[1].partition = strdup("cpx_nps4");
        struct ctk_tracker_state st = {0};
        assert_int_equal(ctk_tracker_state_init(&st, &gpus, true, "6e1f-boot", NULL), 0);
        ctk_gpu_list_clear(&gpus);
        st.gpus[1].access = CTK_TRACKER_EXCLUSIVE;
        fx_add_container(&st, "c1", (size_t[]){1, 4}, 2);
        fx_add_container(&st, "c2", (size_t[]){4}, 1);
        fx_add_container(&st, "c3", (size_t[]){0, 2, 3}, 3);
        fx_add_container(&st, "c4", (size_t[]){2}, 1);
        st.containers[0].runtime_root = strdup("/run/docker/runtime-runc/moby");
        st.containers[0].pid = 4242;
        st.containers[0].pid_start = 1234567890123ULL;
        st.containers[2].runtime_root = strdup("/run/runc");
        st.containers[3].runtime_root = strdup("/run/docker/runtime-runc/moby");
        st.containers[3].pid = 2147483647;
        st.containers[3].pid_start = 9223372036854775807ULL;
        char *text = ctk_tracker_state_format(&st);
        ctk_tracker_state_clear(&st);
        assert_non_null(text);
        return text;
}

/* Parses with both readers; they must agree.  Returns the canonical
 * reader's verdict (1 taken, 0 handed on). */
static int both(const char *text, size_t len)
{
        struct ctk_tracker_state a, b;
        struct ctk_error *ea = NULL, *eb = NULL;
        int ra = ctk_tracker_state_parse_canonical(text, len, &a, &ea);
        assert_true(ra == 0 || ra == 1);
        assert_null(ea);
        int rb = ctk_tracker_state_parse_strict(text, len, &b, &eb);
        if (ra == 1) {
                if (rb < 0)
                        fail_msg("canonical reader accepted what the strict one rejects (%s): %.*s", eb->msg, (int)len,
                                 text);
                char *fa = ctk_tracker_state_format(&a), *fb = ctk_tracker_state_format(&b);
                assert_non_null(fa);
                assert_non_null(fb);
                assert_string_equal(fa, fb);
                free(fa);
                free(fb);
                ctk_tracker_state_clear(&a);
        } else {
                assert_int_equal(a.ngpus, 0);
                assert_int_equal(a.ncontainers, 0);
                assert_null(a.boot_id);
        }
        if (rb == 0)
                ctk_tracker_state_clear(&b);
        else
                ctk_error_free(eb);
        /* The combined reader: as the strict one. */
        struct ctk_tracker_state c;
        struct ctk_error *ec = NULL;
        int rc = ctk_tracker_state_parse(text, len, &c, &ec);
        assert_int_equal(rc, rb);
        if (rc == 0)
                ctk_tracker_state_clear(&c);
        else
                ctk_error_free(ec);
        return ra;
}

static void test_own_output_is_taken(void **state)
{
        (void)state;
        _cleanup_free_ char *text = sample_text();
        assert_int_equal(both(text, strlen(text)), 1);
        struct ctk_tracker_state st;
        assert_int_equal(ctk_tracker_state_parse_canonical(text, strlen(text), &st, NULL), 1);
        assert_true(st.enabled);
        assert_string_equal(st.boot_id, "6e1f-boot");
        assert_int_equal(st.ngpus, 5);
        assert_false(st.gpus[0].has_uuid);
        assert_true(st.gpus[2].has_uuid);
        assert_int_equal(st.gpus[2].uuid, fx_seed_uuids[2]);
        assert_string_equal(st.gpus[1].partition, "cpx_nps4");
        assert_string_equal(st.gpus[3].pci, "0000:63:00.0");
        assert_int_equal(st.gpus[4].drm.n, 2);
        assert_string_equal(st.gpus[4].drm.v[1], "/dev/dri/renderD132");
        assert_int_equal(st.gpus[1].access, CTK_TRACKER_EXCLUSIVE);
        assert_int_equal(st.gpus[0].access, CTK_TRACKER_SHARED);
        assert_int_equal(st.ncontainers, 4);
        assert_string_equal(st.containers[0].id, "c1");
        assert_int_equal(st.containers[0].ngpus, 2);
        assert_int_equal(st.containers[0].gpus[1], 4);
        assert_string_equal(st.containers[0].runtime_root, "/run/docker/runtime-runc/moby");
        assert_int_equal(st.containers[0].pid, 4242);
        assert_int_equal(st.containers[0].pid_start, 1234567890123ULL);
        assert_null(st.containers[1].runtime_root);
        assert_string_equal(st.containers[2].runtime_root, "/run/runc");
        assert_int_equal(st.containers[3].pid, 2147483647);
        assert_int_equal(st.containers[3].pid_start, 9223372036854775807ULL);
        ctk_tracker_state_clear(&st);
        /* Without the final newline too; empty lists. */
        assert_int_equal(both(text, strlen(text) - 1), 1);
        const char *empty = "{\"version\":1,\"enabled\":false,\"bootId\":null,\"gpus\":[],\"runtimeRoots\":[],"
                            "\"containers\":[]}\n";
        assert_int_equal(both(empty, strlen(empty)), 1);
}

/* Valid JSON that is not what the writer produces goes to the strict
 * reader, which accepts it. */
static void test_other_spellings_are_handed_on(void **state)
{
        (void)state;
        static const char *const texts[] = {
            /* whitespace */
            "{ \"version\":1,\"enabled\":false,\"bootId\":null,\"gpus\":[],\"runtimeRoots\":[],\"containers\":[]}",
            "{\"version\":1,\"enabled\":false,\"bootId\":null,\"gpus\":[],\"runtimeRoots\":[],\"containers\":[]}\n\n",
            /* key order, missing optional keys, unknown keys */
            "{\"enabled\":true,\"version\":1,\"gpus\":[]}",
            "{\"version\":1,\"enabled\":true,\"bootId\":null,\"gpus\":[],\"runtimeRoots\":[],\"containers\":[],"
            "\"x\":0}",
            /* escapes, non-ASCII */
            "{\"version\":1,\"enabled\":true,\"bootId\":\"b\\u0041\",\"gpus\":[],\"runtimeRoots\":[],"
            "\"containers\":[]}",
            "{\"version\":1,\"enabled\":true,\"bootId\":\"\xc3\xa9\",\"gpus\":[],\"runtimeRoots\":[],"
            "\"containers\":[]}",
            /* GPU indices unsorted or repeated, null drm */
            "{\"version\":1,\"enabled\":true,\"bootId\":null,\"gpus\":[{\"uuid\":null,\"pci\":\"\",\"partition\":"
            "\"\",\"drm\":null,\"accessibility\":\"shared\"},{\"uuid\":null,\"pci\":\"\",\"partition\":\"\","
            "\"drm\":[],\"accessibility\":\"shared\"}],\"runtimeRoots\":[],\"containers\":[[\"a\",[1,0,1],null,0,"
            "0]]}",
        };
        for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
                assert_int_equal(both(texts[i], strlen(texts[i])), 0);
                struct ctk_tracker_state st;
                struct ctk_error *err = NULL;
                if (ctk_tracker_state_parse(texts[i], strlen(texts[i]), &st, &err) < 0)
                        fail_msg("text %zu: %s", i, err->msg);
                ctk_tracker_state_clear(&st);
        }
}

#define HEAD "{\"version\":1,\"enabled\":true,\"bootId\":null,\"gpus\":["
#define GPU0 "{\"uuid\":\"0x1\",\"pci\":\"p\",\"partition\":\"\",\"drm\":[],\"accessibility\":\"shared\"}"

/* Canonical in form but invalid in content: never taken, and the error
 * is the strict reader's. */
static void test_invalid_content_is_an_error(void **state)
{
        (void)state;
        static const struct {
                const char *text, *msg;
        } cases[] = {
            {HEAD GPU0 "],\"runtimeRoots\":[],\"containers\":[[\"a\",[0],null,0,0],[\"a\",[0],null,0,0]]}",
             "listed twice"},
            {HEAD GPU0 "],\"runtimeRoots\":[],\"containers\":[[\"a\",[1],null,0,0]]}", "below 1"},
            {HEAD GPU0 "],\"runtimeRoots\":[],\"containers\":[[\"a\",[0],0,0,0]]}", "no runtime root 0"},
            {HEAD GPU0 "],\"runtimeRoots\":[],\"containers\":[[\"a/b\",[0],null,0,0]]}", "invalid id"},
            {HEAD GPU0 "],\"runtimeRoots\":[],\"containers\":[[\"a\",[0],null,2147483648,0]]}", "container 0 must be"},
            {HEAD GPU0 "],\"runtimeRoots\":[],\"containers\":[[\"a\",[0],null,01,0]]}", "line 1"},
            {HEAD "{\"uuid\":\"zz\",\"pci\":\"p\",\"partition\":\"\",\"drm\":[],\"accessibility\":\"shared\"}"
                  "],\"runtimeRoots\":[],\"containers\":[]}",
             "invalid uuid"},
            {HEAD "{\"uuid\":null,\"pci\":\"p\",\"partition\":\"\",\"drm\":[],\"accessibility\":\"mine\"}"
                  "],\"runtimeRoots\":[],\"containers\":[]}",
             "\"accessibility\" must be"},
            {"{\"version\":2,\"enabled\":true,\"bootId\":null,\"gpus\":[],\"runtimeRoots\":[],\"containers\":[]}",
             "newer toolkit"},
            {"{\"version\":0,\"enabled\":true,\"bootId\":null,\"gpus\":[],\"runtimeRoots\":[],\"containers\":[]}",
             "positive integer"},
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                assert_int_equal(both(cases[i].text, strlen(cases[i].text)), 0);
                _cleanup_free_ char *msg = fx_parse_error(cases[i].text);
                if (strstr(msg, cases[i].msg) == NULL)
                        fail_msg("case %zu: \"%s\" does not say \"%s\"", i, msg, cases[i].msg);
        }
}

/* Every prefix of a state (a half-written file) is rejected, by both. */
static void test_truncated(void **state)
{
        (void)state;
        _cleanup_free_ char *text = sample_text();
        size_t n = strlen(text);
        for (size_t len = 0; len + 1 < n; len++) {
                /* A copy of exactly len bytes, so ASan sees any overread. */
                char *cut = malloc(len ? len : 1);
                memcpy(cut, text, len);
                assert_int_equal(both(cut, len), 0);
                struct ctk_tracker_state st;
                struct ctk_error *err = NULL;
                assert_int_equal(ctk_tracker_state_parse(cut, len, &st, &err), -1);
                ctk_error_free(err);
                free(cut);
        }
}

/* Every byte replaced by characters that matter to the grammar: the two
 * readers never disagree, nothing crashes. */
static void test_mutations_agree(void **state)
{
        (void)state;
        _cleanup_free_ char *text = sample_text();
        size_t n = strlen(text);
        static const char subst[] = {'"', '\\', ',', ']', '[', '{',  '}',    ':',    '0',    '1', '9',
                                     '-', ' ',  'n', 'x', '/', '\0', '\x7f', '\x80', '\xff', '\n'};
        size_t taken = 0;
        for (size_t i = 0; i < n; i++) {
                for (size_t k = 0; k < sizeof(subst); k++) {
                        char *m = malloc(n);
                        // NOLINTNEXTLINE(bugprone-not-null-terminated-result): the reader takes a length, no NUL
                        memcpy(m, text, n);
                        m[i] = subst[k];
                        taken += (size_t)both(m, n);
                        free(m);
                }
                /* and the byte removed */
                char *m = malloc(n);
                memcpy(m, text, i);
                memcpy(m + i, text + i + 1, n - i - 1);
                taken += (size_t)both(m, n - 1);
                free(m);
        }
        assert_true(taken > 0); /* e.g. digits of numbers changed */
}

/* The reader keeps container ids, roots and GPU lists in two blocks; every
 * change of the model must still free exactly what it owns (ASan). */
static void test_arena_backed_state_changes(void **state)
{
        (void)state;
        _cleanup_free_ char *text = sample_text();
        struct ctk_tracker_state st;
        assert_int_equal(ctk_tracker_state_parse_canonical(text, strlen(text), &st, NULL), 1);
        assert_non_null(st.arena_str);
        assert_non_null(st.arena_idx);
        /* Containers with one root share its text. */
        assert_ptr_equal(st.containers[0].runtime_root, st.containers[3].runtime_root);
        struct ctk_tracker_state copy;
        assert_int_equal(ctk_tracker_state_copy(&copy, &st, NULL), 0);
        assert_null(copy.arena_str);

        /* c1 grows (its GPU list and root leave the arena), c3 goes, c5 comes. */
        bool changed;
        struct ctk_tracker_container who = {.id = "c1", .runtime_root = "/run/other", .pid = 7};
        assert_int_equal(ctk_tracker_state_alloc(&st, &who, (size_t[]){0, 2}, 2, &changed, NULL), 0);
        assert_true(changed);
        assert_int_equal(st.containers[0].ngpus, 4);
        assert_string_equal(st.containers[0].runtime_root, "/run/other");
        assert_string_equal(st.containers[3].runtime_root, "/run/docker/runtime-runc/moby");
        assert_true(ctk_tracker_state_release(&st, "c3"));
        struct ctk_tracker_container c5 = {.id = "c5", .runtime_root = "/run/runc"};
        assert_int_equal(ctk_tracker_state_alloc(&st, &c5, (size_t[]){3}, 1, &changed, NULL), 0);
        st.containers[1].ngpus = 0;
        assert_true(ctk_tracker_state_prune(&st));
        _cleanup_free_ char *out = ctk_tracker_state_format(&st);
        assert_non_null(out);
        assert_non_null(strstr(out, "\"runtimeRoots\":[\"/run/other\",\"/run/docker/runtime-runc/moby\","
                                    "\"/run/runc\"],\"containers\":[[\"c1\",[0,1,2,4],0,7,0],[\"c4\",[2],1,"));
        assert_non_null(strstr(out, "[\"c5\",[3],2,0,0]]}"));
        assert_int_equal(both(out, strlen(out)), 1);
        ctk_tracker_state_clear(&st);

        /* The copy is untouched and independent. */
        _cleanup_free_ char *again = ctk_tracker_state_format(&copy);
        assert_string_equal(again, text);
        ctk_tracker_state_clear(&copy);
}

/* Parses text with the canonical reader and keeps it as the state's source. */
static void parse_keeping(const char *text, struct ctk_tracker_state *st)
{
        size_t n = strlen(text);
        assert_int_equal(ctk_tracker_state_parse_canonical(text, n, st, NULL), 1);
        struct ctk_file_view v = {.buf = strdup(text), .len = n};
        assert_non_null(v.buf);
        v.data = v.buf;
        ctk_tracker_state_keep_source(st, &v);
        assert_null(v.data);
}

/* What the writer prints for st without its source (every entry printed
 * from the model). */
static char *printed(const struct ctk_tracker_state *st)
{
        struct ctk_tracker_state copy;
        assert_int_equal(ctk_tracker_state_copy(&copy, st, NULL), 0);
        assert_null(copy.source.data);
        char *out = ctk_tracker_state_format(&copy);
        ctk_tracker_state_clear(&copy);
        assert_non_null(out);
        return out;
}

/* With the text it was read from kept, the writer copies the entries that
 * did not change from it, and prints exactly what it would print from the
 * model after any change: entries changed, removed (runtime root indices
 * move), added with a new root. */
static void test_unchanged_entries_are_copied(void **state)
{
        (void)state;
        _cleanup_free_ char *text = sample_text();
        struct ctk_tracker_state st;
        parse_keeping(text, &st);
        _cleanup_free_ char *same = ctk_tracker_state_format(&st);
        assert_string_equal(same, text);

        /* Copied, not printed: a byte changed in the kept text shows. */
        char *pid = strstr((char *)st.source.data, ",4242,");
        assert_non_null(pid);
        pid[1] = '5';
        _cleanup_free_ char *copied = ctk_tracker_state_format(&st);
        assert_non_null(strstr(copied, ",5242,"));
        pid[1] = '4';

        /* c1 (root 0) goes: c3's root /run/runc becomes index 0, c4's
         * moby 1; c4 changes owner; c5 comes with a new root. */
        assert_true(ctk_tracker_state_release(&st, "c1"));
        bool changed;
        struct ctk_tracker_container c4 = {.id = "c4", .runtime_root = "/run/docker/runtime-runc/moby", .pid = 9};
        assert_int_equal(ctk_tracker_state_alloc(&st, &c4, (size_t[]){2}, 1, &changed, NULL), 0);
        assert_true(changed);
        struct ctk_tracker_container c5 = {.id = "c5", .runtime_root = "/run/crun"};
        assert_int_equal(ctk_tracker_state_alloc(&st, &c5, (size_t[]){0, 3}, 2, &changed, NULL), 0);
        _cleanup_free_ char *want = printed(&st);
        _cleanup_free_ char *got = ctk_tracker_state_format(&st);
        assert_string_equal(got, want);
        assert_non_null(
            strstr(got, "\"runtimeRoots\":[\"/run/runc\",\"/run/docker/runtime-runc/moby\",\"/run/crun\"]"));
        assert_non_null(strstr(got, "[\"c3\",[0,2,3],0,0,0],[\"c4\",[2],1,9,"));
        ctk_tracker_state_clear(&st);

        /* A GPU list that grows is printed again. */
        parse_keeping(text, &st);
        struct ctk_tracker_container c2 = {.id = "c2"};
        assert_int_equal(ctk_tracker_state_alloc(&st, &c2, (size_t[]){0}, 1, &changed, NULL), 0);
        assert_true(changed);
        _cleanup_free_ char *want2 = printed(&st);
        _cleanup_free_ char *got2 = ctk_tracker_state_format(&st);
        assert_string_equal(got2, want2);
        assert_non_null(strstr(got2, "[\"c2\",[0,4],null,0,0]"));
        ctk_tracker_state_clear(&st);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_own_output_is_taken),
            cmocka_unit_test(test_other_spellings_are_handed_on),
            cmocka_unit_test(test_invalid_content_is_an_error),
            cmocka_unit_test(test_truncated),
            cmocka_unit_test(test_mutations_agree),
            cmocka_unit_test(test_arena_backed_state_changes),
            cmocka_unit_test(test_unchanged_entries_are_copied),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
