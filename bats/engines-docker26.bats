#!/usr/bin/env bats
# Today's engines (Debian 13's packages, sim/engines.sh): dockerd 26 with CDI
# (`features.cdi`, as `amd-ctk runtime configure --cdi` sets it), dockerd 26
# with our runtime, podman 5 with CDI and containerd 1.7's ctr with our
# runtime as its runc binary, on simulated hosts served over FUSE.  Every
# container's /dev/dri and /dev/kfd (name, type, major:minor, mode, owner,
# group) must be exactly what `amd-ctk gpu list --json` says the selection
# holds on that host; for one selection per road, dev-probe shows that the
# kernel lets the container open those nodes and refuses the other GPUs'.

bats_require_minimum_version 1.5.0

load helpers/common
load helpers/images
load helpers/engines

export BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-300}

setup_file() { engines_start; }

teardown_file() { engines_stop; }

teardown() {
        local ids
        ids=$(engines_docker ps -aq 2>/dev/null) || ids=
        # shellcheck disable=SC2086
        [ -z "$ids" ] || engines_docker rm -f $ids >/dev/null 2>&1 || true
}

ctk() { engines_in /ctk-build/bin/amd-ctk --root /ctk-host "$@"; }
NODE_FORMAT=$ENGINES_NODE_FORMAT
expected() { engines_expected "$@"; }

# docker_nodes DOCKER-RUN-ARGS...: the GPU nodes a container sees
docker_nodes() {
        engines_docker run --rm --network none "$@" busybox \
                sh -c "stat -c '$NODE_FORMAT' /dev/dri/* /dev/kfd 2>/dev/null | grep -v ' directory '" | sort
}


@test "docker 26 + CDI (seed host): every index, all, two --device flags, a UUID name" {
        engines_fakefs_mount "$PROFILES/seed-4xmi210.json"
        ctk cdi generate --device-name-strategy index,uuid >/dev/null
        for i in 0 1 2 3; do
                [ "$(docker_nodes --device "amd.com/gpu=$i")" = "$(expected "$i")" ]
        done
        [ "$(docker_nodes --device amd.com/gpu=all)" = "$(expected 0 1 2 3)" ]
        [ "$(docker_nodes --device amd.com/gpu=0 --device amd.com/gpu=2)" = "$(expected 0 2)" ]
        [ "$(docker_nodes --device amd.com/gpu=0x89CAA15875FF5A43)" = "$(expected 1)" ]
        # the kernel lets the container open GPUs 0 and 2 and refuses 1 and 3
        engines_hostdev "$PROFILES/seed-4xmi210.json"
        engines_proven 0 2 -- engines_docker run --rm --network none --device amd.com/gpu=0 --device amd.com/gpu=2 \
                -v "$ENGINES_HOSTDEV_BIND:/host-dev" busybox
        # a device name the spec does not have: docker refuses the container
        run engines_docker run --rm --network none --device amd.com/gpu=9 busybox true
        [ "$status" -ne 0 ]
        [[ "$output" == *"unresolvable CDI devices amd.com/gpu=9"* ]]
}

@test "docker 26 + CDI (63 partitions): first, last, all" {
        engines_fakefs_mount "$PROFILES/mi300x-cpx-x8.json"
        ctk cdi generate >/dev/null
        [ "$(docker_nodes --device amd.com/gpu=0)" = "$(expected 0)" ]
        [ "$(docker_nodes --device amd.com/gpu=62)" = "$(expected 62)" ]
        [ "$(docker_nodes --device amd.com/gpu=all)" = "$(expected $(seq 0 62))" ]
        [ "$(docker_nodes --device amd.com/gpu=all | wc -l)" -eq 127 ]
}

@test "docker 26 + CDI: a spec whose device name changed stops resolving the old name" {
        engines_fakefs_mount "$PROFILES/seed-4xmi210.json"
        ctk cdi generate >/dev/null
        [ "$(docker_nodes --device amd.com/gpu=1)" = "$(expected 1)" ]
        jq '.devices[1].name = "one"' "$ENGINES_DIR/cdi/amd.json" >"$ENGINES_DIR/cdi/amd.json.new"
        mv "$ENGINES_DIR/cdi/amd.json.new" "$ENGINES_DIR/cdi/amd.json"
        run engines_docker run --rm --network none --device amd.com/gpu=1 busybox true
        [ "$status" -ne 0 ]
        [[ "$output" == *"unresolvable CDI devices amd.com/gpu=1"* ]]
        [ "$(docker_nodes --device amd.com/gpu=one)" = "$(expected 1)" ]
}

@test "docker 26 + our runtime: the seccomp NUMA rule opens the memory-policy calls to GPU containers only" {
        engines_fakefs_mount "$PROFILES/seed-4xmi210.json"
        engines_in /ctk-build/bin/amd-ctk runtime configure --runtime=docker --cdi --config-path /ctk/daemon.json \
                --runtime-path /ctk-build/bin/amd-container-runtime >/dev/null
        engines_dockerd_restart
        probe() { engines_docker run --rm --network none "$@" busybox numa-probe get_mempolicy set_mempolicy mbind unshare mount; }
        # a GPU container under Docker 26's default profile: the NUMA calls work, the rest stays denied
        run probe --runtime=amd -e AMD_VISIBLE_DEVICES=1
        [ "$status" -eq 0 ]
        [ "$output" = "$(printf 'get_mempolicy: ok\nset_mempolicy: ok\nmbind: ok\nunshare: EPERM\nmount: EPERM')" ]
        # without GPUs, and with plain runc: Docker's profile as it is
        for args in "--runtime=amd" "--runtime=runc -e AMD_VISIBLE_DEVICES=1"; do
                run probe $args
                [ "$status" -eq 0 ]
                [[ "$output" == "get_mempolicy: EPERM"*"mbind: EPERM"* ]]
        done
}

@test "docker 26 + CDI: a repartition makes the spec stale, cdi validate says so, regenerating brings the new nodes" {
        engines_fakefs_mount "$PROFILES/mi300x-spx-x8.json"
        ctk cdi generate >/dev/null
        [ "$(docker_nodes --device amd.com/gpu=all | wc -l)" -eq 17 ]
        bdf=$(ctk gpu list --json | jq -r '.[0].pci')
        engines_in sh -c "echo CPX >/ctk-host/sys/bus/pci/devices/$bdf/current_compute_partition"
        run ctk cdi validate
        [ "$status" -eq 1 ]
        [[ "$output" == *"device 8 is on this host"*"but not in the spec"* ]]
        [ "${lines[-1]}" = "Please regenerate CDI spec" ]
        ctk cdi generate >/dev/null
        ctk cdi validate >/dev/null
        [ "$(docker_nodes --device amd.com/gpu=all | wc -l)" -eq 31 ]
        [ "$(docker_nodes --device amd.com/gpu=14)" = "$(expected 14)" ]
}

@test "docker 26 + our runtime: AMD_VISIBLE_DEVICES, a GPU that does not exist, the tracker's exclusive refusal" {
        engines_fakefs_mount "$PROFILES/seed-4xmi210.json"
        engines_in /ctk-build/bin/amd-ctk runtime configure --runtime=docker --cdi --config-path /ctk/daemon.json \
                --runtime-path /ctk-build/bin/amd-container-runtime >/dev/null
        jq -e '.runtimes.amd.path == "/ctk-build/bin/amd-container-runtime" and .features.cdi == true' \
                "$ENGINES_DIR/daemon.json" >/dev/null
        engines_dockerd_restart
        [ "$(docker_nodes --runtime=amd -e AMD_VISIBLE_DEVICES=1)" = "$(expected 1)" ]
        [ "$(docker_nodes --runtime=amd -e AMD_VISIBLE_DEVICES=0,2-3)" = "$(expected 0 2 3)" ]
        engines_hostdev "$PROFILES/seed-4xmi210.json"
        engines_proven 1 -- engines_docker run --rm --network none --runtime=amd -e AMD_VISIBLE_DEVICES=1 \
                -v "$ENGINES_HOSTDEV_BIND:/host-dev" busybox
        run engines_docker run --rm --network none --runtime=amd -e AMD_VISIBLE_DEVICES=9 busybox true
        [ "$status" -ne 0 ]
        [[ "$output" == *"amd-container-runtime: AMD_VISIBLE_DEVICES: GPU 9 does not exist (this host has GPUs 0-3)"* ]]
        engines_in /ctk-build/bin/amd-ctk gpu-tracker enable >/dev/null
        engines_in /ctk-build/bin/amd-ctk gpu-tracker 1-3 exclusive >/dev/null
        id=$(engines_docker run -d --network none --runtime=amd -e AMD_VISIBLE_DEVICES=1 rocm/rocm-terminal sleep 600)
        run engines_docker run --rm --network none --runtime=amd -e AMD_VISIBLE_DEVICES=0-2 busybox true
        [ "$status" -ne 0 ]
        [[ "$output" == *"GPU 1 is exclusive and in use by container ${id:0:12}"* ]]
        engines_docker rm -f "$id" >/dev/null
        [ "$(docker_nodes --runtime=amd -e AMD_VISIBLE_DEVICES=0-2)" = "$(expected 0 1 2)" ]
        engines_in /ctk-build/bin/amd-ctk gpu-tracker disable >/dev/null
}

# pnodes [--runtime NAME] PODMAN-RUN-ARGS...: the GPU nodes a podman 5 container sees
pnodes() {
        local rt=()
        if [ "$1" = --runtime ]; then
                rt=(--runtime "$2")
                shift 2
        fi
        engines_podman image exists localhost/busybox ||
                engines_podman import --change "ENV $IMAGE_PATH_ENV" /ctk/rootfs.tar localhost/busybox >/dev/null
        engines_podman "${rt[@]}" run --rm --network none "$@" localhost/busybox \
                sh -c "stat -c '$NODE_FORMAT' /dev/dri/* /dev/kfd 2>/dev/null | grep -v ' directory '" | sort
}

# (compose 2.26, Debian 13's, insists on a capabilities key beside driver:
# cdi, and so does sid's 2.40: engines-gpus.bats)
@test "docker compose (2.26) with Docker 26: the upstream file's CDI device reservation" {
        engines_fakefs_mount "$PROFILES/seed-4xmi210.json"
        ctk cdi generate >/dev/null
        mkdir -p "$ENGINES_DIR/compose"
        cat >"$ENGINES_DIR/compose/compose.yaml" <<YAML
services:
  rocm:
    image: busybox
    network_mode: none
    command: sh -c "stat -c '$NODE_FORMAT' /dev/dri/* /dev/kfd 2>/dev/null | grep -v ' directory '"
    deploy:
      resources:
        reservations:
          devices:
            - driver: cdi
              device_ids: ["amd.com/gpu=all"]
              capabilities: [gpu]
YAML
        run engines_in docker -H unix:///ctk/d.sock compose --project-directory /ctk/compose -f /ctk/compose/compose.yaml \
                run --rm rocm
        echo "$output"
        [ "$status" -eq 0 ]
        [ "$(printf '%s\n' "${lines[@]}" | grep '^/dev/' | sort)" = "$(expected 0 1 2 3)" ]
        engines_in docker -H unix:///ctk/d.sock compose --project-directory /ctk/compose -f /ctk/compose/compose.yaml \
                down >/dev/null 2>&1 || true
}

@test "docker 26: --gpus on an AMD host is refused (no --gpus driver for AMD before Docker 28.3)" {
        run engines_docker run --rm --gpus all busybox true
        printf '%s\n' "$output"
        [ "$status" -ne 0 ]
        [[ "$output" == *'could not select device driver "" with capabilities: [[gpu]]'* ]]
}

@test "podman 5 + CDI: one device, two devices, all" {
        engines_fakefs_mount "$PROFILES/seed-4xmi210.json"
        ctk cdi generate >/dev/null
        [ "$(pnodes --device amd.com/gpu=1)" = "$(expected 1)" ]
        [ "$(pnodes --device amd.com/gpu=0 --device amd.com/gpu=3)" = "$(expected 0 3)" ]
        [ "$(pnodes --device amd.com/gpu=all)" = "$(expected 0 1 2 3)" ]
        engines_hostdev "$PROFILES/seed-4xmi210.json"
        engines_proven 3 -- engines_podman run --rm --network none --device amd.com/gpu=3 \
                -v "$ENGINES_HOSTDEV_BIND:/host-dev" localhost/busybox
        # a spec whose device name changed no longer resolves the old name
        jq '.devices[2].name = "two"' "$ENGINES_DIR/cdi/amd.json" >"$ENGINES_DIR/cdi/amd.json.new"
        mv "$ENGINES_DIR/cdi/amd.json.new" "$ENGINES_DIR/cdi/amd.json"
        run engines_podman run --rm --network none --device amd.com/gpu=2 localhost/busybox true
        [ "$status" -ne 0 ]
        [[ "$output" == *"amd.com/gpu=2"* ]]
        [ "$(pnodes --device amd.com/gpu=two)" = "$(expected 2)" ]
}

@test "podman 5 + our runtime through the drop-in runtime configure writes: --runtime amd -e AMD_VISIBLE_DEVICES" {
        engines_fakefs_mount "$PROFILES/seed-4xmi210.json"
        # a drop-in naming the runtime without a path, as amd-ctk before this version wrote it:
        # Podman takes the entry for a file path
        printf '[engine.runtimes]\n"amd" = ["amd-container-runtime"]\n' >"$ENGINES_DIR/containers.conf.d/99-amd.conf"
        pnodes >/dev/null # (the image)
        run engines_podman --runtime amd run --rm --network none localhost/busybox true
        printf '%s\n' "$output"
        [ "$status" -ne 0 ]
        [[ "$output" == *'Error: default OCI runtime "amd" not found: invalid argument'* ]]
        rm "$ENGINES_DIR/containers.conf.d/99-amd.conf"
        run engines_in /ctk-build/bin/amd-ctk runtime configure --runtime podman \
                --runtime-path /ctk-build/bin/amd-container-runtime
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = "Wrote /etc/containers/containers.conf.d/99-amd.conf" ]
        [ "$(pnodes --runtime amd -e AMD_VISIBLE_DEVICES=1)" = "$(expected 1)" ]
        [ "$(pnodes --runtime amd -e AMD_VISIBLE_DEVICES=all)" = "$(expected 0 1 2 3)" ]
        engines_in /ctk-build/bin/amd-ctk runtime configure --runtime podman --remove >/dev/null
        [ ! -e "$ENGINES_DIR/containers.conf.d/99-amd.conf" ]
}

@test "containerd 1.7: ctr run with our runtime as the runc binary and AMD_VISIBLE_DEVICES" {
        engines_fakefs_mount "$PROFILES/seed-4xmi210.json"
        engines_docker save busybox -o /ctk/busybox-image.tar
        ctr() { engines_in ctr --address /run/docker/containerd/containerd.sock --namespace ctk-test "$@"; }
        ctr images import --base-name docker.io/library/busybox /ctk/busybox-image.tar >/dev/null
        image=$(ctr images ls -q | grep busybox | head -n 1)
        [ -n "$image" ]
        run ctr run --rm --runc-binary /ctk-build/bin/amd-container-runtime --env AMD_VISIBLE_DEVICES=2 "$image" ctk-ctr-1 \
                sh -c "stat -c '$NODE_FORMAT' /dev/dri/* /dev/kfd 2>/dev/null | grep -v ' directory '"
        [ "$status" -eq 0 ]
        [ "$(printf '%s\n' "${lines[@]}" | sort)" = "$(expected 2)" ]
        engines_hostdev "$PROFILES/seed-4xmi210.json"
        engines_proven 2 -- ctr run --rm --runc-binary /ctk-build/bin/amd-container-runtime --env AMD_VISIBLE_DEVICES=2 \
                --mount "type=bind,src=$ENGINES_HOSTDEV_BIND,dst=/host-dev,options=rbind:ro" "$image" ctk-ctr-3
        # without the variable: plain runc, no GPU node
        run ctr run --rm --runc-binary /ctk-build/bin/amd-container-runtime "$image" ctk-ctr-2 sh -c 'ls /dev/dri /dev/kfd'
        [ "$status" -ne 0 ]
}
