#!/usr/bin/env bats
# The toolkit as a user installs and configures it, on every engine root
# (Debian 12, Debian 13, sid: sim/engines.sh) and on both cgroup layouts (v1;
# v2, where runc and crun enforce device access with eBPF programs): the
# package `make deb` built installed with dpkg -i into the root, then the
# README's commands as typed: `amd-ctk cdi generate`, `amd-ctk runtime
# configure --runtime=docker` (with `--cdi` where the Docker needs it),
# dockerd started, `docker run --runtime=amd -e AMD_VISIBLE_DEVICES=...` and
# `docker run --device amd.com/gpu=...`, `amd-ctk runtime configure
# --runtime=podman`, `podman --runtime amd run -e AMD_VISIBLE_DEVICES=...`
# and `podman run --device amd.com/gpu=...` (podman's own runtime: crun), and
# crun as the low-level runtime under ours (`"runtime-path": "crun"`) with
# Docker and Podman.
#
# Every GPU container also has the simulated host's nodes bound in at
# /host-dev (real nodes, made with mknod) and runs dev-probe: the kernel must
# let the container open its own nodes (ENXIO: no driver behind them) and
# refuse every other GPU's (EPERM), beside the node list `amd-ctk gpu list`
# predicts.  One root, one dockerd per test; the versions each test ran are
# printed, never asserted.

bats_require_minimum_version 1.5.0

load helpers/common
load helpers/images
load helpers/engines

export BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-1200} # a hang detector: one root, many containers, on a loaded machine
export PODMAN_IGNORE_CGROUPSV1_WARNING=1

teardown() { engines_stop; }

SEED=$PROFILES/seed-4xmi210.json
BIND=(-v "$ENGINES_HOSTDEV_BIND:/host-dev")

# start RELEASE LAYOUT: the root with the package installed, the seed host,
# its nodes for /host-dev, the CDI spec; prints the versions to the TAP log
start() {
        engines_start --release "$1" --cgroup "$2" --deb --no-dockerd
        echo "# $1 $2: $(engines_versions)" >&3
        grep -q '^Setting up amd-container-toolkit ' "$ENGINES_DIR/dpkg.log"
        # the layout the engines see: cgroup2 alone, or v1 without the cgroup2 mount
        if [ "$2" = v2 ]; then
                [ "$(engines_in stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ]
        else
                [ "$(engines_in stat -f -c %T /sys/fs/cgroup)" = tmpfs ]
                ! engines_in grep -q ' /sys/fs/cgroup/unified ' /proc/self/mounts
        fi
        engines_fakefs_mount "$SEED"
        engines_hostdev "$SEED"
        run engines_in amd-ctk cdi generate
        [ "$status" -eq 0 ]
        [ "$output" = "Generated CDI spec: /etc/cdi/amd.json" ]
}

proven() { engines_proven "$@"; }

# crun_refused: true where the root's crun cannot start a container on this
# machine. Debian 12's crun (1.8) raises RLIMIT_MEMLOCK to unlimited before it
# loads its eBPF device program on cgroup v2 (later versions do not: the
# kernel charges BPF memory to the cgroup), which needs CAP_SYS_RESOURCE or a
# hard limit that is already unlimited; root on these VMs has neither.
crun_refused() {
        [ "$ENGINES_RELEASE" = bookworm ] && [ "$ENGINES_CGROUP" = v2 ] || return 1
        [ "$(ulimit -Hl)" != unlimited ] || return 1
        local eff
        eff=$(awk '/^CapEff:/ {print $2}' /proc/self/status)
        (((0x$eff >> 24) & 1)) && return 1 # CAP_SYS_RESOURCE
        return 0
}

# docker_matrix CDI-OPTION: runtime configure as the README says, dockerd
# started, our runtime with runc and then crun, CDI when CDI-OPTION is not
# "none" ("" when the Docker has CDI by default, --cdi when it needs
# features.cdi)
docker_matrix() {
        local cdi=$1 opts=()
        [ "$cdi" != --cdi ] || opts=(--cdi)
        engines_in amd-ctk runtime configure --runtime=docker "${opts[@]}" >/dev/null
        engines_dockerd_start
        proven 1 -- engines_in docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=1 "${BIND[@]}" rocm/rocm-terminal
        # no GPU asked: the other nodes are refused all the same, and the
        # probe says so when told a refused node was given
        proven -- engines_in docker run --rm --runtime=amd "${BIND[@]}" rocm/rocm-terminal
        if [ "$ENGINES_RELEASE" = sid ]; then
                run engines_in docker run --rm "${BIND[@]}" rocm/rocm-terminal dev-probe --host /host-dev /host-dev/dri/card0
                [ "$status" -eq 1 ]
                [[ "$output" == *"/host-dev/dri/card0 226:0 EPERM denied WRONG (a given node must open or fail with ENXIO)"* ]]
                [ "${lines[-1]}" = "dev-probe: 1 WRONG" ]
        fi
        [ "$cdi" = none ] ||
                proven 2 -- engines_in docker run --rm --device amd.com/gpu=2 "${BIND[@]}" rocm/rocm-terminal
}

# podman_matrix: runtime configure as the README says (no --runtime-path:
# the drop-in names the installed runtime by its absolute path), podman's
# own CDI with its default runtime (crun), and our runtime
podman_matrix() {
        run engines_in amd-ctk runtime configure --runtime=podman
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = "Wrote /etc/containers/containers.conf.d/99-amd.conf" ]
        engines_in grep -qx '"amd" = \["/usr/bin/amd-container-runtime"\]' /etc/containers/containers.conf.d/99-amd.conf
        engines_in podman import --change "ENV $IMAGE_PATH_ENV" --change 'CMD ["bash"]' /ctk/rootfs.tar \
                rocm/rocm-terminal >/dev/null
        [[ "$(engines_in podman info --format '{{.Host.OCIRuntime.Name}}')" == crun ]]
        if crun_refused; then
                run engines_in podman run --rm --device amd.com/gpu=2 rocm/rocm-terminal true
                [ "$status" -ne 0 ]
                [[ "$output" == *"setrlimit (RLIM_MEMLOCK): Operation not permitted"* ]]
                echo "# (podman's crun on this machine's cgroup2 view: refused, RLIMIT_MEMLOCK; CDI through runc)" >&3
                proven 2 -- engines_in podman --runtime runc run --rm --device amd.com/gpu=2 "${BIND[@]}" rocm/rocm-terminal
        else
                proven 2 -- engines_in podman run --rm --device amd.com/gpu=2 "${BIND[@]}" rocm/rocm-terminal
        fi
        proven 1 -- engines_in podman --runtime amd run --rm -e AMD_VISIBLE_DEVICES=1 "${BIND[@]}" rocm/rocm-terminal
}

# crun_matrix: crun as the low-level runtime under ours, with Podman and
# (on cgroup v1) Docker; the runtime's log shows crun was run.  Docker's
# spec always holds a blockIO section, which crun refuses when the io
# controller is missing, as it is from this machine's cgroup2 hierarchy
# (the host's v1 hierarchies hold every controller but hugetlb): Docker over
# crun on cgroup v2 needs a host whose controllers are on cgroup2.
crun_matrix() {
        # (log-level debug for this test alone: which low-level runtime the
        # runtime executes is logged at that level only)
        engines_in sed -i -e 's|"runtime-path": null|"runtime-path": "crun"|' -e 's|"log-level": "info"|"log-level": "debug"|' \
                /etc/amd-container-toolkit/config.json
        if crun_refused; then
                run engines_in podman --runtime amd run --rm -e AMD_VISIBLE_DEVICES=0,3 rocm/rocm-terminal true
                [ "$status" -ne 0 ]
                [[ "$output" == *"setrlimit (RLIM_MEMLOCK): Operation not permitted"* ]]
        else
                proven 0 3 -- engines_in podman --runtime amd run --rm -e AMD_VISIBLE_DEVICES=0,3 "${BIND[@]}" rocm/rocm-terminal
        fi
        if [ "$ENGINES_CGROUP" = v1 ]; then
                proven 0 3 -- engines_in docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=0,3 "${BIND[@]}" rocm/rocm-terminal
        else
                run engines_in docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=0,3 rocm/rocm-terminal true
                printf '%s\n' "$output"
                [ "$status" -ne 0 ]
                if crun_refused; then
                        [[ "$output" == *"setrlimit (RLIM_MEMLOCK): Operation not permitted"* ]]
                else
                        [[ "$output" == *"controller \`io\` is not available"* ]]
                        echo "# (docker over crun on this machine's cgroup2 view: refused for want of the io controller)" >&3
                fi
        fi
        # the creates of both containers (the refused one too) went to crun
        run engines_in grep -o '[a-z]* [0-9a-f]*: exec /[^"]*' /var/log/amd-container-runtime.log
        printf '%s\n' "$output"
        [ "$(grep -c '^create [0-9a-f]*: exec /usr/bin/crun$' <<<"$output")" -eq 2 ]
        ! grep -q 'runc$' <<<"$output"
}

@test "sid, cgroup v2: the installed package, Docker (runtime, CDI by default, crun), Podman (CDI, runtime, crun), proven by the kernel" {
        start sid v2
        docker_matrix ""
        podman_matrix
        crun_matrix
}

@test "sid, cgroup v1: the installed package, Docker (runtime, CDI by default, crun), Podman (CDI, runtime, crun), proven by the kernel" {
        start sid v1
        docker_matrix ""
        podman_matrix
        crun_matrix
}

@test "Debian 13, cgroup v2: the installed package, Docker (runtime, CDI with --cdi, crun), Podman (CDI, runtime, crun), proven by the kernel" {
        start trixie v2
        docker_matrix --cdi
        podman_matrix
        crun_matrix
}

@test "Debian 13, cgroup v1: the installed package, Docker (runtime, CDI with --cdi, crun), Podman (CDI, runtime, crun), proven by the kernel" {
        start trixie v1
        docker_matrix --cdi
        podman_matrix
        crun_matrix
}

# Docker 20.10 has no CDI
@test "Debian 12, cgroup v2: the installed package, Docker 20.10 (runtime, crun), Podman (CDI, runtime, crun), proven by the kernel" {
        start bookworm v2
        docker_matrix none
        podman_matrix
        crun_matrix
}

@test "Debian 12, cgroup v1: the installed package, Docker 20.10 (runtime, crun), Podman (CDI, runtime, crun), proven by the kernel" {
        start bookworm v1
        docker_matrix none
        podman_matrix
        crun_matrix
}
