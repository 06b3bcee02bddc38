#!/usr/bin/env bash
# rocm-smi in a container on a simulated host, for `make bench`: Debian's
# `rocm-smi --showuniqueid` on mi300x-cpx-x8 (63 partitions) served over
# FUSE, in a container given one partition (Docker 28.5 of the sid engine
# root, cgroup v2: every KFD read of another partition is decided by the
# simulator's device cgroup probe), against the same command on the
# materialized tree (no FUSE, no container), and the same container running
# `echo` instead (what Docker itself takes to start and remove it).  Prints
# each run's wall time, the medians and their ratio.
#
#   bash sim/bench-amd-tools.sh [RUNS]     (default 5)
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
SIM_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$SIM_LIB/../bats/helpers/common.bash"
. "$SIM_LIB/../bats/helpers/images.bash"
. "$SIM_LIB/../bats/helpers/engines.bash"
. "$SIM_LIB/../bats/helpers/amd_tools.bash"
RUNS=${1:-5}
PROFILE=$CTK_REPO/sim/profiles/mi300x-cpx-x8.json
[ "$(id -u)" = 0 ] || { echo "bench-amd-tools: needs root" >&2; exit 1; }
amd_tools_root || exit 1
TREE=$(ctk_tmpdir bench-amd-tools) || exit 1
cleanup() {
        engines_stop >/dev/null 2>&1
        ctk_rm_tmpdir "$TREE"
}
trap cleanup EXIT
"$CTK_BIN/amd-ctk-fakefs" materialize "$PROFILE" "$TREE/host" || exit 1
engines_start --release sid --cgroup v2 >/dev/null 3>/dev/null || exit 1
images_rocm_in "$ENGINES_DIR" &&
        engines_docker import /ctk/rocm-rootfs.tar rocm/rocm-terminal >/dev/null &&
        engines_fakefs_mount "$PROFILE" &&
        engines_in /ctk-build/bin/amd-ctk runtime configure --runtime=docker --config-path /ctk/daemon.json \
                --runtime-path /ctk-build/bin/amd-container-runtime >/dev/null &&
        engines_dockerd_restart || exit 1

now() { date +%s.%N; }
# time_of PATTERN COMMAND...: the wall seconds of COMMAND, whose output must
# have a line matching PATTERN
time_of() {
        local t0 t1 out pattern=$1
        shift
        t0=$(now)
        out=$("$@" 2>&1)
        t1=$(now)
        grep -q "$pattern" <<<"$out" || {
                echo "bench-amd-tools: $* failed:" >&2
                printf '%s\n' "$out" | tail -n 5 >&2
                return 1
        }
        awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f\n", b - a }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "rocm-smi --showuniqueid, mi300x-cpx-x8 (63 partitions), $RUNS runs each (seconds):"
container=() tree=() engine=()
in_container() { engines_docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=9 rocm/rocm-terminal "$@"; }
for ((i = 0; i < RUNS; i++)); do
        container+=("$(time_of 'Unique ID:' in_container rocm-smi --showuniqueid)") || exit 1
        tree+=("$(time_of 'Unique ID:' amd_tool "$TREE/host" rocm-smi --showuniqueid)") || exit 1
        engine+=("$(time_of '^started$' in_container echo started)") || exit 1
done
mc=$(printf '%s\n' "${container[@]}" | median)
mt=$(printf '%s\n' "${tree[@]}" | median)
me=$(printf '%s\n' "${engine[@]}" | median)
printf '  in a container (FUSE host, one partition given):  %s   median %s\n' "${container[*]}" "$mc"
printf '  on the materialized tree (all 63 partitions):     %s   median %s\n' "${tree[*]}" "$mt"
printf '  the same container running echo (Docker alone):   %s   median %s\n' "${engine[*]}" "$me"
printf '  ratio container/tree: %s; in a container under 2 s: %s\n' \
        "$(awk -v a="$mc" -v b="$mt" 'BEGIN { printf "%.2f", a / b }')" \
        "$(awk -v a="$mc" 'BEGIN { print (a < 2 ? "met" : "missed") }')"
