/* The container edits applier against the CDI rules, with edits written
 * for the tests and a simulated host (fakefs) for the device nodes. */
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
#include "core/cdi/cdi.h"
#include "core/json/json.h"
#include "core/json/tests/json_test.h"

/* Two GPUs (card0/renderD128, card1/renderD129: 226:N, card root:44,
 * render root:109, 0660), /dev/kfd 235:0, and for the tests
 * /dev/example0 (240:1, 0600, root:7) and /dev/notadevice (a file). */
static const char *const profile =
    "{\"kfd\": {\"device\": {\"major\": 235, \"mode\": \"0660\", \"gid\": 109}},"
    " \"dri\": {\"major\": 226, \"card\": {\"mode\": \"0660\", \"gid\": 44},"
    "           \"render\": {\"mode\": \"0660\", \"gid\": 109}},"
    " \"gpus\": [{\"pci\": \"0000:03:00.0\", \"device_id\": \"0x740f\", \"unique_id\": \"0xEA35F57CC80DEB35\","
    "            \"kfd_node\": 1, \"card_minor\": 0, \"render_minor\": 128},"
    "           {\"pci\": \"0000:26:00.0\", \"device_id\": \"0x740f\", \"unique_id\": \"0x89CAA15875FF5A43\","
    "            \"kfd_node\": 2, \"card_minor\": 1, \"render_minor\": 129}]}";

static int setup(void **state)
{
        struct test_backend *f = test_backend_new(profile);
        struct ctk_error *err = NULL;
        struct ctk_fakefs_tree *t = ctk_fakefs_host_snapshot(f->host);
        int r = ctk_fakefs_tree_add_chr(t, "/dev/example0", 240, 1, 0600, 0, 7, &err) < 0 ||
                        ctk_fakefs_tree_add_file(t, "/dev/notadevice", "x", 1, 0644, NULL, &err) < 0
                    ? -1
                    : 0;
        ctk_fakefs_tree_unref(t);
        *state = f;
        return r;
}

static int teardown(void **state)
{
        test_backend_free(*state);
        return 0;
}

/* Up to 4 origins, each with containerEdits written as JSON. */
struct origins {
        json_t *docs[4];
        struct ctk_cdi_edits edits[4];
        struct ctk_cdi_origin o[4];
        size_t n;
};

static void add(struct origins *s, const char *name, const char *file, const char *edits_json)
{
        size_t i = s->n++;
        s->docs[i] = test_json(edits_json);
        assert_int_equal(ctk_cdi_edits_from_json(s->docs[i], &s->edits[i], NULL), 0);
        s->o[i] = (struct ctk_cdi_origin){.name = name, .file = file, .edits = &s->edits[i]};
}

static void origins_clear(struct origins *s)
{
        for (size_t i = 0; i < s->n; i++) {
                ctk_cdi_edits_clear(&s->edits[i]);
                json_decref(s->docs[i]);
        }
        s->n = 0;
}

/* Applies; on failure checks the message and that the spec did not change. */
static void apply(struct test_backend *f, json_t *oci, struct origins *s, const char *want_error)
{
        _cleanup_json_ json_t *before = json_deep_copy(oci);
        _cleanup_error_ struct ctk_error *err = NULL;
        int r = ctk_cdi_apply(oci, s->o, s->n, f->b, NULL, &err);
        if (want_error == NULL && r < 0)
                fail_msg("apply failed: %s", err->msg);
        if (want_error == NULL)
                return;
        assert_int_equal(r, -1);
        if (strcmp(err->msg, want_error) != 0)
                fail_msg("got  %s\nwant %s", err->msg, want_error);
        assert_true(json_equal(before, oci)); /* all or nothing */
}

static void test_env_order_and_override(void **state)
{
        struct origins s = {0};
        _cleanup_json_ json_t *oci = test_json("{\"process\":{\"env\":[\"PATH=/bin\",\"A=old\",\"B=keep\"]}}");
        add(&s, "example.com/dev", "/etc/cdi/x.json", "{\"env\":[\"A=spec\",\"C=1\"]}");
        add(&s, "example.com/dev=one", "/etc/cdi/x.json", "{\"env\":[\"A=one\",\"D=1\",\"E=\"]}");
        add(&s, "example.com/dev=two", "/etc/cdi/x.json", "{\"env\":[\"C=2\",\"A=two=x\"]}");
        struct ctk_cdi_apply_stats st;
        assert_int_equal(ctk_cdi_apply(oci, s.o, s.n, ((struct test_backend *)*state)->b, &st, NULL), 0);
        assert_json_is(json_object_get(json_object_get(oci, "process"), "env"),
                       "[\"PATH=/bin\",\"A=two=x\",\"B=keep\",\"C=2\",\"D=1\",\"E=\"]");
        assert_int_equal(st.env, 7);
        /* without a process: one is made */
        _cleanup_json_ json_t *bare = test_json("{}");
        apply(*state, bare, &s, NULL);
        assert_json_is(bare, "{\"process\":{\"env\":[\"A=two=x\",\"C=2\",\"D=1\",\"E=\"]}}");
        origins_clear(&s);
}

static void test_nodes_from_the_host(void **state)
{
        struct origins s = {0};
        _cleanup_json_ json_t *oci = test_json("{\"process\":{\"user\":{\"uid\":0,\"gid\":0}},"
                                               "\"linux\":{\"devices\":[{\"path\":\"/dev/example0\",\"type\":\"c\","
                                               "\"major\":1,\"minor\":1,\"x-old\":true}]}}");
        add(&s, "example.com/dev=0", NULL,
            "{\"deviceNodes\":["
            /* everything from the host (an existing entry of the path is replaced) */
            "{\"path\":\"/dev/example0\"},"
            /* another container path for the same host node, read-only */
            "{\"path\":\"/dev/ex\",\"hostPath\":\"/dev/example0\",\"permissions\":\"r\"},"
            /* the numbers given, the mode from the host */
            "{\"path\":\"/dev/dri/renderD128\",\"type\":\"c\",\"major\":226,\"minor\":128},"
            /* fully specified: no host node needed */
            "{\"path\":\"/dev/virtual\",\"type\":\"c\",\"major\":10,\"minor\":200,\"fileMode\":438,"
            "\"permissions\":\"none\",\"uid\":5,\"gid\":6},"
            /* a type given, the numbers from the host */
            "{\"path\":\"/dev/kfd\",\"type\":\"c\",\"fileMode\":420}]}");
        apply(*state, oci, &s, NULL);
        assert_json_is(json_object_get(oci, "linux"),
                       "{\"devices\":["
                       "{\"path\":\"/dev/example0\",\"type\":\"c\",\"major\":240,\"minor\":1,\"fileMode\":384},"
                       "{\"path\":\"/dev/ex\",\"type\":\"c\",\"major\":240,\"minor\":1,\"fileMode\":384},"
                       "{\"path\":\"/dev/dri/renderD128\",\"type\":\"c\",\"major\":226,\"minor\":128,\"fileMode\":432},"
                       "{\"path\":\"/dev/virtual\",\"type\":\"c\",\"major\":10,\"minor\":200,\"fileMode\":438,"
                       "\"uid\":5,\"gid\":6},"
                       "{\"path\":\"/dev/kfd\",\"type\":\"c\",\"major\":235,\"minor\":0,\"fileMode\":420}],"
                       "\"resources\":{\"devices\":["
                       "{\"allow\":true,\"type\":\"c\",\"major\":240,\"minor\":1,\"access\":\"rwm\"},"
                       "{\"allow\":true,\"type\":\"c\",\"major\":226,\"minor\":128,\"access\":\"rwm\"},"
                       "{\"allow\":true,\"type\":\"c\",\"major\":235,\"minor\":0,\"access\":\"rwm\"}]}}");
        /* A non-root user owns the nodes whose owner the spec leaves out. */
        _cleanup_json_ json_t *user = test_json("{\"process\":{\"user\":{\"uid\":1000,\"gid\":1001}}}");
        apply(*state, user, &s, NULL);
        assert_json_is(json_array_get(json_object_get(json_object_get(user, "linux"), "devices"), 0),
                       "{\"path\":\"/dev/example0\",\"type\":\"c\",\"major\":240,\"minor\":1,\"fileMode\":384,"
                       "\"uid\":1000,\"gid\":1001}");
        assert_json_is(json_array_get(json_object_get(json_object_get(user, "linux"), "devices"), 3),
                       "{\"path\":\"/dev/virtual\",\"type\":\"c\",\"major\":10,\"minor\":200,\"fileMode\":438,"
                       "\"uid\":5,\"gid\":6}");
        /* Read-only access asked alone: a rule "r" */
        origins_clear(&s);
        _cleanup_json_ json_t *ro = test_json("{}");
        add(&s, "example.com/dev=ro", NULL,
            "{\"deviceNodes\":[{\"path\":\"/dev/ex\",\"hostPath\":\"/dev/example0\","
            "\"permissions\":\"r\"}]}");
        apply(*state, ro, &s, NULL);
        assert_json_is(json_object_get(json_object_get(ro, "linux"), "resources"),
                       "{\"devices\":[{\"allow\":true,\"type\":\"c\",\"major\":240,\"minor\":1,\"access\":\"r\"}]}");
        origins_clear(&s);
}

static void test_node_errors(void **state)
{
        struct origins s = {0};
        _cleanup_json_ json_t *oci = test_json("{\"process\":{\"env\":[\"A=1\"]}}");
        add(&s, "example.com/dev=0", "/etc/cdi/x.json",
            "{\"env\":[\"A=2\"],\"deviceNodes\":[{\"path\":\"/dev/gone\"}]}");
        apply(*state, oci, &s,
              "example.com/dev=0 (/etc/cdi/x.json): device node /dev/gone: cannot stat the host device /dev/gone: No "
              "such file or directory");
        origins_clear(&s);
        add(&s, "example.com/dev=0", NULL,
            "{\"deviceNodes\":[{\"path\":\"/dev/x\",\"hostPath\":\"/dev/notadevice\"}]}");
        apply(*state, oci, &s,
              "example.com/dev=0: device node /dev/x: cannot stat the host device /dev/notadevice: not a device node");
        origins_clear(&s);
        add(&s, "example.com/dev=0", NULL, "{\"deviceNodes\":[{\"path\":\"/dev/example0\",\"type\":\"b\"}]}");
        apply(*state, oci, &s,
              "example.com/dev=0: device node /dev/example0: the spec says type \"b\", the host device /dev/example0 "
              "is \"c\"");
        origins_clear(&s);
        /* a minimally specified node needs no host node, even without a mode */
        add(&s, "example.com/dev=0", NULL, "{\"deviceNodes\":[{\"path\":\"/dev/gone\",\"type\":\"c\",\"major\":9}]}");
        apply(*state, oci, &s, NULL);
        origins_clear(&s);
}

static void test_mounts_options_and_depth(void **state)
{
        struct origins s = {0};
        _cleanup_json_ json_t *oci =
            test_json("{\"mounts\":[{\"destination\":\"/proc\",\"type\":\"proc\",\"source\":\"proc\"},"
                      "{\"destination\":\"/dev/shm\",\"type\":\"tmpfs\",\"source\":\"shm\"},"
                      "{\"destination\":\"/data/x\",\"type\":\"bind\",\"source\":\"/old\"},"
                      "{\"destination\":\"/dev\",\"type\":\"tmpfs\",\"source\":\"tmpfs\"}]}");
        add(&s, "example.com/nic=eth0", NULL,
            "{\"mounts\":[{\"hostPath\":\"/usr/lib/libnic.so.1\",\"containerPath\":\"/usr/lib/libnic.so.1\","
            "\"options\":[\"ro\",\"nosuid\",\"nodev\",\"bind\"]},"
            "{\"hostPath\":\"/srv/x\",\"containerPath\":\"/data/x\",\"type\":\"bind\",\"options\":[\"rbind\"]},"
            "{\"hostPath\":\"/etc/nic\",\"containerPath\":\"/etc/nic/../nic.d/\"}]}");
        apply(*state, oci, &s, NULL);
        assert_json_is(json_object_get(oci, "mounts"),
                       "[{\"destination\":\"/proc\",\"type\":\"proc\",\"source\":\"proc\"},"
                       "{\"destination\":\"/dev\",\"type\":\"tmpfs\",\"source\":\"tmpfs\"},"
                       "{\"destination\":\"/dev/shm\",\"type\":\"tmpfs\",\"source\":\"shm\"},"
                       "{\"destination\":\"/data/x\",\"type\":\"bind\",\"source\":\"/srv/x\",\"options\":[\"rbind\"]},"
                       "{\"destination\":\"/etc/nic/../nic.d/\",\"source\":\"/etc/nic\"},"
                       "{\"destination\":\"/usr/lib/libnic.so.1\",\"source\":\"/usr/lib/libnic.so.1\","
                       "\"options\":[\"ro\",\"nosuid\",\"nodev\",\"bind\"]}]");
        /* in a user namespace, bind mounts are ID-mapped */
        _cleanup_json_ json_t *userns =
            test_json("{\"linux\":{\"namespaces\":[{\"type\":\"mount\"},{\"type\":\"user\"}]}}");
        origins_clear(&s);
        add(&s, "example.com/nic=eth0", NULL,
            "{\"mounts\":[{\"hostPath\":\"/a\",\"containerPath\":\"/a\",\"options\":[\"ro\",\"bind\"]},"
            "{\"hostPath\":\"/b\",\"containerPath\":\"/b\",\"options\":[\"rbind\"]},"
            "{\"hostPath\":\"/c\",\"containerPath\":\"/c\",\"type\":\"bind\"},"
            "{\"hostPath\":\"/d\",\"containerPath\":\"/d\",\"options\":[\"bind\",\"idmap\"]},"
            "{\"hostPath\":\"t\",\"containerPath\":\"/e\",\"type\":\"tmpfs\"}]}");
        apply(*state, userns, &s, NULL);
        assert_json_is(json_object_get(userns, "mounts"),
                       "[{\"destination\":\"/a\",\"source\":\"/a\",\"options\":[\"ro\",\"bind\",\"idmap\"]},"
                       "{\"destination\":\"/b\",\"source\":\"/b\",\"options\":[\"rbind\",\"ridmap\"]},"
                       "{\"destination\":\"/c\",\"type\":\"bind\",\"source\":\"/c\",\"options\":[\"idmap\"]},"
                       "{\"destination\":\"/d\",\"source\":\"/d\",\"options\":[\"bind\",\"idmap\"]},"
                       "{\"destination\":\"/e\",\"type\":\"tmpfs\",\"source\":\"t\"}]");
        origins_clear(&s);
}

static void test_hooks_after_existing(void **state)
{
        struct origins s = {0};
        _cleanup_json_ json_t *oci =
            test_json("{\"hooks\":{\"prestart\":[{\"path\":\"/bin/mine\"}],"
                      "\"poststop\":[{\"path\":\"/bin/release\",\"args\":[\"release\",\"x\"]}]}}");
        add(&s, "example.com/dev", NULL,
            "{\"hooks\":[{\"hookName\":\"createContainer\",\"path\":\"/usr/bin/h\",\"args\":[\"h\",\"ldcache\"],"
            "\"env\":[\"X=1\"],\"timeout\":5},{\"hookName\":\"poststop\",\"path\":\"/usr/bin/h2\"}]}");
        add(&s, "example.com/dev=0", NULL,
            "{\"hooks\":[{\"hookName\":\"prestart\",\"path\":\"/usr/bin/p\"},"
            "{\"hookName\":\"createRuntime\",\"path\":\"/r\"},{\"hookName\":\"startContainer\",\"path\":\"/s\"},"
            "{\"hookName\":\"poststart\",\"path\":\"/ps\"}]}");
        apply(*state, oci, &s, NULL);
        assert_json_is(
            json_object_get(oci, "hooks"),
            "{\"prestart\":[{\"path\":\"/bin/mine\"},{\"path\":\"/usr/bin/p\"}],"
            "\"poststop\":[{\"path\":\"/bin/release\",\"args\":[\"release\",\"x\"]},{\"path\":\"/usr/bin/h2\"}],"
            "\"createContainer\":[{\"path\":\"/usr/bin/h\",\"args\":[\"h\",\"ldcache\"],\"env\":[\"X=1\"],"
            "\"timeout\":5}],"
            "\"createRuntime\":[{\"path\":\"/r\"}],\"startContainer\":[{\"path\":\"/s\"}],"
            "\"poststart\":[{\"path\":\"/ps\"}]}");
        origins_clear(&s);
}

/* containerd or CRI-O with CDI on injected the annotations' devices (the
 * hooks as the reference library writes them: empty members left out) and
 * then ran the runtime, which applies the same edits again. */
static void test_hooks_already_there(void **state)
{
        struct origins s = {0};
        _cleanup_json_ json_t *oci =
            test_json("{\"hooks\":{\"createContainer\":[{\"path\":\"/usr/bin/h\",\"args\":[\"h\",\"ldcache\"],"
                      "\"env\":[\"X=1\"],\"timeout\":5}],\"poststop\":[{\"path\":\"/usr/bin/h2\"}]}}");
        add(&s, "example.com/dev", NULL,
            "{\"hooks\":[{\"hookName\":\"createContainer\",\"path\":\"/usr/bin/h\",\"args\":[\"h\",\"ldcache\"],"
            "\"env\":[\"X=1\"],\"timeout\":5},{\"hookName\":\"poststop\",\"path\":\"/usr/bin/h2\",\"args\":[],"
            "\"env\":[]}]}");
        /* each differs from one that is there in one thing: all added */
        add(&s, "example.com/dev=0", NULL,
            "{\"hooks\":[{\"hookName\":\"createContainer\",\"path\":\"/usr/bin/h\",\"args\":[\"h\",\"other\"],"
            "\"env\":[\"X=1\"],\"timeout\":5},"
            "{\"hookName\":\"createContainer\",\"path\":\"/usr/bin/h\",\"args\":[\"h\",\"ldcache\"],"
            "\"env\":[\"X=2\"],\"timeout\":5},"
            "{\"hookName\":\"createContainer\",\"path\":\"/usr/bin/h\",\"args\":[\"h\",\"ldcache\"],"
            "\"env\":[\"X=1\"]},"
            "{\"hookName\":\"poststop\",\"path\":\"/usr/bin/h3\"},"
            "{\"hookName\":\"prestart\",\"path\":\"/usr/bin/h2\"}]}");
        /* a second device with the first one's hook: once */
        add(&s, "example.com/dev=1", NULL, "{\"hooks\":[{\"hookName\":\"poststop\",\"path\":\"/usr/bin/h3\"}]}");
        struct ctk_cdi_apply_stats st;
        assert_int_equal(ctk_cdi_apply(oci, s.o, s.n, ((struct test_backend *)*state)->b, &st, NULL), 0);
        assert_json_is(json_object_get(oci, "hooks"),
                       "{\"createContainer\":[{\"path\":\"/usr/bin/h\",\"args\":[\"h\",\"ldcache\"],"
                       "\"env\":[\"X=1\"],\"timeout\":5},"
                       "{\"path\":\"/usr/bin/h\",\"args\":[\"h\",\"other\"],\"env\":[\"X=1\"],\"timeout\":5},"
                       "{\"path\":\"/usr/bin/h\",\"args\":[\"h\",\"ldcache\"],\"env\":[\"X=2\"],\"timeout\":5},"
                       "{\"path\":\"/usr/bin/h\",\"args\":[\"h\",\"ldcache\"],\"env\":[\"X=1\"]}],"
                       "\"poststop\":[{\"path\":\"/usr/bin/h2\"},{\"path\":\"/usr/bin/h3\"}],"
                       "\"prestart\":[{\"path\":\"/usr/bin/h2\"}]}");
        assert_int_equal(st.hooks, 5);
        /* applied a second time: nothing more */
        apply(*state, oci, &s, NULL);
        assert_int_equal(json_array_size(json_object_get(json_object_get(oci, "hooks"), "createContainer")), 4);
        assert_int_equal(json_array_size(json_object_get(json_object_get(oci, "hooks"), "poststop")), 2);
        origins_clear(&s);
}

static void test_gids_rdt_netdevs(void **state)
{
        struct origins s = {0};
        _cleanup_json_ json_t *oci = test_json("{\"process\":{\"user\":{\"uid\":1000,\"gid\":1000,"
                                               "\"additionalGids\":[5]}}}");
        add(&s, "example.com/dev", NULL,
            "{\"additionalGids\":[0,44,5],\"intelRdt\":{\"closID\":\"first\"},"
            "\"netDevices\":[{\"hostInterfaceName\":\"eth0\",\"name\":\"nic0\"}]}");
        add(&s, "example.com/dev=0", NULL,
            "{\"additionalGids\":[109,44,1000],\"intelRdt\":{\"closID\":\"last\",\"schemata\":[\"L3:0=f\"],"
            "\"enableMonitoring\":true},\"netDevices\":[{\"hostInterfaceName\":\"eth1\",\"name\":\"nic1\"}]}");
        apply(*state, oci, &s, NULL);
        assert_json_is(oci, "{\"process\":{\"user\":{\"uid\":1000,\"gid\":1000,\"additionalGids\":[5,44,109]}},"
                            "\"linux\":{\"netDevices\":{\"eth0\":{\"name\":\"nic0\"},\"eth1\":{\"name\":\"nic1\"}},"
                            "\"intelRdt\":{\"closID\":\"last\",\"schemata\":[\"L3:0=f\"],\"enableMonitoring\":true}}}");
        origins_clear(&s);
}

static void test_conflicts(void **state)
{
        struct origins s = {0};
        _cleanup_json_ json_t *oci = test_json("{\"process\":{\"env\":[\"A=1\"]},\"mounts\":[]}");
        /* one container path, two devices: an error naming both */
        add(&s, "amd.com/gpu=0", "/etc/cdi/amd.json",
            "{\"env\":[\"A=2\"],\"deviceNodes\":[{\"path\":\"/dev/dri/renderD128\"},{\"path\":\"/dev/kfd\"}]}");
        add(&s, "example.com/x=y", "/var/run/cdi/x.json",
            "{\"deviceNodes\":[{\"path\":\"/dev/dri/renderD128\",\"hostPath\":\"/dev/dri/renderD129\"}]}");
        apply(*state, oci, &s,
              "/dev/dri/renderD128: amd.com/gpu=0 (/etc/cdi/amd.json) and example.com/x=y (/var/run/cdi/x.json) "
              "give different devices");
        origins_clear(&s);
        /* the same device twice is no conflict (every GPU gives /dev/kfd) */
        add(&s, "amd.com/gpu=0", "/etc/cdi/amd.json", "{\"deviceNodes\":[{\"path\":\"/dev/kfd\"}]}");
        add(&s, "amd.com/gpu=1", "/etc/cdi/amd.json",
            "{\"deviceNodes\":[{\"path\":\"/dev/kfd\",\"type\":\"c\",\"major\":235,\"minor\":0,\"fileMode\":438}]}");
        apply(*state, oci, &s, NULL);
        assert_json_is(json_object_get(json_object_get(oci, "linux"), "devices"),
                       "[{\"path\":\"/dev/kfd\",\"type\":\"c\",\"major\":235,\"minor\":0,\"fileMode\":438}]");
        origins_clear(&s);
        /* one device's own edits: the later one wins */
        add(&s, "example.com/x=y", NULL,
            "{\"deviceNodes\":[{\"path\":\"/dev/a\",\"hostPath\":\"/dev/dri/card0\"},"
            "{\"path\":\"/dev/a\",\"hostPath\":\"/dev/dri/card1\"}]}");
        apply(*state, oci, &s, NULL);
        origins_clear(&s);
        /* one container path, two mounts */
        add(&s, "example.com/nic=eth0", "/etc/cdi/nic.yaml",
            "{\"mounts\":[{\"hostPath\":\"/a\",\"containerPath\":\"/opt/lib\"}]}");
        add(&s, "example.com/fpga=0", "/etc/cdi/fpga.json",
            "{\"mounts\":[{\"hostPath\":\"/b\",\"containerPath\":\"/opt/lib\"}]}");
        apply(*state, oci, &s,
              "/opt/lib: example.com/nic=eth0 (/etc/cdi/nic.yaml) and example.com/fpga=0 (/etc/cdi/fpga.json) mount "
              "different things there");
        origins_clear(&s);
        /* a host interface with two names, a name for two interfaces */
        add(&s, "example.com/nic=a", NULL, "{\"netDevices\":[{\"hostInterfaceName\":\"eth0\",\"name\":\"n0\"}]}");
        add(&s, "example.com/nic=b", NULL, "{\"netDevices\":[{\"hostInterfaceName\":\"eth0\",\"name\":\"n1\"}]}");
        apply(*state, oci, &s, "network device eth0: example.com/nic=a and example.com/nic=b give it different names");
        origins_clear(&s);
        add(&s, "example.com/nic=a", NULL, "{\"netDevices\":[{\"hostInterfaceName\":\"eth0\",\"name\":\"n0\"}]}");
        add(&s, "example.com/nic=b", NULL, "{\"netDevices\":[{\"hostInterfaceName\":\"eth1\",\"name\":\"n0\"}]}");
        apply(*state, oci, &s,
              "network device n0: example.com/nic=a and example.com/nic=b name different host interfaces so");
        origins_clear(&s);
}

static void test_spec_members(void **state)
{
        struct origins s = {0};
        add(&s, "example.com/dev=0", NULL, "{\"env\":[\"A=1\"]}");
        const char *bad[][2] = {
            {"[]", "the spec is not a JSON object"},
            {"{\"process\":{\"env\":\"A=1\"}}", "process.env is not an array"},
            {"{\"process\":{\"env\":[1]}}", "process.env[0] is not a string"},
            {"{\"linux\":{\"devices\":[1]}}", "linux.devices[0] is not an object"},
            {"{\"mounts\":[{\"source\":\"x\"}]}", "mounts[0].destination is not a string"},
            {"{\"hooks\":{\"poststop\":{}}}", "hooks.poststop is not an array"},
            {"{\"process\":{\"user\":{\"additionalGids\":[\"1\"]}}}",
             "process.user.additionalGids[0] is not an integer"},
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                _cleanup_json_ json_t *oci = test_json(bad[i][0]);
                apply(*state, oci, &s, bad[i][1]);
        }
        origins_clear(&s);
}

/* The device model through the applier: what the runtime gives for GPU 1
 * found by discovery, as `cdi generate` writes it. */
static void test_device_model(void **state)
{
        struct test_backend *f = *state;
        _cleanup_gpu_list_ struct ctk_gpu_list gpus = {0};
        _cleanup_cdi_host_ struct ctk_cdi_host host = {0};
        struct ctk_cdi_device_list devs = {0};
        size_t idx[] = {1};
        assert_int_equal(ctk_discover_gpus(f->b, &gpus, NULL), 0);
        assert_int_equal(ctk_cdi_host_collect_some(f->b, &gpus, idx, 1, &host, NULL), 0);
        assert_int_equal(ctk_cdi_host_devices(&host, true, false, &devs, NULL), 0);
        _cleanup_cdi_edits_ struct ctk_cdi_edits e = {0};
        assert_int_equal(ctk_cdi_device_edits(&devs.v[0], true, &e, NULL), 0);
        _cleanup_json_ json_t *ce = ctk_cdi_edits_to_json(&e);
        assert_json_is(ce,
                       "{\"deviceNodes\":["
                       "{\"path\":\"/dev/dri/card1\",\"type\":\"c\",\"major\":226,\"minor\":1,\"fileMode\":432,"
                       "\"permissions\":\"rwm\",\"uid\":0,\"gid\":44},"
                       "{\"path\":\"/dev/dri/renderD129\",\"type\":\"c\",\"major\":226,\"minor\":129,\"fileMode\":432,"
                       "\"permissions\":\"rwm\",\"uid\":0,\"gid\":109},"
                       "{\"path\":\"/dev/kfd\",\"type\":\"c\",\"major\":235,\"minor\":0,\"fileMode\":432,"
                       "\"permissions\":\"rwm\",\"uid\":0,\"gid\":109}],\"additionalGids\":[44,109]}");
        struct ctk_cdi_origin o = {.name = "GPU 1", .edits = &e};
        _cleanup_json_ json_t *oci = test_json("{\"process\":{\"user\":{\"uid\":0,\"gid\":0}}}");
        struct ctk_cdi_apply_stats st;
        assert_int_equal(ctk_cdi_apply(oci, &o, 1, NULL, &st, NULL), 0); /* fully specified: no host needed */
        assert_int_equal(st.devices, 3);
        assert_int_equal(st.rules, 3);
        assert_int_equal(st.gids, 2);
        _cleanup_free_ char *text = json_dumps(oci, JSON_COMPACT | JSON_PRESERVE_ORDER);
        assert_string_equal(text,
                            "{\"process\":{\"user\":{\"uid\":0,\"gid\":0,\"additionalGids\":[44,109]}},"
                            "\"linux\":{\"devices\":[{\"path\":\"/dev/dri/card1\",\"type\":\"c\",\"major\":226,"
                            "\"minor\":1,\"fileMode\":432,\"uid\":0,\"gid\":44},{\"path\":\"/dev/dri/renderD129\","
                            "\"type\":\"c\",\"major\":226,\"minor\":129,\"fileMode\":432,\"uid\":0,\"gid\":109},"
                            "{\"path\":\"/dev/kfd\",\"type\":\"c\",\"major\":235,\"minor\":0,\"fileMode\":432,"
                            "\"uid\":0,\"gid\":109}],\"resources\":{\"devices\":[{\"allow\":true,\"type\":\"c\","
                            "\"major\":226,\"minor\":1,\"access\":\"rwm\"},{\"allow\":true,\"type\":\"c\","
                            "\"major\":226,\"minor\":129,\"access\":\"rwm\"},{\"allow\":true,\"type\":\"c\","
                            "\"major\":235,\"minor\":0,\"access\":\"rwm\"}]}}}");
        /* applied again: nothing changes */
        assert_int_equal(ctk_cdi_apply(oci, &o, 1, NULL, &st, NULL), 0);
        assert_int_equal(st.devices + st.rules + st.gids, 0);
        ctk_cdi_device_list_clear(&devs);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_setup_teardown(test_env_order_and_override, setup, teardown),
            cmocka_unit_test_setup_teardown(test_nodes_from_the_host, setup, teardown),
            cmocka_unit_test_setup_teardown(test_node_errors, setup, teardown),
            cmocka_unit_test_setup_teardown(test_mounts_options_and_depth, setup, teardown),
            cmocka_unit_test_setup_teardown(test_hooks_after_existing, setup, teardown),
            cmocka_unit_test_setup_teardown(test_hooks_already_there, setup, teardown),
            cmocka_unit_test_setup_teardown(test_gids_rdt_netdevs, setup, teardown),
            cmocka_unit_test_setup_teardown(test_conflicts, setup, teardown),
            cmocka_unit_test_setup_teardown(test_spec_members, setup, teardown),
            cmocka_unit_test_setup_teardown(test_device_model, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
