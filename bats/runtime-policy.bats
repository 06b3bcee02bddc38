#!/usr/bin/env bats
# Who may have GPUs (the configuration's policy keys), through runc bundles
# driven by the runtime on the simulated seed host:
#   accept-visible-devices-envvar-when-unprivileged  the selection variables
#       of a container without CAP_SYS_ADMIN in its bounding set count or not
#   cdi-annotation-prefixes  which annotations request CDI devices
#   cdi-kinds                which kinds of CDI names the runtime resolves

bats_require_minimum_version 1.5.0

load helpers/common
load helpers/runtime_bundle
load helpers/fakefs
load helpers/runtime_cdi

export BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-180}

setup_file() { rt_cdi_setup_file; }
setup() { rt_cdi_setup; }
teardown() {
        rt_cdi_teardown
        [ -z "${UNS:-}" ] || rm -rf "$UNS"
}

IGNORED="AMD_VISIBLE_DEVICES and DOCKER_RESOURCE_* ignored: the container is unprivileged: CAP_SYS_ADMIN is not in its bounding set, and accept-visible-devices-envvar-when-unprivileged is false"
IGNORED_USERNS="AMD_VISIBLE_DEVICES and DOCKER_RESOURCE_* ignored: the container is unprivileged: user namespace (its CAP_SYS_ADMIN is not the host's), and accept-visible-devices-envvar-when-unprivileged is false"

# fresh BUNDLE-EDIT...: the template bundle again, with the jq edits given
fresh() {
        cp "$TEMPLATE/config.json" "$B/config.json"
        local e
        for e in "$@"; do rt_spec_edit "$B" "$e"; done
}
privileged='.process.capabilities.bounding += ["CAP_SYS_ADMIN"]'

# runs_without_gpus LINE: the container of $B runs with no GPU node, its
# spec unwritten, and the log says LINE once
runs_without_gpus() {
        cp "$B/config.json" "$T/before.json"
        : >"$T/runtime.log"
        run_container
        [ "$status" -eq 0 ]
        [[ "$output" == *"/dev/dri: No such file or directory"* ]]
        [[ "$output" == *"/dev/kfd: No such file or directory"* ]]
        cmp "$T/before.json" "$B/config.json" # nothing written
        [ "$(grep -cF "container $ID: $1" "$T/runtime.log")" -eq 1 ]
}

@test "unprivileged containers: the variables ignored with one log line when the key is false; privileged ones and annotations unaffected" {
        # the default: the variables count in any container (Docker's documented way)
        fresh '.process.env += ["AMD_VISIBLE_DEVICES=1"]'
        [ "$(jq -r '.process.capabilities.bounding | index("CAP_SYS_ADMIN")' "$B/config.json")" = null ]
        run_container
        [ "$status" -eq 0 ]
        [ "$(ls_nodes <<<"$output")" = "$(gpu1_nodes)" ]

        config root "$SEED_HOST" '{"accept-visible-devices-envvar-when-unprivileged": false}'
        for v in AMD_VISIBLE_DEVICES=1 AMD_VISIBLE_DEVICES=all DOCKER_RESOURCE_GPU=1 DOCKER_RESOURCE_AMD_GPU=gpu1 \
                AMD_VISIBLE_DEVICES=amd.com/gpu=1 AMD_VISIBLE_DEVICES=9; do
                fresh ".process.env += [\"$v\"]"
                runs_without_gpus "$IGNORED"
        done
        # a privileged container gets its GPUs
        fresh '.process.env += ["AMD_VISIBLE_DEVICES=1"]' "$privileged"
        : >"$T/runtime.log"
        run_container
        [ "$status" -eq 0 ]
        [ "$(ls_nodes <<<"$output")" = "$(gpu1_nodes)" ]
        ! grep -q "ignored" "$T/runtime.log"
        # annotations (a device plugin's) are not the variables
        fresh '.annotations = {"cdi.k8s.io/amd.gpu_1": "amd.com/gpu=1"}'
        run_container
        [ "$status" -eq 0 ]
        [ "$(ls_nodes <<<"$output")" = "$(gpu1_nodes)" ]
        # nothing asked for: nothing said
        fresh '.process.env += ["AMD_VISIBLE_DEVICES=void"]'
        : >"$T/runtime.log"
        run_container
        [ "$status" -eq 0 ]
        ! grep -q "ignored" "$T/runtime.log"
}

# a user namespace of the container's own: root and the first 65536 ids
# mapped from 200000 (podman --userns=auto, a pod with hostUsers: false)
userns='.linux.namespaces += [{"type": "user"}] | .linux.uidMappings = [{"containerID": 0, "hostID": 200000, "size": 65536}] | .linux.gidMappings = .linux.uidMappings'

@test "CAP_SYS_ADMIN in a user namespace of its own is not privileged: the variables ignored, the log says why" {
        # (a bundle its namespace's root, host uid 200000, can reach)
        UNS=$(mktemp -d /tmp/ctk-policy-userns.XXXXXX)
        chmod 755 "$UNS"
        cp -a "$TEMPLATE" "$UNS/template"
        TEMPLATE=$UNS/template
        B=$UNS/bundle
        cp -a "$TEMPLATE" "$B"
        config root "$SEED_HOST" '{"accept-visible-devices-envvar-when-unprivileged": false}'
        for v in AMD_VISIBLE_DEVICES=all AMD_VISIBLE_DEVICES=1 DOCKER_RESOURCE_GPU=1; do
                fresh ".process.env += [\"$v\"]" "$privileged" "$userns"
                runs_without_gpus "$IGNORED_USERNS"
        done
        # mappings alone (a user namespace runc makes from them) count the same
        fresh '.process.env += ["AMD_VISIBLE_DEVICES=1"]' "$privileged" "$userns" \
                '.linux.namespaces |= map(select(.type != "user"))'
        : >"$T/runtime.log"
        create "$B" "$ID"
        shim delete -f "$ID"
        grep -qF "container $ID: $IGNORED_USERNS" "$T/runtime.log"
        # the same container without its user namespace: privileged, its GPU given
        fresh '.process.env += ["AMD_VISIBLE_DEVICES=1"]' "$privileged"
        run_container
        [ "$status" -eq 0 ]
        [ "$(ls_nodes <<<"$output")" = "$(gpu1_nodes)" ]
        # by default the variables count in any container, a user namespace or not
        config root "$SEED_HOST"
        # (the spec's nodes: runc would bind-mount them from this host, which has none)
        fresh '.process.env += ["AMD_VISIBLE_DEVICES=1"]' "$userns"
        printf '#!/bin/sh\nexit 0\n' >"$T/low-level"
        chmod 755 "$T/low-level"
        config root "$SEED_HOST" "$(jq -n --arg rt "$T/low-level" '{"runtime-path": $rt}')"
        create "$B" "$ID"
        [ "$status" -eq 0 ]
        [ "$(jq -c '[.linux.devices[].path]' "$B/config.json")" = '["/dev/dri/card3","/dev/dri/renderD131","/dev/kfd"]' ]
}

@test "cdi-annotation-prefixes: the configured prefix requests devices, the others do not; [] turns annotations off" {
        config root "$SEED_HOST" '{"cdi-annotation-prefixes": ["gpus.example.com/"]}'
        fresh '.annotations = {"gpus.example.com/amd.gpu_1": "amd.com/gpu=1"}'
        run_container
        [ "$status" -eq 0 ]
        [ "$(ls_nodes <<<"$output")" = "$(gpu1_nodes)" ]
        grep -q "container $ID: CDI devices amd.com/gpu=1: added 3 device nodes" "$T/runtime.log"
        # CDI's own prefix is not one of them now
        fresh '.annotations = {"cdi.k8s.io/amd.gpu_1": "amd.com/gpu=1"}'
        cp "$B/config.json" "$T/before.json"
        run_container
        [ "$status" -eq 0 ]
        [[ "$output" == *"/dev/dri: No such file or directory"* ]]
        cmp "$T/before.json" "$B/config.json"
        # a bad name after the configured prefix: one line naming the annotation and the prefix
        fresh '.annotations = {"gpus.example.com/-x": "amd.com/gpu=1"}'
        run shim run --bundle "$B" "$ID"
        [ "$status" -eq 1 ]
        [[ "$output" == *"annotation \"gpus.example.com/-x\": after gpus.example.com/ comes a name of 1-63 letters"* ]]
        # none
        config root "$SEED_HOST" '{"cdi-annotation-prefixes": []}'
        for key in cdi.k8s.io/amd.gpu_1 gpus.example.com/amd.gpu_1; do
                fresh ".annotations = {\"$key\": \"amd.com/gpu=1\"}"
                cp "$B/config.json" "$T/before.json"
                run_container
                [ "$status" -eq 0 ]
                [[ "$output" == *"/dev/dri: No such file or directory"* ]]
                cmp "$T/before.json" "$B/config.json"
        done
        # the variables still count
        fresh '.process.env += ["AMD_VISIBLE_DEVICES=1"]'
        run_container
        [ "$status" -eq 0 ]
        [ "$(ls_nodes <<<"$output")" = "$(gpu1_nodes)" ]
}

# nvidia_spec: NVIDIA's devices and a hook (a harmless program here), as its
# toolkit would write them, in $CDI
nvidia_spec() {
        printf '%s\n' '{"cdiVersion": "0.5.0", "kind": "nvidia.com/gpu", "devices": [{"name": "all",' \
                '"containerEdits": {"env": ["NVIDIA_VISIBLE_DEVICES=void"], "hooks": [{"hookName": "createContainer",' \
                '"path": "/bin/true", "args": ["nvidia-cdi-hook", "update-ldcache"]}]}}]}' \
                >"$CDI/nvidia.json"
}

@test "cdi-kinds: another vendor's names are refused by default, naming the key, from the variable and annotations; \"*\" accepts any" {
        nvidia_spec
        nic_spec
        for edit in '.process.env += ["AMD_VISIBLE_DEVICES=nvidia.com/gpu=all"]' \
                '.process.env += ["AMD_VISIBLE_DEVICES=0,nvidia.com/gpu=all"]' \
                '.annotations = {"cdi.k8s.io/nvidia.com_gpu": "nvidia.com/gpu=all"}'; do
                fresh "$edit"
                cp "$B/config.json" "$T/before.json"
                run --separate-stderr shim run --bundle "$B" "$ID"
                [ "$status" -eq 1 ]
                [ "${#stderr_lines[@]}" -eq 1 ]
                [[ "$stderr" == "amd-container-runtime: "*"'nvidia.com/gpu=all' is a CDI device of kind nvidia.com/gpu, which this runtime does not resolve (config key cdi-kinds: amd.com/gpu); add the kind to cdi-kinds, or [\"*\"] for any kind" ]]
                cmp "$T/before.json" "$B/config.json"
        done
        [[ "$stderr" == "amd-container-runtime: annotation cdi.k8s.io/nvidia.com_gpu: "* ]]
        fresh '.process.env += ["AMD_VISIBLE_DEVICES=nvidia.com/gpu=all"]'
        run --separate-stderr shim run --bundle "$B" "$ID"
        [ "$stderr" = "amd-container-runtime: AMD_VISIBLE_DEVICES: 'nvidia.com/gpu=all' is a CDI device of kind nvidia.com/gpu, which this runtime does not resolve (config key cdi-kinds: amd.com/gpu); add the kind to cdi-kinds, or [\"*\"] for any kind" ]
        # mode cdi refuses them too (plain tokens become our own names, which stay ours)
        config root "$SEED_HOST" '{"mode": "cdi"}'
        fresh '.process.env += ["AMD_VISIBLE_DEVICES=1,example.com/nic=eth0"]'
        run shim run --bundle "$B" "$ID"
        [ "$status" -eq 1 ]
        [[ "$output" == *"AMD_VISIBLE_DEVICES: 'example.com/nic=eth0' is a CDI device of kind example.com/nic, which this runtime does not resolve (config key cdi-kinds: amd.com/gpu)"* ]]
        # "*": every vendor, as before the key
        config root "$SEED_HOST" '{"cdi-kinds": ["*"]}'
        fresh '.process.env += ["AMD_VISIBLE_DEVICES=1,example.com/nic=eth0,nvidia.com/gpu=all"]'
        create "$B" "$ID"
        [ "$status" -eq 0 ]
        [ "$(jq -r '.hooks.createContainer[0].args[0]' "$B/config.json")" = nvidia-cdi-hook ]
        [ "$(jq -r '.process.env | map(select(startswith("NIC="))) | join(" ")' "$B/config.json")" = NIC=eth0 ]
        shim delete -f "$ID"
        # a list of kinds: those only
        config root "$SEED_HOST" "$NIC_KINDS"
        fresh '.process.env += ["AMD_VISIBLE_DEVICES=1,example.com/nic=eth0"]'
        run_container
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = "NIC=eth0 NIC_DRIVER=fast" ]
        fresh '.process.env += ["AMD_VISIBLE_DEVICES=nvidia.com/gpu=all"]'
        run shim run --bundle "$B" "$ID"
        [ "$status" -eq 1 ]
        [[ "$output" == *"(config key cdi-kinds: amd.com/gpu, example.com/nic)"* ]]
}
