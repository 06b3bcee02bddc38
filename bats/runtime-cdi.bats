#!/usr/bin/env bats
# The runtime as a CDI client, driven directly with runc (busybox bundles):
# CDI names and cdi.k8s.io/ annotations resolved through the spec
# directories, other vendors' specs (YAML too) applied beside ours, the
# modes (config key mode: auto, cdi, legacy), mode cdi's staleness rule on
# a live FUSE host that is repartitioned, the GPU tracker with CDI names,
# and `amd-ctk cdi list --all-vendors`.

bats_require_minimum_version 1.5.0

load helpers/common
load helpers/runtime_bundle
load helpers/fakefs
load helpers/runtime_cdi

export BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-180}

setup_file() { rt_cdi_setup_file; }
setup() { rt_cdi_setup; }
teardown() { rt_cdi_teardown; }

@test "annotations cdi.k8s.io/: our GPU and another vendor's device, through a runc bundle" {
        nic_spec
        config root "$SEED_HOST" "$NIC_KINDS"
        rt_spec_edit "$B" '.annotations = {"cdi.k8s.io/vendor.nic_eth0": "example.com/nic=eth0",
                                           "cdi.k8s.io/amd.gpu_1": "amd.com/gpu=1",
                                           "io.kubernetes.cri.container-type": "container"}'
        run_container
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = "NIC=eth0 NIC_DRIVER=fast" ]
        [ "${lines[1]}" = "eth0 firmware 1.2" ]
        [ "$(ls_nodes <<<"$output")" = "$(gpu1_nodes)" ]
        # keys in sorted order: amd.gpu_1 first
        grep -q 'CDI devices amd.com/gpu=1, example.com/nic=eth0: added 3 device nodes, 3 cgroup rules, 0 groups, 2 environment variables, 1 mounts' "$T/runtime.log"
        # the spec was read although no GPU variable is set
        [ "$(jq -r '.process.env | map(select(startswith("AMD_"))) | length' "$B/config.json")" -eq 0 ]
}

@test "annotations: a name that is not qualified fails the create naming the annotation; the spec is unchanged" {
        rt_spec_edit "$B" '.annotations = {"cdi.k8s.io/x": "amd.com/gpu=0,1"}'
        cp "$B/config.json" "$T/before.json"
        run shim run --bundle "$B" "$ID"
        [ "$status" -ne 0 ]
        [[ "$output" == *"annotation cdi.k8s.io/x: \"1\" is not a fully qualified CDI device name (vendor/class=name, e.g. amd.com/gpu=0)"* ]]
        cmp "$T/before.json" "$B/config.json"
}

@test "AMD_VISIBLE_DEVICES mixes plain tokens and CDI names of the kinds of cdi-kinds; a spec-wide edit comes once" {
        nic_spec
        config root "$SEED_HOST" "$NIC_KINDS"
        rt_spec_env "$B" "AMD_VISIBLE_DEVICES=1,example.com/nic=eth0,example.com/nic=eth1"
        run_container
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = "NIC=eth1 NIC_DRIVER=fast" ] # the later device wins
        [ "$(ls_nodes <<<"$output")" = "$(gpu1_nodes)" ]
        [ "$(jq '[.process.env[] | select(startswith("NIC"))] | length' "$B/config.json")" -eq 2 ]
        grep -q 'GPUs 1; CDI devices example.com/nic=eth0, example.com/nic=eth1: added 3 device nodes' "$T/runtime.log"
}

@test "unresolvable names: one line with the names the spec offers, or why not; nothing applied" {
        rt_spec_env "$B" "AMD_VISIBLE_DEVICES=0,amd.com/gpu=9"
        cp "$B/config.json" "$T/before.json"
        run shim run --bundle "$B" "$ID"
        [ "$status" -eq 1 ]
        [ "$output" = "amd-container-runtime: AMD_VISIBLE_DEVICES: amd.com/gpu=9: no such device in $CDI/amd.json (0-3, all)" ]
        cmp "$T/before.json" "$B/config.json"
        # defined twice in one directory: unusable, both files named
        jq '.devices |= [.[1]]' "$CDI/amd.json" >"$CDI/more.json"
        cp "$TEMPLATE/config.json" "$B/config.json"
        rt_spec_env "$B" "AMD_VISIBLE_DEVICES=amd.com/gpu=1"
        run shim run --bundle "$B" "$ID"
        [ "$status" -eq 1 ]
        [[ "$output" == *"amd.com/gpu=1: defined twice in one directory ($CDI/amd.json, $CDI/more.json): CDI runtimes use neither; remove one of them"* ]]
        # a spec file that does not load is named
        rm "$CDI/more.json"
        config root "$SEED_HOST" "$NIC_KINDS"
        printf '{"cdiVersion": "0.5.0", "kind": "example.com/nic", "devices": [{"name": "eth0"}]}' >"$CDI/nic.json"
        cp "$TEMPLATE/config.json" "$B/config.json"
        rt_spec_env "$B" "AMD_VISIBLE_DEVICES=example.com/nic=eth0"
        run shim run --bundle "$B" "$ID"
        [ "$status" -eq 1 ]
        [[ "$output" == *"example.com/nic=eth0: $CDI/nic.json would give it, but was skipped: $CDI/nic.json:1:"*"missing required key \"containerEdits\""* ]]
        # no spec of the kind in either directory
        rm "$CDI/nic.json"
        mkdir -p "$T/run-cdi"
        config root "$SEED_HOST" "$(jq -n --arg c "$CDI" --arg r "$T/run-cdi" \
                '{"cdi-spec-dirs": [$c, $r], "cdi-kinds": ["amd.com/gpu", "example.com/nic"]}')"
        run shim run --bundle "$B" "$ID"
        [ "$status" -eq 1 ]
        [ "$output" = "amd-container-runtime: AMD_VISIBLE_DEVICES: example.com/nic=eth0: no CDI spec in $CDI, $T/run-cdi has kind example.com/nic" ]
}

@test "mode legacy: a CDI name is an error saying so; annotations are not read; plain tokens as before" {
        config root "$SEED_HOST" '{"mode": "legacy"}'
        rt_spec_env "$B" "AMD_VISIBLE_DEVICES=amd.com/gpu=1"
        run shim run --bundle "$B" "$ID"
        [ "$status" -eq 1 ]
        [ "$output" = "amd-container-runtime: AMD_VISIBLE_DEVICES: 'amd.com/gpu=1' is a CDI device name, but the runtime's mode is legacy (config key mode), where GPU indices, ranges and UUIDs select GPUs; set mode to auto or cdi to use CDI names" ]
        cp -a "$TEMPLATE/config.json" "$B/config.json"
        rt_spec_edit "$B" '.annotations = {"cdi.k8s.io/x": "amd.com/gpu=1"}'
        cp "$B/config.json" "$T/before.json"
        run_container
        [ "$status" -eq 0 ]
        [[ "$output" == *"/dev/dri: No such file or directory"* ]]
        cmp "$T/before.json" "$B/config.json"
        cp "$TEMPLATE/config.json" "$B/config.json"
        rt_spec_env "$B" "AMD_VISIBLE_DEVICES=1"
        run_container
        [ "$status" -eq 0 ]
        [ "$(ls_nodes <<<"$output")" = "$(gpu1_nodes)" ]
}

@test "mode cdi: plain tokens are amd.com/gpu devices of the spec, without reading /sys" {
        # a host with /dev and no /sys: discovery cannot work there
        "$RT_BIN/amd-ctk-fakefs" materialize "$RT_PROFILES/$SEED.json" "$T/host"
        rm -rf "$T/host/sys"
        config root "$T/host" '{"mode": "cdi"}'
        rt_spec_env "$B" "AMD_VISIBLE_DEVICES=1"
        create "$B" "$ID"
        [ "$status" -eq 0 ]
        [ "$(jq -r '.linux.devices | map(.path) | join(" ")' "$B/config.json")" = "/dev/dri/card3 /dev/dri/renderD131 /dev/kfd" ]
        grep -q 'CDI devices amd.com/gpu=1: added 3 device nodes' "$T/runtime.log"
        shim delete -f "$ID"
        # all -> the device "all"; a range -> index devices
        cp -a "$TEMPLATE/config.json" "$B/config.json"
        rt_spec_env "$B" "AMD_VISIBLE_DEVICES=all"
        create "$B" "$ID"
        [ "$status" -eq 0 ]
        [ "$(jq '.linux.devices | length' "$B/config.json")" -eq 9 ]
        grep -q 'CDI devices amd.com/gpu=all: added 9 device nodes' "$T/runtime.log"
        shim delete -f "$ID"
        cp -a "$TEMPLATE/config.json" "$B/config.json"
        rt_spec_env "$B" "AMD_VISIBLE_DEVICES=2-3"
        create "$B" "$ID"
        [ "$status" -eq 0 ]
        grep -q 'CDI devices amd.com/gpu=2, amd.com/gpu=3: added 5 device nodes' "$T/runtime.log"
        shim delete -f "$ID"
        # a UUID: the index devices of its UUID device (a spec named by index and UUID)
        "$RT_BIN/amd-ctk" --profile "$RT_PROFILES/$SEED.json" cdi generate --output "$CDI/amd.json" \
                --device-name-strategy index,uuid >/dev/null
        cp -a "$TEMPLATE/config.json" "$B/config.json"
        rt_spec_env "$B" "AMD_VISIBLE_DEVICES=0x6e32f10efc982b4c"
        create "$B" "$ID"
        [ "$status" -eq 0 ]
        grep -q 'CDI devices amd.com/gpu=2: added 3 device nodes' "$T/runtime.log"
        shim delete -f "$ID"
        # the same request in mode auto walks /sys, and this host has none
        config root "$T/host"
        cp -a "$TEMPLATE/config.json" "$B/config.json"
        rt_spec_env "$B" "AMD_VISIBLE_DEVICES=1"
        create "$B" "$ID"
        [ "$status" -eq 1 ]
        [[ "$output" == *"cannot provide the requested GPUs: amdgpu driver is not loaded"* ]]
}

@test "mode cdi on a live host: a repartition makes the spec stale and the create fails; cdi-refresh-on-stale regenerates it" {
        fakefs_require_fuse
        fakefs_mount "$PROFILES/mi300x-spx-x8.json"
        "$RT_BIN/amd-ctk" --root "$FAKEFS_MNT" cdi generate --output "$CDI/amd.json" >/dev/null
        config root "$FAKEFS_MNT" '{"mode": "cdi"}'
        rt_spec_env "$B" "AMD_VISIBLE_DEVICES=1"
        cp "$B/config.json" "$T/before.json"
        create "$B" "$ID"
        [ "$status" -eq 0 ]
        [ "$(jq -r '.linux.devices | map(.path) | join(" ")' "$B/config.json")" = "/dev/dri/card8 /dev/dri/renderD136 /dev/kfd" ]
        shim delete -f "$ID"

        # GPU 0 to CPX: 7 more partitions, each with a card and a render node
        bdf=$("$RT_BIN/amd-ctk" --root "$FAKEFS_MNT" gpu list --json | jq -r '.[0].pci')
        echo CPX >"$FAKEFS_MNT/sys/bus/pci/devices/$bdf/current_compute_partition"
        cp "$T/before.json" "$B/config.json"
        cp "$CDI/amd.json" "$T/spec-before.json"
        create "$B" "$ID"
        [ "$status" -eq 1 ]
        [[ "$output" == "amd-container-runtime: mode cdi: the CDI spec $CDI/amd.json does not match this host: /dev/dri/card"*" is on this host but not in the spec (and 13 more differences); run 'amd-ctk cdi generate --output $CDI/amd.json' (or set cdi-refresh-on-stale to regenerate it)" ]]
        cmp "$T/before.json" "$B/config.json"
        cmp "$T/spec-before.json" "$CDI/amd.json"

        # with the refresh: its lock's directory (state-dir) root's alone, or nothing is regenerated
        config root "$FAKEFS_MNT" '{"mode": "cdi", "cdi-refresh-on-stale": true}'
        mkdir -m 0770 "$T/state"
        create "$B" "$ID"
        [ "$status" -eq 1 ]
        [ "$output" = "amd-container-runtime: mode cdi: GPU Tracker state directory $T/state is not trusted: it is writable by its group (mode 0770): refused (chown root:root $T/state; chmod 0700 $T/state)" ]
        cmp "$T/spec-before.json" "$CDI/amd.json"
        chmod 0700 "$T/state"
        # regenerated under the lock, then applied (GPU 1 is GPU 0's 2nd partition now)
        create "$B" "$ID"
        [ "$status" -eq 0 ]
        [ "$(jq '.devices | length' "$CDI/amd.json")" -eq 16 ] # 15 partitions and GPUs, all
        [ "$(stat -c %a "$CDI/amd.json")" = 644 ]
        [ -e "$T/state/cdi-refresh.lock" ]
        run "$RT_BIN/amd-ctk" --root "$FAKEFS_MNT" cdi validate --path "$CDI/amd.json"
        [ "$status" -eq 0 ]
        [ "$(jq -r '.linux.devices | map(.path) | join(" ")' "$B/config.json")" = \
                "$(jq -r '.devices[] | select(.name == "1") | .containerEdits.deviceNodes | map(.path) | join(" ")' "$CDI/amd.json")" ]
        grep -q "mode cdi: the CDI spec $CDI/amd.json was regenerated; it was stale: /dev/dri/card" "$T/runtime.log"
        shim delete -f "$ID"
        # the regenerated spec is fresh: the next create does not touch it
        cp "$CDI/amd.json" "$T/spec-now.json"
        cp "$T/before.json" "$B/config.json"
        create "$B" "$ID"
        [ "$status" -eq 0 ]
        cmp "$T/spec-now.json" "$CDI/amd.json"
}

@test "GPU tracker: CDI names of our kind are tracked as GPU indices, other vendors' devices are not" {
        nic_spec
        config root "$SEED_HOST" "$NIC_KINDS"
        "$RT_BIN/amd-ctk" --config "$CFG" gpu-tracker enable >/dev/null
        "$RT_BIN/amd-ctk" --config "$CFG" gpu-tracker 1 exclusive >/dev/null
        rt_spec_env "$B" "AMD_VISIBLE_DEVICES=amd.com/gpu=1,example.com/nic=eth0"
        create "$B" "$ID"
        [ "$status" -eq 0 ]
        [ "$(jq -c '[.containers[] | .[0:2]]' "$T/state/gpu-tracker.json")" = "[[\"$ID\",[1]]]" ]
        # a second container asking for GPU 1 by index: refused, naming the holder
        cp -a "$TEMPLATE" "$T/b2"
        rt_spec_env "$T/b2" "AMD_VISIBLE_DEVICES=amd.com/gpu=all"
        create "$T/b2" "$ID-2"
        [ "$status" -eq 1 ]
        [[ "$output" == *"GPU 1 is exclusive and in use by container ${ID:0:12}"* ]]
        # the NIC alone is not tracked
        cp -a "$TEMPLATE" "$T/b3"
        rt_spec_env "$T/b3" "AMD_VISIBLE_DEVICES=example.com/nic=eth1"
        create "$T/b3" "$ID-3"
        [ "$status" -eq 0 ]
        [ "$(jq -r '[.containers[][0]] | join(" ")' "$T/state/gpu-tracker.json")" = "$ID" ]
}

@test "cdi list --all-vendors: every device of every vendor with its file, conflicts and skipped files" {
        nic_spec
        jq '.devices |= [.[-1]]' "$CDI/amd.json" >"$CDI/more.json"
        printf '{"cdiVersion": "0.5.0"}' >"$CDI/broken.json"
        run --separate-stderr "$RT_BIN/amd-ctk" cdi list --all-vendors --spec-dir "$CDI"
        [ "$status" -eq 0 ]
        [ -z "$stderr" ]
        [ "${lines[0]}" = "Found 6 CDI devices in $CDI" ]
        [ "${lines[1]}" = "amd.com/gpu=0 ($CDI/amd.json)" ]
        [ "${lines[4]}" = "amd.com/gpu=3 ($CDI/amd.json)" ]
        [ "${lines[5]}" = "example.com/nic=eth0 ($CDI/nic.yaml)" ]
        [ "${lines[6]}" = "example.com/nic=eth1 ($CDI/nic.yaml)" ]
        [ "${lines[7]}" = "conflicting device amd.com/gpu=all (specs $CDI/amd.json, $CDI/more.json): CDI runtimes will not use it" ]
        [ "${lines[8]}" = "skipped: $CDI/broken.json:1:1: missing required key \"kind\" (spec skipped: invalid, and more errors)" ]
        [ "${#lines[@]}" -eq 9 ]
        # the directories of the configuration by default
        run "$RT_BIN/amd-ctk" --config "$CFG" cdi list --all-vendors --json
        [ "$status" -eq 0 ]
        [ "$(jq -r '[.devices[] | "\(.name)@\(.spec)"] | join(" ")' <<<"$output")" = \
                "amd.com/gpu=0@$CDI/amd.json amd.com/gpu=1@$CDI/amd.json amd.com/gpu=2@$CDI/amd.json amd.com/gpu=3@$CDI/amd.json example.com/nic=eth0@$CDI/nic.yaml example.com/nic=eth1@$CDI/nic.yaml" ]
        [ "$(jq -r '.skipped[0].spec' <<<"$output")" = "$CDI/broken.json" ]
        [[ "$(jq -r '.skipped[0].error' <<<"$output")" == "$CDI/broken.json:1:1: missing required key"* ]]
        [ "$(jq -r '.conflicts[0].name' <<<"$output")" = "amd.com/gpu=all" ]
}
