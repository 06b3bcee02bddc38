/* Drop-ins for Podman and CRI-O (containerd's: test_dropin_cri.c), and
 * the imports line of containerd's config.toml: added once, removed again,
 * every other byte kept. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/base/base.h"
#include "core/engines/dropins.h"
#include "core/engines/toml.h"

static const char *const dirs[] = {"/etc/cdi", "/var/run/cdi"};
#define DROPIN "/etc/containerd/conf.d/99-amd.toml"

static void valid_toml(const char *text)
{
        struct ctk_toml_top top;
        _cleanup_error_ struct ctk_error *err = NULL;
        if (ctk_toml_check(text, strlen(text), "dropin", &top, NULL, &err) < 0)
                fail_msg("%s\n%s", err->msg, text);
        ctk_toml_top_clear(&top);
}

static char *text_of(const struct ctk_dropin *d)
{
        char *out = NULL;
        assert_int_equal(ctk_dropin_text(d, &out, NULL), 0);
        return out;
}

/* containerd's drop-in is shown in test_dropin_cri.c */
static void test_texts(void **state)
{
        (void)state;
        struct ctk_dropin d = {.engine = CTK_DROPIN_CONTAINERD,
                               .name = "amd",
                               .runtime_path = "/usr/bin/amd-container-runtime",
                               .containerd_version = 3,
                               .set_as_default = true,
                               .cdi_dirs = dirs,
                               .ncdi_dirs = 2};
        _cleanup_free_ char *c3 = text_of(&d);
        assert_non_null(strstr(c3, "version = 3\n"));
        assert_non_null(strstr(c3, "[plugins.\"io.containerd.cri.v1.runtime\".containerd]\n"
                                   "  default_runtime_name = \"amd\"\n"));
        valid_toml(c3);
        assert_true(ctk_dropin_is_ours(c3, strlen(c3)));
        d.engine = CTK_DROPIN_PODMAN;
        _cleanup_free_ char *p = text_of(&d);
        assert_string_equal(p, CTK_DROPIN_MARK "\n\n[engine]\nruntime = \"amd\"\n\n[engine.runtimes]\n"
                                               "\"amd\" = [\"/usr/bin/amd-container-runtime\"]\n");
        valid_toml(p);
        d.engine = CTK_DROPIN_CRIO;
        d.set_as_default = false;
        _cleanup_free_ char *c = text_of(&d);
        assert_string_equal(c, CTK_DROPIN_MARK "\n\n[crio.runtime]\n\n[crio.runtime.runtimes.\"amd\"]\n"
                                               "runtime_path = \"/usr/bin/amd-container-runtime\"\n"
                                               "runtime_type = \"oci\"\n");
        valid_toml(c);
        assert_false(ctk_dropin_is_ours("[crio.runtime]\n", 15));
}

/* in -> (add) want -> (remove) back */
static void round_trip(const char *in, const char *want, int want_version, const char *back_want)
{
        char *out = NULL;
        int version = -1;
        _cleanup_error_ struct ctk_error *err = NULL;
        assert_int_equal(
            ctk_dropin_containerd_imports(in, strlen(in), "config.toml", DROPIN, true, 2, &out, &version, &err), 0);
        assert_int_equal(version, want_version);
        assert_non_null(out);
        assert_string_equal(out, want);
        char *again = NULL;
        assert_int_equal(
            ctk_dropin_containerd_imports(out, strlen(out), "config.toml", DROPIN, true, 2, &again, &version, NULL), 0);
        assert_null(again); /* added once */
        char *back = NULL;
        assert_int_equal(
            ctk_dropin_containerd_imports(out, strlen(out), "config.toml", DROPIN, false, 2, &back, &version, NULL), 0);
        assert_non_null(back);
        assert_string_equal(back, back_want != NULL ? back_want : in);
        free(back);
        free(out);
}

static void test_imports(void **state)
{
        (void)state;
        round_trip("version = 2\n\n[plugins]\n  x = 1\n",
                   "version = 2\n\nimports = [\"" DROPIN "\"]\n[plugins]\n  x = 1\n", 2,
                   "version = 2\n\nimports = []\n[plugins]\n  x = 1\n");
        /* containerd's default file: restored byte for byte */
        round_trip("version = 2\nimports = []\nroot = \"/r\"\n",
                   "version = 2\nimports = [\"" DROPIN "\"]\nroot = \"/r\"\n", 2, NULL);
        round_trip("version = 3\nimports = [\"/etc/a.toml\"]\nroot = \"/r\"\n",
                   "version = 3\nimports = [\"/etc/a.toml\", \"" DROPIN "\"]\nroot = \"/r\"\n", 3, NULL);
        round_trip("# only a comment\n", "# only a comment\nimports = [\"" DROPIN "\"]\n", 0,
                   "# only a comment\nimports = []\n");
        /* a missing file: created; removing from a missing file changes nothing */
        char *out = NULL;
        int version;
        assert_int_equal(ctk_dropin_containerd_imports(NULL, 0, "c", DROPIN, true, 3, &out, &version, NULL), 0);
        assert_string_equal(out, "version = 3\nimports = [\"" DROPIN "\"]\n");
        free(out);
        out = NULL;
        assert_int_equal(ctk_dropin_containerd_imports(NULL, 0, "c", DROPIN, false, 3, &out, &version, NULL), 0);
        assert_null(out);
        /* an invalid file is refused where it is wrong */
        _cleanup_error_ struct ctk_error *err = NULL;
        const char *bad = "version = 2\n[plugins\n";
        assert_int_equal(ctk_dropin_containerd_imports(bad, strlen(bad), "/etc/containerd/config.toml", DROPIN, true, 2,
                                                       &out, &version, &err),
                         -1);
        assert_string_equal(err->msg, "/etc/containerd/config.toml:2:9: expected ']' to close the table header");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_texts),
            cmocka_unit_test(test_imports),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
