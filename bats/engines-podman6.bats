#!/usr/bin/env bats
# Podman 6 and runc 1.4, from Debian experimental (sim/engines.sh's
# experimental root: sid with experimental's podman and runc), with the
# toolkit installed from `make deb` with dpkg.
#
# Podman 6 resolves --gpus through CDI: each comma-separated value is a
# device name of the vendor's spec (--gpus all -> amd.com/gpu=all, --gpus 2
# -> amd.com/gpu=2: GPU 2, not a count, --gpus 1,3 -> GPUs 1 and 3, a UUID
# -> amd.com/gpu=UUID with a spec generated with --device-name-strategy
# index,uuid).  Docker's grammar (device=1, count=2) is not Podman's: it
# asks for amd.com/gpu=device=1, which no spec has, and Podman refuses.
# Podman 6 runs on cgroup v2 only; runc 1.4 runs under our runtime on both
# layouts, but on this machine's cgroup v2 view (no controller but
# hugetlb) not with a pids limit, as Podman sets one by default.
#
# Every GPU container runs dev-probe with the simulated host's nodes bound
# in at /host-dev (engines_proven): the kernel lets it open its own nodes
# (ENXIO: no driver) and refuses every other GPU's (EPERM).

bats_require_minimum_version 1.5.0

load helpers/common
load helpers/images
load helpers/engines

export BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-600}

SEED=$PROFILES/seed-4xmi210.json
SEED_GPU3_UUID=0x12FE4F7FDAF06B9 # the GPU tracker document's GPU 3
BIND=(-v "$ENGINES_HOSTDEV_BIND:/host-dev")

teardown() { engines_stop; }

# start LAYOUT [OPTION...]: the experimental root on that cgroup layout with
# the package installed, the seed host, its nodes for /host-dev, the spec
# with index and UUID names; prints the versions to the TAP log
start() {
        local layout=$1
        shift
        engines_start --release experimental --cgroup "$layout" --deb "$@"
        echo "# $layout: $(engines_versions)" >&3
        engines_fakefs_mount "$SEED"
        engines_hostdev "$SEED"
        run engines_in amd-ctk cdi generate --device-name-strategy index,uuid
        [ "$status" -eq 0 ]
        [ "$output" = "Generated CDI spec: /etc/cdi/amd.json" ]
}

podman_image() {
        images_rootfs_tar "$ENGINES_DIR" >/dev/null &&
                engines_in podman import --change "ENV $IMAGE_PATH_ENV" --change 'CMD ["bash"]' /ctk/rootfs.tar \
                        rocm/rocm-terminal >/dev/null
}

# refused_by_podman GPUS [NAME]: podman run --gpus GPUS fails with Podman's
# own line naming the CDI device amd.com/gpu=NAME (default: GPUS)
refused_by_podman() {
        run engines_in podman run --rm --gpus "$1" rocm/rocm-terminal true
        printf '%s\n' "$output"
        [ "$status" -eq 126 ]
        [ "$output" = "Error: setting up CDI devices: unresolvable CDI devices amd.com/gpu=${2:-$1}" ]
}

# execs RUNTIME...: the low-level runtimes the runtime's creates exec'ed
# were RUNTIME..., in that order
execs() {
        run engines_in grep -o 'create [0-9a-f]*: exec /[^"]*' /var/log/amd-container-runtime.log
        printf '%s\n' "$output"
        [ "$(sed 's/.*: exec //' <<<"$output")" = "$(printf '%s\n' "$@")" ]
}

@test "Podman 6, cgroup v2: --gpus all, a name, names, a UUID and --device amd.com/gpu=N give exactly those GPUs; --gpus device=1 and count=2 are refused by Podman" {
        start v2 --no-dockerd
        podman_image
        engines_proven 0 1 2 3 -- engines_in podman run --rm --gpus all "${BIND[@]}" rocm/rocm-terminal
        # a value is a device name: GPU 2, not two GPUs
        engines_proven 2 -- engines_in podman run --rm --gpus 2 "${BIND[@]}" rocm/rocm-terminal
        engines_proven 1 3 -- engines_in podman run --rm --gpus 1,3 "${BIND[@]}" rocm/rocm-terminal
        engines_proven 3 -- engines_in podman run --rm --gpus "$SEED_GPU3_UUID" "${BIND[@]}" rocm/rocm-terminal
        engines_proven 0 2 -- engines_in podman run --rm --device amd.com/gpu=0 --device amd.com/gpu=2 "${BIND[@]}" \
                rocm/rocm-terminal
        # Docker's --gpus grammar is not Podman's
        refused_by_podman device=1
        refused_by_podman count=2
        refused_by_podman '"device=1,2"' device=1,2
        # nor is a GPU the host does not have a name of the spec
        refused_by_podman 4
}

@test "Podman 6, cgroup v2: --runtime amd over crun and over runc 1.4, proven by the kernel; runc 1.4 cannot set a pids limit on this machine's cgroup v2 view" {
        start v2 --no-dockerd
        podman_image
        run engines_in amd-ctk runtime configure --runtime=podman
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = "Wrote /etc/containers/containers.conf.d/99-amd.conf" ]
        engines_in sed -i -e 's|"runtime-path": null|"runtime-path": "crun"|' -e 's|"log-level": "info"|"log-level": "debug"|' \
                /etc/amd-container-toolkit/config.json
        engines_proven 0 3 -- engines_in podman --runtime amd run --rm -e AMD_VISIBLE_DEVICES=0,3 "${BIND[@]}" rocm/rocm-terminal
        execs /usr/bin/crun
        # runc 1.4, the runtime's default (the package's containers.conf has
        # pids_limit = 0, as a machine without the pids controller on cgroup2 needs)
        engines_in sed -i 's|"runtime-path": "crun"|"runtime-path": null|' /etc/amd-container-toolkit/config.json
        engines_proven 1 -- engines_in podman --runtime amd run --rm -e AMD_VISIBLE_DEVICES=1 "${BIND[@]}" rocm/rocm-terminal
        execs /usr/bin/crun /usr/sbin/runc
        # with Podman's default pids limit, runc 1.4 (alone, or under our
        # runtime) fails: it cannot write pids.max (Podman maps its exit
        # status to 127)
        run -127 engines_in podman --runtime runc run --rm --pids-limit 2048 rocm/rocm-terminal true
        printf '%s\n' "$output"
        [[ "$output" == *"error setting cgroup config for procHooks process: openat2 /sys/fs/cgroup/"*"/pids.max: no such file or directory"* ]]
        run -127 engines_in podman --runtime amd run --rm --pids-limit 2048 -e AMD_VISIBLE_DEVICES=1 rocm/rocm-terminal true
        printf '%s\n' "$output"
        execs /usr/bin/crun /usr/sbin/runc /usr/sbin/runc
}

@test "cgroup v1: runc 1.4 under our runtime (Docker --runtime=amd) and under Docker's CDI, proven by the kernel; Podman 6 refuses cgroup v1" {
        start v1
        run engines_in amd-ctk runtime configure --runtime=docker
        [ "$status" -eq 0 ]
        engines_in sed -i 's|"log-level": "info"|"log-level": "debug"|' /etc/amd-container-toolkit/config.json
        engines_dockerd_restart
        engines_proven 1 -- engines_in docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=1 "${BIND[@]}" rocm/rocm-terminal
        engines_proven 3 -- engines_in docker run --rm --runtime=amd -e "AMD_VISIBLE_DEVICES=$SEED_GPU3_UUID" "${BIND[@]}" \
                rocm/rocm-terminal
        execs /usr/sbin/runc /usr/sbin/runc
        engines_proven 2 -- engines_in docker run --rm --device amd.com/gpu=2 "${BIND[@]}" rocm/rocm-terminal
        run engines_in podman run --rm --device amd.com/gpu=2 rocm/rocm-terminal true
        printf '%s\n' "$output"
        [ "$status" -ne 0 ]
        [[ "$output" == *'msg="Cgroups v1 not supported"'* ]]
}
