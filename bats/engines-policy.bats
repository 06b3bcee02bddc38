#!/usr/bin/env bats
# Who may have GPUs, through real engines (Debian 13's dockerd 26 and podman
# 5, our runtime as their `amd` runtime, the seed host served over FUSE)
# with accept-visible-devices-envvar-when-unprivileged false, as a shared
# node would set it:
#   * podman --userns=auto --cap-add SYS_ADMIN: CAP_SYS_ADMIN in a user
#     namespace of the container's own is not the host's; the variable is
#     ignored, and the log says why (the same container without its user
#     namespace is privileged and gets its GPU);
#   * docker --annotation cdi.k8s.io/...: annotations are not the variables
#     (what docs/configuration.md says next to the key): any user of the
#     engine gets the devices that way, until cdi-annotation-prefixes is [].

bats_require_minimum_version 1.5.0

load helpers/common
load helpers/images
load helpers/engines
load helpers/rootless

export BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-300}

setup_file() {
        engines_start
        engines_fakefs_mount "$PROFILES/seed-4xmi210.json"
        engines_in /ctk-build/bin/amd-ctk --root /ctk-host cdi generate >/dev/null
        engines_in /ctk-build/bin/amd-ctk runtime configure --runtime=docker --config-path /ctk/daemon.json \
                --runtime-path /ctk-build/bin/amd-container-runtime >/dev/null
        engines_dockerd_restart
        engines_in /ctk-build/bin/amd-ctk runtime configure --runtime podman \
                --runtime-path /ctk-build/bin/amd-container-runtime >/dev/null
        engines_podman import --change "ENV $IMAGE_PATH_ENV" /ctk/rootfs.tar localhost/busybox >/dev/null
        # podman --userns=auto takes its ids from the user "containers"' ranges
        engines_in sh -c 'echo containers:2147483647:65536 >>/etc/subuid && echo containers:2147483647:65536 >>/etc/subgid'
        # (the kernel makes no user namespace from a chroot: Podman runs in
        # the pivot_root view of helpers/rootless.bash, as root)
        engines_hostdev "$PROFILES/seed-4xmi210.json"
        rootless_start
}

teardown_file() {
        rootless_stop
        engines_stop
}

# podman as root in the pivot_root view, on the storage engines_podman uses, runtime amd
view_podman() {
        rootless_root env PODMAN_IGNORE_CGROUPSV1_WARNING=1 podman --root /ctk/podman/root --runroot /run/podman \
                --runtime amd --cgroup-manager cgroupfs --events-backend file --storage-driver vfs "$@"
}

teardown() {
        local ids
        ids=$(engines_docker ps -aq 2>/dev/null) || ids=
        # shellcheck disable=SC2086
        [ -z "$ids" ] || engines_docker rm -f $ids >/dev/null 2>&1 || true
        engines_podman rm -af >/dev/null 2>&1 || true
}

# toolkit JSON: the runtime's configuration inside the root, with JSON's members
toolkit() {
        jq -n --argjson more "$1" '{"root": "/ctk-host", "state-dir": "/ctk/state", "log-file": "/ctk/runtime.log",
                "runtime-path": "runc"} + $more' >"$ENGINES_DIR/toolkit/config.json"
        : >"$ENGINES_DIR/runtime.log"
}

NODES='stat -c "%n %t:%T" /dev/dri/* /dev/kfd 2>/dev/null | grep -v " 0:0$" | sort; true'

# the nodes of the GPUs given, as NODES prints them (GPU 1: card3 226:3, renderD131 226:131, kfd 235:0)
gpu1='/dev/dri/card3 e2:3
/dev/dri/renderD131 e2:83
/dev/kfd eb:0'

@test "podman --userns=auto --cap-add SYS_ADMIN: not privileged; the variable ignored, the log says why (without --userns: its GPU)" {
        toolkit '{"accept-visible-devices-envvar-when-unprivileged": false}'
        run view_podman run --rm --network none --userns=auto --cap-add SYS_ADMIN \
                -e AMD_VISIBLE_DEVICES=all localhost/busybox sh -c "$NODES"
        echo "$output"
        [ "$status" -eq 0 ]
        [ -z "$output" ]
        grep -q 'AMD_VISIBLE_DEVICES and DOCKER_RESOURCE_\* ignored: the container is unprivileged: user namespace' \
                "$ENGINES_DIR/runtime.log"
        # the same container without a user namespace of its own: privileged on the host
        : >"$ENGINES_DIR/runtime.log"
        run view_podman run --rm --network none --cap-add SYS_ADMIN -e AMD_VISIBLE_DEVICES=1 \
                localhost/busybox sh -c "$NODES"
        echo "$output"
        [ "$status" -eq 0 ]
        [ "$output" = "$gpu1" ]
        ! grep -q ignored "$ENGINES_DIR/runtime.log"
}

@test "docker --annotation cdi.k8s.io/...: served with the env key false (annotations are not the variables); cdi-annotation-prefixes [] closes that road" {
        toolkit '{"accept-visible-devices-envvar-when-unprivileged": false}'
        # the variable: ignored in this unprivileged container
        run engines_docker run --rm --network none --runtime=amd -e AMD_VISIBLE_DEVICES=1 busybox sh -c "$NODES"
        [ "$status" -eq 0 ]
        [ -z "$output" ]
        # an annotation any user of the engine may set: served
        run engines_docker run --rm --network none --runtime=amd --annotation cdi.k8s.io/gpu=amd.com/gpu=1 busybox \
                sh -c "$NODES"
        echo "$output"
        [ "$status" -eq 0 ]
        [ "$output" = "$gpu1" ]
        # closed
        toolkit '{"accept-visible-devices-envvar-when-unprivileged": false, "cdi-annotation-prefixes": []}'
        run engines_docker run --rm --network none --runtime=amd --annotation cdi.k8s.io/gpu=amd.com/gpu=1 busybox \
                sh -c "$NODES"
        [ "$status" -eq 0 ]
        [ -z "$output" ]
}
