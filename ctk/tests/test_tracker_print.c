/* amd-ctk gpu-tracker output: the status table (byte-exact: the columns and
 * words of the GPU tracker document, within 100 columns), the JSON status and
 * index lists. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/base.h"
#include "core/json/json.h"
#include "core/device/device.h"
#include "ctk/cli.h"
#include "ctk/tracker_print.h"

#include "cli_stubs.h"

#define ID_A "36b012bb34c96149a6ef5b28623e6e75cf9f71eb2b824b2c8f44e0449c7a1aa8"
#define ID_B "90cb29e11e83aa3ae497c68c90e1f0894b85262188c1ef9c7284457a9bc35ffd"

/* Section 4 of the documentation: GPUs 0-2 used by ID_A, 1 and 3 by ID_B. */
static void doc_state(struct ctk_tracker_state *st)
{
        static const uint64_t uuids[] = {0xEA35F57CC80DEB35ULL, 0x89CAA15875FF5A43ULL, 0x6E32F10EFC982B4CULL,
                                         0x12FE4F7FDAF06B9ULL};
        memset(st, 0, sizeof(*st));
        st->enabled = true;
        st->ngpus = 4;
        st->gpus = calloc(4, sizeof(*st->gpus));
        for (size_t i = 0; i < 4; i++) {
                st->gpus[i].has_uuid = true;
                st->gpus[i].uuid = uuids[i];
        }
        st->ncontainers = 2;
        st->containers = calloc(2, sizeof(*st->containers));
        st->containers[0].id = strdup(ID_A);
        st->containers[0].gpus = calloc(3, sizeof(size_t));
        st->containers[0].ngpus = 3;
        for (size_t i = 0; i < 3; i++)
                st->containers[0].gpus[i] = i;
        st->containers[1].id = strdup(ID_B);
        st->containers[1].gpus = calloc(2, sizeof(size_t));
        st->containers[1].ngpus = 2;
        st->containers[1].gpus[0] = 1;
        st->containers[1].gpus[1] = 3;
}

static void test_status_table_is_byte_exact(void **state)
{
        (void)state;
        _cleanup_tracker_state_ struct ctk_tracker_state st;
        doc_state(&st);
        st.gpus[3].access = CTK_TRACKER_EXCLUSIVE;
        st.gpus[2].has_uuid = false;
        st.containers[0].ngpus = 2; /* ID_A on 0-1 only */
        _cleanup_free_ char *out = ctk_tracker_status_table(&st);
        /* The document's columns (0, 10, 35, 55) and words; Docker's 64-digit
         * ids by their first 12 characters; rules as long as the header. */
        const char *want = "--------------------------------------------------------------------\n"
                           "GPU Id    UUID                     Accessibility       Container Ids\n"
                           "--------------------------------------------------------------------\n"
                           "0         0xEA35F57CC80DEB35       Shared              36b012bb34c9\n"
                           "1         0x89CAA15875FF5A43       Shared              36b012bb34c9\n"
                           "                                                       90cb29e11e83\n"
                           "2         N/A                      Shared              -\n"
                           "3         0x12FE4F7FDAF06B9        Exclusive           90cb29e11e83\n";
        assert_string_equal(out, want);
}

/* Ids that fit (45 characters) are shown whole; no line ends in a blank or
 * passes 100 columns. */
static void test_status_table_short_ids_whole(void **state)
{
        (void)state;
        _cleanup_tracker_state_ struct ctk_tracker_state st;
        doc_state(&st);
        free(st.containers[0].id);
        free(st.containers[1].id);
        st.containers[0].id = strdup("podman-job-1");
        st.containers[1].id = strdup("a-container-name-of-exactly-45-characters-xyz");
        assert_int_equal(strlen(st.containers[1].id), 45);
        _cleanup_free_ char *out = ctk_tracker_status_table(&st);
        assert_non_null(strstr(out, "Shared              podman-job-1\n"));
        assert_non_null(strstr(out, "                    a-container-name-of-exactly-45-characters-xyz\n"));
        for (const char *p = out; *p != '\0';) {
                const char *nl = strchr(p, '\n');
                assert_true(nl - p <= 100);
                assert_true(nl > p && nl[-1] != ' ');
                p = nl + 1;
        }
}

static void test_status_json(void **state)
{
        (void)state;
        _cleanup_tracker_state_ struct ctk_tracker_state st;
        doc_state(&st);
        st.gpus[1].access = CTK_TRACKER_EXCLUSIVE;
        st.gpus[3].has_uuid = false;
        _cleanup_free_ char *out = ctk_tracker_status_json(&st);
        assert_int_equal(out[strlen(out) - 1], '\n');
        json_error_t jerr;
        _cleanup_json_ json_t *j = json_loads(out, 0, &jerr);
        assert_non_null(j);
        assert_true(json_is_true(json_object_get(j, "enabled")));
        json_t *gpus = json_object_get(j, "gpus");
        assert_int_equal(json_array_size(gpus), 4);
        json_t *g1 = json_array_get(gpus, 1);
        assert_int_equal(json_integer_value(json_object_get(g1, "index")), 1);
        assert_string_equal(json_string_value(json_object_get(g1, "uuid")), "0x89CAA15875FF5A43");
        assert_string_equal(json_string_value(json_object_get(g1, "accessibility")), "exclusive");
        json_t *c = json_object_get(g1, "containers");
        assert_int_equal(json_array_size(c), 2);
        assert_string_equal(json_string_value(json_array_get(c, 1)), ID_B);
        json_t *g3 = json_array_get(gpus, 3);
        assert_true(json_is_null(json_object_get(g3, "uuid")));
        assert_string_equal(json_string_value(json_object_get(json_array_get(gpus, 0), "accessibility")), "shared");
        assert_int_equal(json_object_size(g1), 4);

        st.enabled = false;
        _cleanup_free_ char *off = ctk_tracker_status_json(&st);
        assert_string_equal(off, "{\n  \"enabled\": false,\n  \"gpus\": []\n}\n");
}

static void test_format_indices(void **state)
{
        (void)state;
        _cleanup_free_ char *a = ctk_tracker_format_indices((size_t[]){1, 2, 3}, 3);
        _cleanup_free_ char *b = ctk_tracker_format_indices(NULL, 0);
        _cleanup_free_ char *c = ctk_tracker_format_indices((size_t[]){12}, 1);
        assert_string_equal(a, "[1 2 3]");
        assert_string_equal(b, "[]");
        assert_string_equal(c, "[12]");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_status_table_is_byte_exact),
            cmocka_unit_test(test_status_table_short_ids_whole),
            cmocka_unit_test(test_status_json),
            cmocka_unit_test(test_format_indices),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
