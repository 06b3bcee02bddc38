#!/usr/bin/env bash
# make bench: what amd-container-runtime adds to the container start path.
#
# One run, one busybox bundle, plain runc as the baseline.  Each iteration
# restores a pristine config.json (as an engine writes a fresh one for every
# container), then times `create` + `delete` of these variants, interleaved
# so that drift on a busy machine hits all of them alike:
#
#   runc      plain runc on the spec without any GPU variable
#   shim      the shim on that spec (pass-through: nothing to do)
#   runc+gpu  plain runc on the spec as the shim writes it (same devices)
#   shim+gpu  the shim on the spec with AMD_VISIBLE_DEVICES, on a simulated host
#
# "added" = shim - runc for pass-through, shim+gpu - runc+gpu for GPUs: the
# shim's own cost (runc's cost of creating the device nodes is the same
# whoever asks for them).  A second table times the shim alone, with the
# low-level runtime replaced by /bin/true, against /bin/true, and against the
# least any exec-based shim costs: a static C program that only execs its
# arguments (on a VM where exec is slow this floor is most of the cost).
#
# The simulated hosts are the profiles written out as directory trees
# (amd-ctk-fakefs materialize) read through the sysfs backend, as on a real
# host; bundle, trees and runc state live on tmpfs (/dev/shm), as an engine's
# bundles do under /run.  The shim-alone table also shows the in-memory
# profile backend, which parses the profile on every call.
#
#   BENCH_ITERATIONS   iterations per variant (default 50)
#   BENCH_DIR          where to work (default a new directory in /dev/shm)
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=../bats/helpers/common.bash
. "$repo/bats/helpers/common.bash"
# shellcheck source=../bats/helpers/runtime_bundle.bash
. "$repo/bats/helpers/runtime_bundle.bash"

N=${BENCH_ITERATIONS:-50}
RUNC=$(command -v runc) || {
        echo "bench: runc is not installed" >&2
        exit 1
}
TRUE=$(type -P true)
[ -x "$RT_SHIM" ] || {
        echo "bench: $RT_SHIM is missing (run make)" >&2
        exit 1
}
FAKEFS=$RT_BIN/amd-ctk-fakefs
[ -x "$FAKEFS" ] || {
        echo "bench: $FAKEFS is missing (run make)" >&2
        exit 1
}
for p in mi210-xgmi-x8 mi300x-cpx-x8; do
        [ -f "$RT_PROFILES/$p.json" ] || {
                echo "bench: profile $RT_PROFILES/$p.json is missing" >&2
                exit 1
        }
done

base=/dev/shm
[ -d "$base" ] && [ -w "$base" ] || base=/tmp
tmp=${BENCH_DIR:-$(mktemp -d "$base/ctk-bench.XXXXXX")}
mkdir -p "$tmp"
state=$tmp/state
cleanup() {
        local id
        for id in $("$RUNC" --root "$state" list -q 2>/dev/null); do
                "$RUNC" --root "$state" delete -f "$id" >/dev/null 2>&1 || true
        done
        rm -rf "$tmp"
}
trap cleanup EXIT

# The least a shim can cost: exec the next program, nothing else.
printf '%s\n' '#include <unistd.h>' 'int main(int argc, char **argv) { (void)argc; execv(argv[1], argv + 1); return 127; }' |
        ${CC:-cc} -O2 -static -x c -o "$tmp/exec-only" - || {
        echo "bench: cannot build the exec-only program" >&2
        exit 1
}

b=$tmp/bundle
export RT_STATE_DIR=$tmp/amd-state
rt_bundle "$b" true
cp "$b/config.json" "$tmp/spec-plain.json"

# scenario NAME PROFILE SELECTION: configs and specs of one GPU scenario.
scenario() {
        local name=$1 profile=$2 selection=$3
        "$FAKEFS" materialize "$RT_PROFILES/$profile.json" "$tmp/host-$name"
        rt_config "$tmp/cfg-$name.json" root "$tmp/host-$name" log-file "$tmp/runtime.log" runtime-path "$RUNC"
        rt_config "$tmp/cfg-true-$name.json" root "$tmp/host-$name" log-file "$tmp/runtime.log" runtime-path "$TRUE"
        rt_config "$tmp/cfg-profile-$name.json" profile "$RT_PROFILES/$profile.json" log-file "$tmp/runtime.log" \
                runtime-path "$TRUE"
        cp "$tmp/spec-plain.json" "$b/config.json"
        rt_spec_env "$b" "AMD_VISIBLE_DEVICES=$selection"
        cp "$b/config.json" "$tmp/spec-$name.json"
        # The spec as the shim writes it, for runc alone.
        AMD_CTK_CONFIG=$tmp/cfg-true-$name.json "$RT_SHIM" create --bundle "$b" bench-prep
        cp "$b/config.json" "$tmp/spec-$name-edited.json"
        local n
        n=$(jq '.linux.devices | length' "$tmp/spec-$name-edited.json")
        echo "$name: AMD_VISIBLE_DEVICES=$selection on $profile -> $n device nodes in the spec"
}
rt_config "$tmp/cfg-plain.json" log-file "$tmp/runtime.log" runtime-path "$RUNC"
rt_config "$tmp/cfg-true-plain.json" log-file "$tmp/runtime.log" runtime-path "$TRUE"
scenario x8 mi210-xgmi-x8 0-7
scenario cpx mi300x-cpx-x8 all

declare -A samples

# sample KEY SPEC CONFIG CMD...: one create+delete (or one call of CMD for
# /bin/true runs) with SPEC restored first; appends microseconds to KEY.
failures=0
seq_id=0
sample() {
        local key=$1 spec=$2 cfg=$3 t0 t1 id rc=0
        shift 3
        seq_id=$((seq_id + 1))
        id=bench-$seq_id # a fresh id: a busy machine may leave a cgroup behind for a moment
        cp "$spec" "$b/config.json"
        t0=$EPOCHREALTIME
        if [ "$1" = "--true" ]; then
                shift
                AMD_CTK_CONFIG=$cfg "$@" create --bundle "$b" "$id" >/dev/null 2>>"$tmp/errors" || rc=1
        elif [ "$1" = "--true-delete" ]; then
                shift
                AMD_CTK_CONFIG=$cfg "$@" delete "$id" >/dev/null 2>>"$tmp/errors" || rc=1
        else
                AMD_CTK_CONFIG=$cfg "$@" --root "$state" create --bundle "$b" "$id" >/dev/null 2>>"$tmp/errors" ||
                        rc=1
                AMD_CTK_CONFIG=$cfg "$@" --root "$state" delete "$id" >/dev/null 2>>"$tmp/errors" || rc=1
        fi
        t1=$EPOCHREALTIME
        failures=$((failures + rc))
        samples[$key]+="$((${t1/./} - ${t0/./})) "
}

echo "timing $N iterations of each variant ..."
for ((i = 0; i < N; i++)); do
        sample runc "$tmp/spec-plain.json" "$tmp/cfg-plain.json" "$RUNC"
        sample shim "$tmp/spec-plain.json" "$tmp/cfg-plain.json" "$RT_SHIM"
        for s in x8 cpx; do
                sample "runc-$s" "$tmp/spec-$s-edited.json" "$tmp/cfg-$s.json" "$RUNC"
                sample "shim-$s" "$tmp/spec-$s.json" "$tmp/cfg-$s.json" "$RT_SHIM"
        done
        sample true "$tmp/spec-plain.json" "$tmp/cfg-true-plain.json" --true "$TRUE"
        sample true-exec "$tmp/spec-plain.json" "$tmp/cfg-true-plain.json" --true "$tmp/exec-only" "$TRUE"
        sample true-shim "$tmp/spec-plain.json" "$tmp/cfg-true-plain.json" --true "$RT_SHIM"
        sample true-delete "$tmp/spec-plain.json" "$tmp/cfg-true-plain.json" --true-delete "$RT_SHIM"
        for s in x8 cpx; do
                sample "true-shim-$s" "$tmp/spec-$s.json" "$tmp/cfg-true-$s.json" --true "$RT_SHIM"
                sample "true-profile-$s" "$tmp/spec-$s.json" "$tmp/cfg-profile-$s.json" --true "$RT_SHIM"
        done
done

# median KEY: the median in microseconds.
median() {
        # shellcheck disable=SC2086
        printf '%s\n' ${samples[$1]} | sort -n | awk '{ v[NR] = $1 } END {
                if (NR % 2) print v[(NR + 1) / 2]; else print int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}

ms() { awk -v u="$1" 'BEGIN { printf "%.2f", u / 1000 }'; }

# row LABEL BASE-KEY SHIM-KEY: one table line; the difference in $added (us).
row() {
        local label=$1 base=$2 shim=$3 mb ms_
        mb=$(median "$base")
        ms_=$(median "$shim")
        added=$((ms_ - mb))
        printf '%-34s %10s %10s %10s %8s\n' "$label" "$(ms "$mb")" "$(ms "$ms_")" "$(ms $((ms_ - mb)))" \
                "$(awk -v a="$ms_" -v b="$mb" 'BEGIN { printf "%.3f", a / b }')"
}

echo
echo "create + delete, median of $N, milliseconds (baseline: runc alone)"
printf '%-34s %10s %10s %10s %8s\n' "scenario" "runc" "shim" "added" "ratio"
row "pass-through (no GPU requested)" runc shim
added_pass=$added
row "8 GPUs (mi210-xgmi-x8, 0-7)" runc-x8 shim-x8
row "63 partitions (mi300x-cpx-x8, all)" runc-cpx shim-cpx
added_cpx=$added
printf '%-34s %10s %10s %10s %8s\n' "  for reference: runc, no devices" "$(ms "$(median runc)")" "" "" ""
echo
echo "the shim's own work: create with the low-level runtime replaced by /bin/true, median of $N"
printf '%-34s %10s %10s %10s %8s\n' "scenario" "true" "shim" "added" "ratio"
row "floor: exec-only program" true true-exec
added_floor=$added
row "delete (pass-through)" true true-delete
added_delete=$added
row "create, pass-through" true true-shim
added_own_pass=$added
row "create, 8 GPUs (mi210-xgmi-x8)" true true-shim-x8
row "create, 63 partitions (mi300x-cpx)" true true-shim-cpx
added_own_cpx=$added
row "create, 8 GPUs, profile backend" true true-profile-x8
row "create, 63 partitions, profile" true true-profile-cpx
echo
verdict() { if [ "$1" -lt "$2" ]; then echo met; else echo missed; fi; }
echo "targets, median added to create + delete:"
echo "  end to end (first table):  63 partitions $(ms "$added_cpx") ms (< 2 ms: $(verdict "$added_cpx" 2000))," \
        "pass-through $(ms "$added_pass") ms (< 0.5 ms: $(verdict "$added_pass" 500))"
own_cpx=$((added_own_cpx + added_delete))
own_pass=$((added_own_pass + added_delete))
echo "  the shim's own (create + delete rows of the second table): 63 partitions $(ms "$own_cpx") ms" \
        "($(verdict "$own_cpx" 2000)), pass-through $(ms "$own_pass") ms ($(verdict "$own_pass" 500))"
echo "  of which two execs of any shim (the floor row, twice): $(ms $((2 * added_floor))) ms;" \
        "beyond that: 63 partitions $(ms $((own_cpx - 2 * added_floor))) ms, pass-through" \
        "$(ms $((own_pass - 2 * added_floor))) ms"
echo "measured on $(uname -srm), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%d)"
if [ "$failures" -gt 0 ]; then
        echo "warning: $failures timed calls failed; the last errors:"
        tail -n 5 "$tmp/errors"
fi
if awk -v n="$(nproc)" '{ exit !($1 > n) }' /proc/loadavg; then
        echo "note: the machine was busy (load average above the CPU count): wall times are noisy"
fi
