#!/usr/bin/env bash
# `make bats`: every bats file, BATS_JOBS at a time, the slowest first.
#
#   BUILD=build BATS_JOBS=3 bash sim/bats-run.sh
#
# Files start in the order of their times in the last complete run
# (BUILD/bats-times: "SECONDS FILE" lines, written here), a file with no
# time yet first: the long scenarios start while every slot is free instead
# of ending the run alone.  Without a record (a fresh clone) the order is
# the files' names.  bats prints each file's results in the order the
# files were given (parallel --keep-order), each test's time on its line.
set -uo pipefail
cd "$(dirname "$0")/.."
times=${BUILD:-build}/bats-times
jobs=${BATS_JOBS:-3}

mapfile -t files < <(
        for f in bats/*.bats; do
                t=$(awk -v f="$f" '$2 == f { print $1; exit }' "$times" 2>/dev/null)
                echo "${t:-999999} $f"
        done | sort -s -k1,1nr | cut -d' ' -f2
)
par=()
[ "$jobs" = 1 ] || par=(--jobs "$jobs" --no-parallelize-within-files)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
PARALLEL=--will-cite bats --tap --timing "${par[@]}" "${files[@]}" | tee "$out"
rc=${PIPESTATUS[0]}

# each file's time: its tests' lines, in the order given, summed
mapfile -t ms < <(sed -n 's/^\(not \)\{0,1\}ok [0-9][0-9]* .* in \([0-9][0-9]*\)ms$/\2/p' "$out")
plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$out" | head -n 1)
if [ "${#ms[@]}" -eq "${plan:--1}" ]; then
        i=0
        for f in "${files[@]}"; do
                n=$(bats --count "$f")
                s=0
                for ((k = i; k < i + n; k++)); do s=$((s + ms[k])); done
                i=$((i + n))
                echo "$((s / 1000)) $f"
        done >"$times.tmp" && mv "$times.tmp" "$times"
fi
exit "$rc"
