#!/usr/bin/env bats
# containerd 1.7 (Debian 13's, sim/engines.sh) through its CRI plugin, as the
# kubelet drives it (helpers/cri-run.py: a pod sandbox on the node's network,
# one container in it), set up by the real `amd-ctk runtime configure
# --runtime containerd` (drop-in conf.d/99-amd.toml imported by Debian's
# config.toml):
#   * a RuntimeClass with handler `amd` -> our runtime -> AMD_VISIBLE_DEVICES;
#   * CDI devices (CRI CDIDevices, or cdi.k8s.io/ annotations) -> containerd's
#     own injection (enable_cdi from the drop-in) from our generated spec;
#   * --set-as-default -> our runtime for pods without a RuntimeClass.
# Every container's /dev/dri and /dev/kfd must be exactly what `amd-ctk gpu
# list --json` says the selection holds on the simulated host; dev-probe
# shows that the kernel lets the container open them and refuses the other
# GPUs' nodes.

bats_require_minimum_version 1.5.0

load helpers/common
load helpers/images
load helpers/engines
load helpers/cri

export BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-300}

setup_file() {
        engines_start --no-dockerd || return 1
        cri_start || {
                cri_stop
                engines_stop
                return 1
        }
}

teardown_file() {
        cri_stop
        engines_stop
}

ctk() { engines_in /ctk-build/bin/amd-ctk --root /ctk-host "$@"; }

# nodes CRI-RUN-ARGS...: the GPU nodes a container of a pod of its own sees
nodes() {
        cri_run "$@" -- sh -c "stat -c '$ENGINES_NODE_FORMAT' /dev/dri/* /dev/kfd 2>/dev/null | grep -v ' directory '" |
                sort
}

dump() { engines_in containerd config dump; }

@test "containerd 1.7: config.toml's own CRI settings stay in force beside the drop-in runtime configure wrote" {
        # what the drop-in adds...
        grep -q '^imports = \["/etc/containerd/conf.d/99-amd.toml"\]$' "$ENGINES_DIR/containerd/config.toml"
        run dump
        [ "$status" -eq 0 ]
        [[ "$output" == *"enable_cdi = true"* ]]
        [[ "$output" == *'BinaryName = "/ctk-build/bin/amd-container-runtime"'* ]]
        # ...and what was there before: Debian's CNI directory, this machine's
        # oom_score_adj limit, the runc runtime pods without a RuntimeClass use
        [[ "$output" == *'bin_dir = "/usr/lib/cni"'* ]]
        [[ "$output" == *"restrict_oom_score_adj = true"* ]]
        [[ "$output" == *'default_runtime_name = "runc"'* ]]
        [[ "$output" == *'[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]'* ]]
}

@test "containerd 1.7 CRI (seed host): runtime class amd + AMD_VISIBLE_DEVICES; the default handler has no GPU; GPU 9 refused" {
        engines_fakefs_mount "$PROFILES/seed-4xmi210.json"
        [ "$(nodes --runtime-handler amd --env AMD_VISIBLE_DEVICES=1)" = "$(engines_expected 1)" ]
        [ "$(nodes --runtime-handler amd --env AMD_VISIBLE_DEVICES=0,3)" = "$(engines_expected 0 3)" ]
        engines_hostdev "$PROFILES/seed-4xmi210.json"
        engines_proven 0 3 -- cri_run --runtime-handler amd --env AMD_VISIBLE_DEVICES=0,3 \
                --mount "$ENGINES_HOSTDEV_BIND=/host-dev" --
        # runc (the default handler) does not read the variable
        [ -z "$(nodes --env AMD_VISIBLE_DEVICES=1)" ]
        # the container's output and exit status come back through CRI
        run --separate-stderr cri_run --runtime-handler amd -- sh -c 'echo out; echo err >&2; exit 7'
        [ "$status" -eq 7 ]
        [ "$output" = out ]
        [ "$stderr" = err ]
        # our runtime's refusal reaches the kubelet as StartContainer's error
        run cri_run --runtime-handler amd --env AMD_VISIBLE_DEVICES=9 -- true
        [ "$status" -eq 125 ]
        [[ "$output" == "cri-run: StartContainer: "*"amd-container-runtime: AMD_VISIBLE_DEVICES: GPU 9 does not exist (this host has GPUs 0-3)"* ]]
}

@test "containerd 1.7 CRI + CDI (seed host): CDIDevices and the cdi.k8s.io annotation get GPU 2; an unknown name fails the create" {
        engines_fakefs_mount "$PROFILES/seed-4xmi210.json"
        ctk cdi generate >/dev/null
        [ "$(nodes --cdi-device amd.com/gpu=2)" = "$(engines_expected 2)" ]
        [ "$(nodes --annotation cdi.k8s.io/amd-gpu=amd.com/gpu=2)" = "$(engines_expected 2)" ]
        [ "$(nodes --cdi-device amd.com/gpu=0 --cdi-device amd.com/gpu=3)" = "$(engines_expected 0 3)" ]
        engines_hostdev "$PROFILES/seed-4xmi210.json"
        engines_proven 2 -- cri_run --cdi-device amd.com/gpu=2 --mount "$ENGINES_HOSTDEV_BIND=/host-dev" --
        run cri_run --cdi-device amd.com/gpu=9 -- true
        [ "$status" -eq 125 ]
        [[ "$output" == "cri-run: CreateContainer: "*"unresolvable CDI devices amd.com/gpu=9"* ]]
}

@test "containerd 1.7 CRI (63 partitions): runtime class amd with the last partition, CDI amd.com/gpu=all" {
        engines_fakefs_mount "$PROFILES/mi300x-cpx-x8.json"
        ctk cdi generate >/dev/null
        [ "$(nodes --runtime-handler amd --env AMD_VISIBLE_DEVICES=62)" = "$(engines_expected 62)" ]
        [ "$(nodes --cdi-device amd.com/gpu=all)" = "$(engines_expected $(seq 0 62))" ]
        [ "$(nodes --cdi-device amd.com/gpu=all | wc -l)" -eq 127 ]
}

@test "containerd 1.7 CRI: --set-as-default makes our runtime the default handler; runc stays reachable by name" {
        engines_fakefs_mount "$PROFILES/seed-4xmi210.json"
        engines_in /ctk-build/bin/amd-ctk runtime configure --runtime containerd --set-as-default \
                --runtime-path /ctk-build/bin/amd-container-runtime >/dev/null
        cri_containerd_restart
        [[ "$(dump)" == *'default_runtime_name = "amd"'* ]]
        [ "$(nodes --env AMD_VISIBLE_DEVICES=3)" = "$(engines_expected 3)" ]
        [ -z "$(nodes --runtime-handler runc --env AMD_VISIBLE_DEVICES=3)" ]
        # back to runc as the default
        engines_in /ctk-build/bin/amd-ctk runtime configure --runtime containerd \
                --runtime-path /ctk-build/bin/amd-container-runtime >/dev/null
        cri_containerd_restart
        [ -z "$(nodes --env AMD_VISIBLE_DEVICES=3)" ]
}
