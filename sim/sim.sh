#!/bin/sh
# `make sim`: a guided tour of the toolkit on a simulated 4 x MI210 host,
# with a real (private) dockerd and runc. Every command is printed with a
# "$ " prompt before its output. Nothing outside one temp directory is
# changed, and everything is cleaned up at the end (also on Ctrl-C).
# Pieces that are not built yet are skipped with a "not available yet" line.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u

SIM_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$SIM_LIB/../bats/helpers/common.bash"
. "$SIM_LIB/../bats/helpers/dockerd.bash"
. "$SIM_LIB/../bats/helpers/images.bash"
. "$SIM_LIB/../bats/helpers/podman.bash"
. "$SIM_LIB/../bats/helpers/amd_tools.bash"
. "$SIM_LIB/lib/demo.bash"
. "$SIM_LIB/lib/host.bash"
. "$SIM_LIB/lib/docker-demo.bash"

[ "$(id -u)" = 0 ] || {
        echo "make sim needs root (it starts dockerd and mounts a FUSE file system)" >&2
        exit 1
}
cd "$CTK_REPO" || exit 1
export PATH=$CTK_BIN:$PATH # commands are shown as a user types them
PROFILE=sim/profiles/seed-4xmi210.json
SIM=$(ctk_tmpdir sim) || exit 1
HOST=$SIM/host
HOST_CPX=$SIM/host-cpx # the 63-partition host of the ranges example (mounted before dockerd: it sees it)
CFG=$SIM/toolkit.json

cleanup() {
        trap - EXIT INT TERM
        demo_section "Cleaning up" "containers, dockerd, containerd, the simulated host and $SIM"
        dockerd_stop
        podman_stop
        host_down "$HOST"
        host_down "$HOST_CPX"
        ctk_rm_tmpdir "$SIM"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
trap 'exec >/dev/null 2>&1; exit 141' PIPE # e.g. `make sim | head`: still clean up

has_ctk() { amd-ctk "$@" --help >/dev/null 2>&1; }
has_runtime() { [ -x "$CTK_BIN/amd-container-runtime" ]; }

# ---------------------------------------------------------------------------
demo_section "A simulated host" \
        "$PROFILE describes the 4-GPU host of the GPU tracker document." \
        "amd-ctk-fakefs serves it as sys/ and dev/ below a directory; every tool reads it with --root."
HAVE_HOST=0 HAVE_TOOLS=0
if [ ! -f "$PROFILE" ]; then
        demo_unavailable "$PROFILE"
elif ! command -v amd-ctk-fakefs >/dev/null; then
        demo_unavailable "amd-ctk-fakefs (the simulated host)"
elif host_up "$PROFILE" "$HOST"; then
        HAVE_HOST=1
        demo_say "(the host is $HOST_MODE)"
        demo_run ls -ln "$HOST/dev/dri" "$HOST/dev/kfd"
        if amd_tools_root >/dev/null 2>&1; then
                demo_say "" "AMD's own rocm-smi (Debian's package) with this host as its /sys and /dev:" \
                        "the GPU tracker document's table, sensors included."
                demo_prompt rocm-smi
                amd_tool "$HOST" rocm-smi 2>&1
                HAVE_TOOLS=1
        else
                demo_unavailable "Debian's rocm-smi (sh sim/engines.sh --tools could not build its root)"
        fi
else
        demo_unavailable "amd-ctk-fakefs could not provide the simulated host"
fi
if [ $HAVE_HOST = 1 ]; then
        mkdir -p "$HOST_CPX" && amd-ctk-fakefs mount sim/profiles/mi300x-cpx-x8.json "$HOST_CPX" \
                --pidfile "$HOST_CPX.pid" >/dev/null 2>&1 </dev/null || HOST_CPX=$SIM/no-cpx-host
        for cmd in "gpu list" "cdi list"; do
                # shellcheck disable=SC2086
                if has_ctk $cmd; then demo_run amd-ctk --root "$HOST" $cmd; else demo_unavailable "amd-ctk $cmd"; fi
        done
fi

# ---------------------------------------------------------------------------
demo_section "A private docker daemon" \
        "dockerd and containerd with their own data root, exec root and sockets below $SIM;" \
        "no bridge network, no iptables. The host's /etc/docker and /var/lib/docker are not used."
dockerd_start "$SIM/d" || exit 1
demo_run docker info --format 'root={{.DockerRootDir}} runtimes={{range $k, $v := .Runtimes}}{{$k}} {{end}}default={{.DefaultRuntime}}'

demo_section "Test images" \
        "No registry is reachable: rocm/rocm-terminal is Debian's rocm-smi (the rocm-smi package and what it" \
        "depends on) with busybox-static, imported with docker import. With plain runc a container has no GPU," \
        "and its /sys is this machine's, which has no amdgpu:"
if [ $HAVE_TOOLS = 1 ]; then
        IMAGES_CACHE=$SIM images_docker_import --rocm || exit 1
else
        IMAGES_CACHE=$SIM images_docker_import || exit 1
        demo_unavailable "Debian's rocm-smi in rocm/rocm-terminal (its root could not be built): rocm-smi is not found there"
fi
demo_run docker images
demo_run docker run --rm rocm/rocm-terminal rocm-smi

# ---------------------------------------------------------------------------
demo_section "Configuring Docker (README)" \
        "The toolkit configuration tells the runtime where the simulated host is:"
HAVE_AMD=0
jq -n --arg root "$HOST" --arg state "$SIM/state" --arg log "$SIM/runtime.log" \
        '{root: $root, "state-dir": $state, "log-file": $log, "log-level": "debug"}' >"$CFG"
demo_run cat "$CFG"
if ! has_ctk runtime configure; then
        demo_unavailable "amd-ctk runtime configure"
elif ! has_runtime; then
        demo_unavailable "amd-container-runtime"
elif [ $HAVE_HOST = 0 ]; then
        demo_unavailable "the simulated host"
elif demo_run amd-ctk runtime configure --runtime=docker --config-path "$DOCKERD_CONFIG" \
        --runtime-arg="--amd-config=$CFG"; then
        demo_run cat "$DOCKERD_CONFIG"
        demo_say "(deprecated-key-path is the test daemon's: it keeps dockerd 20.10 from writing /etc/docker/key.json)"
        demo_say "dockerd re-reads daemon.json on SIGHUP (what 'systemctl reload docker' does):"
        demo_prompt kill -HUP "$(cat "$DOCKERD_DIR/dockerd.launch.pid")"
        dockerd_reload && HAVE_AMD=1
        demo_run docker info --format 'runtimes={{range $k, $v := .Runtimes}}{{$k}} {{end}}'
fi
export AMD_CTK_CONFIG=$CFG # amd-ctk now reads the same configuration as the runtime

# ---------------------------------------------------------------------------
demo_section "Docker Runtime Integration (README)" \
        "Each container gets exactly the GPUs it asks for: rocm-smi in it lists those, as on a real host" \
        "(the runtime gives it the simulated host's sysfs; the host answers EPERM for the other GPUs)."
if [ $HAVE_AMD = 1 ]; then
        uuids=$(amd-ctk gpu list 2>/dev/null | awk '$1 ~ /^[0-9]+$/ && $2 ~ /^0x/ { print $2 }')
        uuid1=$(sed -n 2p <<<"$uuids")
        uuid3=$(sed -n 4p <<<"$uuids")
        demo_run docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=all rocm/rocm-terminal rocm-smi
        demo_run docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=0,1,2 rocm/rocm-terminal rocm-smi
        docker_demo_ranges
        demo_say "" "GPUs by UUID (from 'amd-ctk gpu list'), mixed with an index, and as a swarm resource:"
        demo_run docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES="${uuid1:-0x89CAA15875FF5A43}" \
                rocm/rocm-terminal rocm-smi
        demo_run docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES="0,${uuid3:-0x12FE4F7FDAF06B9}" \
                rocm/rocm-terminal rocm-smi
        demo_run docker run --rm --runtime=amd -e DOCKER_RESOURCE_GPU="${uuid1:-0x89CAA15875FF5A43}" \
                rocm/rocm-terminal rocm-smi
        demo_say "" "The README's example UUIDs belong to other machines; here they are refused by name:"
        demo_fails docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=0xef2c1799a1f3e2ed,0x1234567890abcdef \
                rocm/rocm-terminal rocm-smi
        demo_say "" "A GPU that does not exist is an error, not a silent warning:"
        demo_fails docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=9 rocm/rocm-terminal rocm-smi
        demo_say "" "Without the variable the runtime behaves exactly like runc: no GPU, this machine's sysfs."
        demo_run docker run --rm --runtime=amd rocm/rocm-terminal rocm-smi
else
        demo_unavailable "docker run --runtime=amd (needs the simulated host and the docker configuration)"
fi
if [ $HAVE_HOST = 1 ]; then
        demo_say "" "Explicit paths (no runtime=amd): the simulated host's nodes, but this machine's sysfs" \
                "(without our runtime nothing gives a container the simulated host's), so rocm-smi finds no driver:"
        demo_run docker run --rm --device "$HOST/dev/kfd:/dev/kfd" \
                --device "$HOST/dev/dri/renderD128:/dev/dri/renderD128" \
                --device "$HOST/dev/dri/renderD129:/dev/dri/renderD129" rocm/rocm-terminal rocm-smi
fi

docker_demo_default_runtime

# ---------------------------------------------------------------------------
. "$SIM_LIB/lib/cdi-demo.bash"
. "$SIM_LIB/lib/tracker-demo.bash"
docker_demo_remove

cleanup
echo
[ "$DEMO_UNAVAILABLE" -eq 0 ] || echo "make sim: $DEMO_UNAVAILABLE part(s) not available yet (see above)"
if [ "$DEMO_FAILURES" -ne 0 ]; then
        echo "make sim: $DEMO_FAILURES command(s) did not behave as shown above"
        exit 1
fi
echo "make sim: done"
