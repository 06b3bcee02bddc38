#!/usr/bin/env bash
# make bench: what amd-container-runtime adds to the container start path.
#
# One run, one busybox bundle.  Each iteration restores a pristine
# config.json (as an engine writes a fresh one for every container), then
# times these variants, interleaved so that drift on a busy machine hits
# all of them alike.
#
# First table, through runc itself: `create`, then (untimed) `kill` and a
# wait until the container is stopped, then `delete`, as an engine does;
# the two timed calls are summed, their wall time and their CPU time (user
# + system of the call and the processes it waited for, from wait4).
# runc's own create varies by milliseconds from call to call, and more on a
# busy machine: the CPU ratio is the one to read, and the verdict on 63
# partitions (create + delete within 1.05 times runc's) is taken on it:
#
#   runc      plain runc on the spec without any GPU variable
#   shim      the shim on that spec (pass-through: nothing to do)
#   runc+gpu  plain runc on the spec as the shim writes it (same devices)
#   shim+gpu  the shim on the spec with AMD_VISIBLE_DEVICES, on a simulated host
#   exec+gpu  a program that only execs runc, on the spec as the shim writes it:
#             the least any shim adds (one more exec per call), the floor of
#             the ratio on the machine of the day
#
# Second table, the shim alone: the low-level runtime is replaced by
# /bin/true and each row is the shim's call minus /bin/true exec'ed
# directly -- exactly what the shim adds in front of any runtime, without
# runc's noise.  Its create and delete rows give the verdict on the
# targets.  Reference row: the least a static program that only execs its
# arguments costs with glibc (whose start-up probes the CPU; each probe
# traps on a VM).
#
# Third table, the GPU tracker enabled with 1,000 containers already
# tracked, its state on disk (the state directory is /var/lib by default;
# each write flushes the file and the directory) and on tmpfs: a create
# and then a delete of the same container.  The low-level runtime is a
# stand-in that takes as long as runc's fastest calls (20 and 3 ms), so
# that the figures compare with the earlier runs (when the tracker worked
# while runc did) on the same terms.  The first table has the tracked
# create and delete through runc too, where runc's delete also runs the
# release hook (amd-ctk) the shim adds to the spec.
#
# Fourth table, the modes (config key mode) on the 63-partition host, the
# shim alone as in the second: a create of all partitions in mode legacy
# (discovery), in mode auto with the plain token (discovery) and with the
# CDI name amd.com/gpu=all (the spec directories), and in mode cdi with the
# plain token (the spec, checked against /dev on every create).  Each call
# runs under a small program that forks it and reports its wall time and
# its CPU time (user + system, from wait4): on a busy machine the CPU time
# varies far less than the wall time.  Rows: each mode minus /bin/true run
# the same way, and that against what mode legacy adds.
#
# Fifth table, the spec directories: a create naming amd.com/gpu=0 with
# our spec alone, and with another vendor's spec of 1,000 and of 40,000
# devices beside it (each spec is checked and its devices settled by name:
# linear in the devices), measured as the modes.
#
# The simulated hosts are the profiles written out as directory trees
# (amd-ctk-fakefs materialize) read through the sysfs backend, as on a real
# host; bundle, trees and runc state live on tmpfs (/dev/shm), as an engine's
# bundles do under /run.
#
# The runtime measured is CTK_BIN's (make bench: the default build, linked
# dynamically); RT_ALSO lists other runtimes to measure in the same run, as
# NAME=PATH words, each in the rows that say NAME (make bench: "static", the
# packages' build, and "before" with BENCH_BEFORE, another commit's build).
#
#   BENCH_ITERATIONS   iterations per variant (default 50)
#   BENCH_DIR          where to work (default a new directory in /dev/shm)
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=../bats/helpers/common.bash
. "$repo/bats/helpers/common.bash"
# shellcheck source=../bats/helpers/runtime_bundle.bash
. "$repo/bats/helpers/runtime_bundle.bash"
# shellcheck source=lib/bench-stats.bash
. "$repo/sim/lib/bench-stats.bash"

N=${BENCH_ITERATIONS:-50}
RUNC=$(command -v runc) || {
        echo "bench: runc is not installed" >&2
        exit 1
}
TRUE=$(type -P true)
declare -A also=()
also_names=()
for w in ${RT_ALSO:-}; do
        [ -x "${w#*=}" ] || {
                echo "bench: RT_ALSO: ${w#*=} is not an executable runtime (build it first)" >&2
                exit 1
        }
        also[${w%%=*}]=${w#*=}
        also_names+=("${w%%=*}")
done
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
tracker_dir=
cleanup() {
        local id
        for id in $("$RUNC" --root "$state" list -q 2>/dev/null); do
                "$RUNC" --root "$state" delete -f "$id" >/dev/null 2>&1 || true
        done
        rm -rf "$tmp" ${tracker_dir:+"$tracker_dir"}
}
trap cleanup EXIT

# build NAME OUT: sim/bench/NAME.c as a static program OUT.
build() {
        ${CC:-cc} -O2 -static -o "$2" "$repo/sim/bench/$1.c" || {
                echo "bench: cannot build sim/bench/$1.c" >&2
                exit 1
        }
}
# The least a shim can cost: exec the next program, nothing else.
build exec-only "$tmp/exec-only"
# A stand-in for runc with the GPU tracker, named runc: it sleeps as long
# as runc's fastest create and delete take here (20 and 3 ms), so that
# what the shim does around runc's work shows without runc's spread of
# milliseconds.
mkdir -p "$tmp/stand-in"
STANDIN=$tmp/stand-in/runc
build stand-in "$STANDIN"
# cpu-time OUT CMD...: CMD's wall and CPU time (the modes' table).
build cpu-time "$tmp/cpu-time"

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

# The modes on the 63-partition host: our spec of it, a config per mode.
"$RT_BIN/amd-ctk" --root "$tmp/host-cpx" cdi generate --output "$tmp/cdi/amd.json" >/dev/null
for mode in legacy auto cdi; do
        rt_config "$tmp/cfg-mode.json" root "$tmp/host-cpx" log-file "$tmp/runtime.log" runtime-path "$TRUE" \
                mode "$mode"
        jq --arg d "$tmp/cdi" '.["cdi-spec-dirs"] = [$d]' "$tmp/cfg-mode.json" >"$tmp/cfg-true-mode-$mode.json"
done
cp "$tmp/spec-plain.json" "$b/config.json"
rt_spec_env "$b" "AMD_VISIBLE_DEVICES=amd.com/gpu=all"
cp "$b/config.json" "$tmp/spec-cpx-name.json"
for m in legacy:cpx auto:cpx-name cdi:cpx; do
        cp "$tmp/spec-${m#*:}.json" "$b/config.json"
        AMD_CTK_CONFIG=$tmp/cfg-true-mode-${m%%:*}.json "$RT_SHIM" create --bundle "$b" bench-prep
        echo "mode ${m%%:*}: $(jq -r '.process.env[] | select(startswith("AMD_"))' "$b/config.json") ->" \
                "$(jq '.linux.devices | length' "$b/config.json") device nodes in the spec"
done

# The spec directories with another vendor's spec of 1,000 and of 40,000
# devices beside ours: a create naming amd.com/gpu=0 reads them all (mode
# auto, as the modes' table; the spec's loading is linear in its devices).
# other_spec FILE N: example.com/nic with N devices (an env edit each)
other_spec() {
        awk -v n="$2" 'BEGIN { printf "{\"cdiVersion\": \"0.5.0\", \"kind\": \"example.com/nic\", \"devices\": ["
                for (i = 0; i < n; i++)
                        printf "%s{\"name\": \"d%d\", \"containerEdits\": {\"env\": [\"NIC=%d\"]}}", i ? "," : "", i, i
                print "]}" }' >"$1"
}
for n in 0 1000 40000; do
        mkdir -p "$tmp/cdi-$n"
        cp "$tmp/cdi/amd.json" "$tmp/cdi-$n/amd.json"
        [ "$n" = 0 ] || other_spec "$tmp/cdi-$n/nic.json" "$n"
        jq --arg d "$tmp/cdi-$n" '.["cdi-spec-dirs"] = [$d]' "$tmp/cfg-true-mode-auto.json" >"$tmp/cfg-true-spec-$n.json"
done
cp "$tmp/spec-plain.json" "$b/config.json"
rt_spec_env "$b" "AMD_VISIBLE_DEVICES=amd.com/gpu=0"
cp "$b/config.json" "$tmp/spec-name0.json"

# The GPU tracker, enabled on the 63-partition host with 1,000 containers
# holding GPUs (shared): its state on disk (as by default, /var/lib), and on
# tmpfs to show what is not the disk's flushes.
tracker_dir=$(mktemp -d "${BENCH_TRACKER_DIR:-/var/tmp}/ctk-bench-tracker.XXXXXX")
# fill_tracker CONFIG: enables the tracker and tracks 1,000 containers.
fill_tracker() {
        AMD_CTK_CONFIG=$1 "$RT_BIN/amd-ctk" gpu-tracker enable >/dev/null
        for ((i = 0; i < 1000; i++)); do
                cp "$tmp/spec-x8.json" "$b/config.json" # 8 of the 63 GPUs
                AMD_CTK_CONFIG=$1 "$RT_SHIM" --root "$tmp/tracked-root" create --bundle "$b" \
                        "$(printf 'tracked%057d' "$i")" || {
                        echo "bench: cannot fill the GPU tracker" >&2
                        exit 1
                }
        done
}
# (filled through /bin/true, timed through the stand-in)
for where in disk tmpfs; do
        dir=$tracker_dir
        [ "$where" = disk ] || dir=$tmp/tracker-tmpfs
        RT_STATE_DIR=$dir rt_config "$tmp/cfg-fill-$where.json" root "$tmp/host-cpx" log-file "$tmp/runtime.log" \
                runtime-path "$TRUE"
        RT_STATE_DIR=$dir rt_config "$tmp/cfg-tracked-$where.json" root "$tmp/host-cpx" log-file "$tmp/runtime.log" \
                runtime-path "$STANDIN"
done
rt_config "$tmp/cfg-standin-cpx.json" root "$tmp/host-cpx" log-file "$tmp/runtime.log" runtime-path "$STANDIN"
echo "tracker: enabled on mi300x-cpx-x8, tracking 1,000 containers (state in $tracker_dir and on tmpfs) ..."
fill_tracker "$tmp/cfg-fill-disk.json"
fill_tracker "$tmp/cfg-fill-tmpfs.json"
# The same state through runc (the 1,000 stay: their runtime root is not runc's).
RT_STATE_DIR=$tracker_dir rt_config "$tmp/cfg-tracked-runc.json" root "$tmp/host-cpx" log-file "$tmp/runtime.log" \
        runtime-path "$RUNC"


# stopped ID: runc's state of ID says stopped.
stopped() {
        [ "$("$RUNC" --root "$state" state "$1" 2>/dev/null | jq -r .status)" = stopped ]
}

declare -A samples

# sample KEY SPEC CONFIG CMD...: with SPEC restored first, one create and
# one delete through CMD (KEY-create and KEY-delete), the container killed
# in between; or, with --true, one create (--true-delete: one delete) of
# CMD whose low-level runtime is /bin/true (--cpu: the same, run under
# cpu-time, its CPU time in KEY-cpu); --true-pair: a create and then
# a delete of the same id (KEY-create, KEY-delete and their sum in KEY).
# Appends microseconds to KEY.
failures=0
seq_id=0
sample() {
        local key=$1 spec=$2 cfg=$3 t0 t1 t2 t3 id rc=0 tries=0
        shift 3
        seq_id=$((seq_id + 1))
        id=bench-$seq_id # a fresh id: a busy machine may leave a cgroup behind for a moment
        cp "$spec" "$b/config.json"
        if [ "$1" = "--true-pair" ]; then
                shift
                t0=$EPOCHREALTIME
                AMD_CTK_CONFIG=$cfg "$@" --root "$tmp/tracked-root" create --bundle "$b" "$id" >/dev/null \
                        2>>"$tmp/errors" || rc=1
                t1=$EPOCHREALTIME
                AMD_CTK_CONFIG=$cfg "$@" --root "$tmp/tracked-root" delete "$id" >/dev/null 2>>"$tmp/errors" || rc=1
                t2=$EPOCHREALTIME
                failures=$((failures + rc))
                record "$key" "$t0" "$t1" "$t2"
                return
        fi
        if [ "$1" = "--cpu" ]; then
                shift
                AMD_CTK_CONFIG=$cfg "$tmp/cpu-time" "$tmp/cpu.out" "$@" --root "$tmp/tracked-root" \
                        create --bundle "$b" "$id" >/dev/null 2>>"$tmp/errors" || rc=1
                failures=$((failures + rc))
                local wall cpu
                read -r wall cpu _ <"$tmp/cpu.out"
                samples[$key]+="$wall "
                samples[$key-cpu]+="$cpu "
                return
        fi
        if [ "$1" = "--true" ] || [ "$1" = "--true-delete" ]; then
                local args=(create --bundle "$b" "$id")
                [ "$1" = "--true" ] || args=(delete "$id")
                shift
                t0=$EPOCHREALTIME
                AMD_CTK_CONFIG=$cfg "$@" --root "$tmp/tracked-root" "${args[@]}" >/dev/null 2>>"$tmp/errors" || rc=1
                t1=$EPOCHREALTIME
                failures=$((failures + rc))
                samples[$key]+="$((${t1/./} - ${t0/./})) "
                return
        fi
        local wc cc wd cd
        AMD_CTK_CONFIG=$cfg "$tmp/cpu-time" "$tmp/cpu.out" "$@" --root "$state" create --bundle "$b" "$id" \
                >/dev/null 2>>"$tmp/errors" || rc=1
        read -r wc cc _ <"$tmp/cpu.out"
        "$RUNC" --root "$state" kill "$id" KILL 2>/dev/null || true
        until stopped "$id" || [ $((tries += 1)) -gt 200 ]; do sleep 0.01; done
        AMD_CTK_CONFIG=$cfg "$tmp/cpu-time" "$tmp/cpu.out" "$@" --root "$state" delete "$id" >/dev/null \
                2>>"$tmp/errors" || rc=1
        read -r wd cd _ <"$tmp/cpu.out"
        failures=$((failures + rc))
        samples[$key-create]+="$wc "
        samples[$key-delete]+="$wd "
        samples[$key]+="$((wc + wd)) "
        samples[$key-cpu]+="$((cc + cd)) "
}

# record KEY T0 T1 T2: a create timed from T0 to T1 and a delete from T1
# to T2 (KEY-create, KEY-delete, and their sum in KEY).
record() {
        samples[$1-create]+="$((${3/./} - ${2/./})) "
        samples[$1-delete]+="$((${4/./} - ${3/./})) "
        samples[$1]+="$((${4/./} - ${2/./})) "
}

echo "timing $N iterations of each variant ..."
for ((i = 0; i < N; i++)); do
        # The stand-in's sleeps leave the CPUs idle; the first runc create
        # after other work takes milliseconds longer on this VM: the runc
        # calls come last, after one untimed runc create and delete.
        sample standin "$tmp/spec-cpx.json" "$tmp/cfg-standin-cpx.json" --true-pair "$STANDIN"
        sample standin-shim "$tmp/spec-cpx.json" "$tmp/cfg-standin-cpx.json" --true-pair "$RT_SHIM"
        sample standin-tracked "$tmp/spec-cpx.json" "$tmp/cfg-tracked-disk.json" --true-pair "$RT_SHIM"
        sample standin-tracked-tmpfs "$tmp/spec-cpx.json" "$tmp/cfg-tracked-tmpfs.json" --true-pair "$RT_SHIM"
        sample true "$tmp/spec-plain.json" "$tmp/cfg-true-plain.json" --true "$TRUE"
        sample true-exec "$tmp/spec-plain.json" "$tmp/cfg-true-plain.json" --true "$tmp/exec-only" "$TRUE"
        sample true-shim "$tmp/spec-plain.json" "$tmp/cfg-true-plain.json" --true "$RT_SHIM"
        sample true-delete "$tmp/spec-plain.json" "$tmp/cfg-true-plain.json" --true-delete "$RT_SHIM"
        for s in x8 cpx; do
                sample "true-shim-$s" "$tmp/spec-$s.json" "$tmp/cfg-true-$s.json" --true "$RT_SHIM"
        done
        for a in "${also_names[@]}"; do
                sample "true-$a" "$tmp/spec-plain.json" "$tmp/cfg-true-plain.json" --true "${also[$a]}"
                sample "true-$a-delete" "$tmp/spec-plain.json" "$tmp/cfg-true-plain.json" --true-delete "${also[$a]}"
                sample "true-$a-cpx" "$tmp/spec-cpx.json" "$tmp/cfg-true-cpx.json" --true "${also[$a]}"
        done
        sample cpu-true "$tmp/spec-plain.json" "$tmp/cfg-true-plain.json" --cpu "$TRUE"
        sample cpu-mode-legacy "$tmp/spec-cpx.json" "$tmp/cfg-true-mode-legacy.json" --cpu "$RT_SHIM"
        sample cpu-mode-auto "$tmp/spec-cpx.json" "$tmp/cfg-true-mode-auto.json" --cpu "$RT_SHIM"
        sample cpu-mode-auto-name "$tmp/spec-cpx-name.json" "$tmp/cfg-true-mode-auto.json" --cpu "$RT_SHIM"
        sample cpu-mode-cdi "$tmp/spec-cpx.json" "$tmp/cfg-true-mode-cdi.json" --cpu "$RT_SHIM"
        for n in 0 1000 40000; do
                sample "cpu-spec-$n" "$tmp/spec-name0.json" "$tmp/cfg-true-spec-$n.json" --cpu "$RT_SHIM"
        done
        sample warm-up "$tmp/spec-plain.json" "$tmp/cfg-plain.json" "$RUNC"
        sample runc "$tmp/spec-plain.json" "$tmp/cfg-plain.json" "$RUNC"
        sample shim "$tmp/spec-plain.json" "$tmp/cfg-plain.json" "$RT_SHIM"
        for s in x8 cpx; do
                sample "runc-$s" "$tmp/spec-$s-edited.json" "$tmp/cfg-$s.json" "$RUNC"
                sample "shim-$s" "$tmp/spec-$s.json" "$tmp/cfg-$s.json" "$RT_SHIM"
        done
        sample exec-cpx "$tmp/spec-cpx-edited.json" "$tmp/cfg-cpx.json" "$tmp/exec-only" "$RUNC"
        sample shim-tracked "$tmp/spec-cpx.json" "$tmp/cfg-tracked-runc.json" "$RT_SHIM"
        for a in "${also_names[@]}"; do
                sample "shim-$a" "$tmp/spec-plain.json" "$tmp/cfg-plain.json" "${also[$a]}"
                sample "shim-$a-cpx" "$tmp/spec-cpx.json" "$tmp/cfg-cpx.json" "${also[$a]}"
        done
done

echo
echo "through runc: create, kill, wait, delete; create and delete timed, medians of $N, milliseconds;"
echo "the ratio of create + delete, wall and CPU time"
printf '%-34s %8s %8s %8s %8s %8s %7s %7s\n' "scenario" "runc" "shim" "runc" "shim" "added" "ratio" "ratio"
printf '%-34s %8s %8s %8s %8s %8s %7s %7s\n' "" "create" "create" "delete" "delete" "c + d" "wall" "CPU"
runc_row "pass-through (no GPU requested)" runc shim
for a in "${also_names[@]}"; do runc_row "the same, $a" runc "shim-$a"; done
runc_row "8 GPUs (mi210-xgmi-x8, 0-7)" runc-x8 shim-x8
runc_row "63 partitions (mi300x-cpx-x8, all)" runc-cpx shim-cpx
for a in "${also_names[@]}"; do runc_row "the same, $a" runc-cpx "shim-$a-cpx"; done
runc_row "the same, GPU tracker, 1,000 tracked" runc-cpx shim-tracked
added_runc_tracked=$added
added_runc_tracked_create=$(($(median shim-tracked-create) - $(median runc-cpx-create)))
runc_row "floor: a program that only execs runc" runc-cpx exec-cpx
spread=$(($(quantile runc-create 0.75) - $(quantile runc-create 0.25)))
echo "  (runc create alone spreads over $(ms "$spread") ms between its quartiles: this table cannot resolve less)"
echo
echo "the shim alone: one call with the low-level runtime replaced by /bin/true, medians of $N, milliseconds"
printf '%-40s %8s %8s %8s %7s\n' "call" "true" "shim" "added" "ratio"
row "reference: exec-only program, glibc" true true-exec
row "delete (pass-through)" true true-delete
added_delete=$added
row "create, pass-through" true true-shim
added_own_pass=$added
row "create, 8 GPUs (mi210-xgmi-x8)" true true-shim-x8
row "create, 63 partitions (mi300x-cpx)" true true-shim-cpx
added_own_cpx=$added
for a in "${also_names[@]}"; do
        row "$a: delete (pass-through)" true "true-$a-delete"
        row "$a: create, pass-through" true "true-$a"
        row "$a: create, 63 partitions" true "true-$a-cpx"
done
echo
echo "with the GPU tracker, 1,000 containers tracked, 63 partitions: the low-level runtime replaced by a"
echo "stand-in taking 20 ms per create and 3 ms per delete, medians of $N, milliseconds"
printf '%-40s %8s %8s %8s %7s\n' "call" "stand-in" "shim" "added" "ratio"
row "create, tracker disabled" standin-create standin-shim-create
row "create, tracked, state on disk" standin-create standin-tracked-create
added_tracked=$added
row "delete, tracked, state on disk" standin-delete standin-tracked-delete
added_tracked_pair=$((added_tracked + added))
row "create, tracked, state on tmpfs" standin-create standin-tracked-tmpfs-create
added_tracked_tmpfs=$added
row "delete, tracked, state on tmpfs" standin-delete standin-tracked-tmpfs-delete
added_tracked_tmpfs_pair=$((added_tracked_tmpfs + added))
echo
echo "the modes: create, 63 partitions (mi300x-cpx-x8), the shim alone, each call's wall and CPU time"
echo "minus /bin/true's, medians of $N, milliseconds; and that against mode legacy's"
printf '%-40s %8s %8s %8s %8s\n' "call" "wall" "CPU" "wall /" "CPU /"
printf '%-40s %8s %8s %8s %8s\n' "" "added" "added" "legacy" "legacy"
mode_row "mode legacy: all (discovery)" cpu-mode-legacy cpu-true cpu-mode-legacy
mode_row "mode auto: all (discovery)" cpu-mode-auto cpu-true cpu-mode-legacy
mode_row "mode auto: amd.com/gpu=all (the spec)" cpu-mode-auto-name cpu-true cpu-mode-legacy
mode_row "mode cdi: all (the spec, checked)" cpu-mode-cdi cpu-true cpu-mode-legacy
echo "  (/bin/true itself: wall $(ms "$(median cpu-true)"), CPU $(ms "$(median cpu-true-cpu)") ms)"
echo
echo "the spec directories: create naming amd.com/gpu=0 (mode auto), our spec and another vendor's of N devices"
echo "beside it, wall and CPU time minus /bin/true's, medians of $N, milliseconds; and against ours alone"
printf '%-40s %8s %8s %8s %8s\n' "call" "wall" "CPU" "wall /" "CPU /"
printf '%-40s %8s %8s %8s %8s\n' "" "added" "added" "ours" "ours"
mode_row "our spec alone" cpu-spec-0 cpu-true cpu-spec-0
mode_row "and a spec of 1,000 devices" cpu-spec-1000 cpu-true cpu-spec-0
mode_row "and a spec of 40,000 devices" cpu-spec-40000 cpu-true cpu-spec-0
echo
verdict() { if [ "$1" -lt "$2" ]; then echo met; else echo missed; fi; }
own_cpx=$((added_own_cpx + added_delete))
own_pass=$((added_own_pass + added_delete))
echo "targets, median added to create + delete (the shim alone: create row + delete row):"
echo "  63 partitions $(ms "$own_cpx") ms (< 2 ms: $(verdict "$own_cpx" 2000)), pass-through $(ms "$own_pass") ms" \
        "(< 0.5 ms: $(verdict "$own_pass" 500))"
echo "  with the GPU tracker (1,000 tracked, state on disk), 63 partitions, against the stand-in: create" \
        "$(ms "$added_tracked") ms (< 2 ms: $(verdict "$added_tracked" 2000)), create + delete" \
        "$(ms "$added_tracked_pair") ms (< 2 ms: $(verdict "$added_tracked_pair" 2000)); on tmpfs" \
        "$(ms "$added_tracked_tmpfs") and $(ms "$added_tracked_tmpfs_pair") ms"
# cpu_verdict KEY LABEL: create + delete of KEY through runc against runc's, CPU time
cpu_verdict() {
        local r
        r=$(awk -v a="$(median "$1-cpu")" -v b="$(median runc-cpx-cpu)" 'BEGIN { printf "%.3f", a / b }')
        echo "  63 partitions through runc, $2: create + delete $r times runc's CPU time (<= 1.05:" \
                "$(awk -v r="$r" 'BEGIN { print (r <= 1.05 ? "met" : "missed") }'))"
}
cpu_verdict shim-cpx "$RT_SHIM"
for a in "${also_names[@]}"; do cpu_verdict "shim-$a-cpx" "$a, ${also[$a]}"; done
cpu_verdict exec-cpx "floor (one exec in front of runc, nothing else)"
echo "  the same through runc: create $(ms "$added_runc_tracked_create") ms, create + delete" \
        "$(ms "$added_runc_tracked") ms, with runc's delete running the release hook (orders of magnitude only)"
echo "measured on $(uname -srm), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%d)"
if [ "$failures" -gt 0 ]; then
        echo "warning: $failures timed calls failed; the last errors:"
        tail -n 5 "$tmp/errors"
fi
if awk -v n="$(nproc)" '{ exit !($1 > n) }' /proc/loadavg; then
        echo "note: the machine was busy (load average above the CPU count): wall times are noisy"
fi
