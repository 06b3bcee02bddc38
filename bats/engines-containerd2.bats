#!/usr/bin/env bats
# containerd 2.x (Debian sid's, sim/engines.sh sid) set up as a user does:
# the package installed with dpkg -i, `containerd config default` (schema
# 3) as /etc/containerd/config.toml, `amd-ctk runtime configure
# --runtime=containerd` as typed, containerd started; then on both cgroup
# layouts:
#   * pods through the CRI API as the kubelet runs them (helpers/cri-run.py):
#     runtime handler `amd` with AMD_VISIBLE_DEVICES, and CDIDevices that
#     containerd resolves itself from the generated spec (on cgroup v1: a pod
#     sandbox always gets CPU shares, and this machine's cgroup2 hierarchy
#     offers no cpu controller);
#   * `ctr run --device amd.com/gpu=N` (ctr 2.x reads CDI specs) and the
#     README's `ctr run --runc-binary /usr/bin/amd-container-runtime` (on
#     cgroup v2 with --cpu-shares 0: the cpu controller is not on cgroup2
#     here).
# Every container has the simulated host's nodes at /host-dev and runs
# dev-probe: its own nodes open (ENXIO), every other GPU's node is refused
# (EPERM), beside the node list.

bats_require_minimum_version 1.5.0

load helpers/common
load helpers/images
load helpers/engines
load helpers/cri

export BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-1200} # a hang detector: one root, many containers, on a loaded machine

teardown() {
        cri_stop
        engines_stop
}

SEED=$PROFILES/seed-4xmi210.json
MOUNT=(--mount "$ENGINES_HOSTDEV_BIND=/host-dev")
IMAGE=docker.io/rocm/rocm-terminal:latest

start() {
        engines_start --release sid --cgroup "$1" --deb --no-dockerd
        echo "# sid $1: $(engines_versions)" >&3
        engines_fakefs_mount "$SEED"
        engines_hostdev "$SEED"
        engines_in amd-ctk cdi generate >/dev/null
        cri_start --default-config
}

# ctr_run OPTION... -- COMMAND...: ctr run of the image with the host's
# nodes at /host-dev (a container name of its own each time).  On cgroup v2
# with --cpu-shares 0: ctr asks for 1024 CPU shares by default, and this
# machine's cgroup2 hierarchy has no cpu controller (as podman gets
# pids_limit 0 for want of the pids one).
ctr_run() {
        local opts=()
        [ "$ENGINES_CGROUP" != v2 ] || opts=(--cpu-shares 0)
        while [ "$1" != -- ]; do
                opts+=("$1")
                shift
        done
        shift
        engines_in ctr run --rm --mount "type=bind,src=$ENGINES_HOSTDEV_BIND,dst=/host-dev,options=rbind:ro" \
                "${opts[@]}" "$IMAGE" "ctk-$$-$RANDOM" "$@"
}

containerd2() {
        # the drop-in is schema 3, containerd took it: the amd runtime, CDI
        run engines_in containerd config dump
        [ "$status" -eq 0 ]
        [[ "$output" == *"[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.amd.options]"* ]]
        [[ "$output" == *"BinaryName = 'amd-container-runtime'"* ]]
        [[ "$output" == *"enable_cdi = true"* ]]
        engines_in grep -q '^version = 3$' /etc/containerd/conf.d/99-amd.toml
        # CRI: handler amd and AMD_VISIBLE_DEVICES; CDIDevices; the default handler gives nothing
        if [ "$ENGINES_CGROUP" = v1 ]; then
                engines_proven 1 -- cri_run --runtime-handler amd --env AMD_VISIBLE_DEVICES=1 --image "$IMAGE" "${MOUNT[@]}" --
                engines_proven 2 -- cri_run --cdi-device amd.com/gpu=2 --image "$IMAGE" "${MOUNT[@]}" --
                engines_proven -- cri_run --env AMD_VISIBLE_DEVICES=1 --image "$IMAGE" "${MOUNT[@]}" --
        else
                # a pod sandbox always gets CPU shares (cpu.weight), and this
                # machine's cgroup2 hierarchy has no cpu controller (the v1
                # hierarchies hold it): pods need a host whose controllers
                # are on cgroup2
                run cri_run --runtime-handler amd --env AMD_VISIBLE_DEVICES=1 --image "$IMAGE" -- true
                [ "$status" -eq 125 ]
                [[ "$output" == "cri-run: RunPodSandbox: "*"cpu.weight: no such file or directory"* ]]
                echo "# (CRI pods on this machine's cgroup2 view: refused for want of the cpu controller)" >&3
        fi
        # ctr: CDI names, and our runtime as the runc binary
        engines_proven 3 -- ctr_run --device amd.com/gpu=3 --
        engines_proven 0 -- ctr_run --runc-binary /usr/bin/amd-container-runtime --env AMD_VISIBLE_DEVICES=0 --
}

@test "containerd 2 (sid), cgroup v2: default config + runtime configure; CRI handler amd and CDIDevices, ctr --device and --runc-binary, proven by the kernel" {
        start v2
        containerd2
}

@test "containerd 2 (sid), cgroup v1: default config + runtime configure; CRI handler amd and CDIDevices, ctr --device and --runc-binary, proven by the kernel" {
        start v1
        containerd2
}
