/* The in-memory tree: building, sorted children, lookups through links. */
#include <errno.h>

#include "backends/fakefs/tree.h"
#include "fakefs_test.h"

static struct ctk_fakefs_tree *sample(void)
{
        struct ctk_fakefs_tree *t = NULL;
        struct ctk_error *err = NULL;
        assert_int_equal(ctk_fakefs_tree_new(&t, &err), 0);
        assert_int_equal(ctk_fakefs_tree_add_filef(t, "/sys/devices/pci0000:00/0000:03:00.0/vendor", &err, "0x1002\n"),
                         0);
        assert_int_equal(ctk_fakefs_tree_add_link(t, "/sys/bus/pci/devices/0000:03:00.0",
                                                  "../../../devices/pci0000:00/0000:03:00.0", &err),
                         0);
        assert_int_equal(ctk_fakefs_tree_add_link(t, "/sys/abs", "/sys/bus", &err), 0);
        assert_int_equal(ctk_fakefs_tree_add_link(t, "/sys/loop-a", "loop-b", &err), 0);
        assert_int_equal(ctk_fakefs_tree_add_link(t, "/sys/loop-b", "loop-a", &err), 0);
        assert_int_equal(ctk_fakefs_tree_add_link(t, "/sys/dangling", "nowhere", &err), 0);
        assert_int_equal(ctk_fakefs_tree_add_link(t, "/dev/dri/by-path/pci-0000:03:00.0-render", "../renderD128", &err),
                         0);
        assert_int_equal(ctk_fakefs_tree_add_chr(t, "/dev/dri/renderD128", 226, 128, 0660, 0, 109, &err), 0);
        assert_int_equal(ctk_fakefs_tree_add_chr(t, "/dev/dri/card0", 226, 0, 0660, 0, 44, &err), 0);
        assert_int_equal(ctk_fakefs_tree_add_chr(t, "/dev/dri/card10", 226, 10, 0660, 0, 44, &err), 0);
        assert_int_equal(ctk_fakefs_tree_add_chr(t, "/dev/dri/card2", 226, 2, 0660, 0, 44, &err), 0);
        assert_null(err);
        return t;
}

static void children_are_sorted(void **state)
{
        (void)state;
        struct ctk_fakefs_tree *t = sample();
        const struct ctk_fakefs_node *d;
        assert_int_equal(ctk_fakefs_tree_lookup(t, "/dev/dri", true, &d), 0);
        const char *want[] = {"by-path", "card0", "card10", "card2", "renderD128"};
        assert_int_equal(d->nkids, 5);
        for (size_t i = 0; i < 5; i++)
                assert_string_equal(d->kids[i]->name, want[i]);
        ctk_fakefs_tree_unref(t);
}

static void lookup_follows_links_in_the_middle(void **state)
{
        (void)state;
        struct ctk_fakefs_tree *t = sample();
        const struct ctk_fakefs_node *n;
        assert_int_equal(ctk_fakefs_tree_lookup(t, "/sys/bus/pci/devices/0000:03:00.0/vendor", false, &n), 0);
        assert_string_equal(n->data, "0x1002\n");
        /* an absolute link target restarts at the root of the tree */
        assert_int_equal(ctk_fakefs_tree_lookup(t, "/sys/abs/pci/devices/0000:03:00.0/vendor", false, &n), 0);
        assert_string_equal(n->data, "0x1002\n");
        /* "." and ".." work through links too, ".." of the root is the root */
        assert_int_equal(ctk_fakefs_tree_lookup(
                             t, "/../sys/./bus/../bus/pci/devices/0000:03:00.0/../0000:03:00.0/vendor", false, &n),
                         0);
        assert_string_equal(n->data, "0x1002\n");
        assert_int_equal(ctk_fakefs_tree_lookup(t, "//sys//bus///pci/devices/0000:03:00.0//vendor", false, &n), 0);
        ctk_fakefs_tree_unref(t);
}

static void final_link_followed_on_request(void **state)
{
        (void)state;
        struct ctk_fakefs_tree *t = sample();
        const struct ctk_fakefs_node *n;
        assert_int_equal(ctk_fakefs_tree_lookup(t, "/dev/dri/by-path/pci-0000:03:00.0-render", false, &n), 0);
        assert_int_equal(n->type, CTK_NODE_LINK);
        assert_string_equal(n->data, "../renderD128");
        assert_int_equal(ctk_fakefs_tree_lookup(t, "/dev/dri/by-path/pci-0000:03:00.0-render", true, &n), 0);
        assert_int_equal(n->type, CTK_NODE_CHR);
        assert_int_equal(n->major, 226);
        assert_int_equal(n->minor, 128);
        assert_int_equal(n->gid, 109);
        /* a trailing slash follows the link (and asks for a directory) */
        assert_int_equal(ctk_fakefs_tree_lookup(t, "/sys/bus/pci/devices/0000:03:00.0/", false, &n), 0);
        assert_int_equal(n->type, CTK_NODE_DIR);
        assert_int_equal(ctk_fakefs_tree_lookup(t, "/dev/dri/card0/", false, &n), -ENOTDIR);
        ctk_fakefs_tree_unref(t);
}

static void lookup_errors(void **state)
{
        (void)state;
        struct ctk_fakefs_tree *t = sample();
        const struct ctk_fakefs_node *n;
        assert_int_equal(ctk_fakefs_tree_lookup(t, "/sys/nothing", true, &n), -ENOENT);
        assert_int_equal(ctk_fakefs_tree_lookup(t, "/sys/nothing/deeper", true, &n), -ENOENT);
        assert_int_equal(ctk_fakefs_tree_lookup(t, "/dev/dri/card0/dev", true, &n), -ENOTDIR);
        assert_int_equal(ctk_fakefs_tree_lookup(t, "/sys/loop-a", true, &n), -ELOOP);
        assert_int_equal(ctk_fakefs_tree_lookup(t, "/sys/loop-a", false, &n), 0);
        assert_int_equal(ctk_fakefs_tree_lookup(t, "/sys/dangling", true, &n), -ENOENT);
        assert_int_equal(ctk_fakefs_tree_lookup(t, "sys/abs", true, &n), -EINVAL);
        /* a prefix of an existing name is not that name */
        assert_int_equal(ctk_fakefs_tree_lookup(t, "/dev/dri/card", true, &n), -ENOENT);
        assert_int_equal(ctk_fakefs_tree_lookup(t, "/dev/dri/card00", true, &n), -ENOENT);
        ctk_fakefs_tree_unref(t);
}

static void add_errors(void **state)
{
        (void)state;
        struct ctk_fakefs_tree *t = sample();
        struct ctk_error *err = NULL;
        assert_int_equal(ctk_fakefs_tree_add_filef(t, "/dev/dri/card0", &err, "x"), -1);
        assert_int_equal(err->code, EEXIST);
        ctk_error_free(err);
        err = NULL;
        assert_int_equal(ctk_fakefs_tree_add_filef(t, "/dev/dri/card0/x", &err, "x"), -1);
        assert_int_equal(err->code, ENOTDIR);
        ctk_error_free(err);
        err = NULL;
        assert_int_equal(ctk_fakefs_tree_add_filef(t, "relative", &err, "x"), -1);
        assert_int_equal(err->code, EINVAL);
        ctk_error_free(err);
        err = NULL;
        /* mkdir of an existing directory is fine */
        assert_int_equal(ctk_fakefs_tree_mkdir(t, "/dev/dri", &err), 0);
        ctk_fakefs_tree_unref(t);
}

static void node_path_and_refcount(void **state)
{
        (void)state;
        struct ctk_fakefs_tree *t = sample();
        const struct ctk_fakefs_node *n;
        assert_int_equal(ctk_fakefs_tree_lookup(t, "/sys/bus/pci/devices/0000:03:00.0/vendor", false, &n), 0);
        char *p = ctk_fakefs_node_path(n);
        assert_string_equal(p, "/sys/devices/pci0000:00/0000:03:00.0/vendor");
        free(p);
        p = ctk_fakefs_node_path(t->root);
        assert_string_equal(p, "/");
        free(p);
        struct ctk_fakefs_tree *r = ctk_fakefs_tree_ref(t);
        ctk_fakefs_tree_unref(t);
        assert_string_equal(n->data, "0x1002\n"); /* still alive through r */
        ctk_fakefs_tree_unref(r);
        ctk_fakefs_tree_unref(NULL);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(children_are_sorted),
            cmocka_unit_test(lookup_follows_links_in_the_middle),
            cmocka_unit_test(final_link_followed_on_request),
            cmocka_unit_test(lookup_errors),
            cmocka_unit_test(add_errors),
            cmocka_unit_test(node_path_and_refcount),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
