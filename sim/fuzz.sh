#!/bin/sh
# Runs libFuzzer harnesses for SECONDS each, one after the other, from the
# committed seeds (fuzz/corpus/NAME) and what earlier runs kept
# (build/fuzz/corpus/NAME).  A crash stops the run: the input is kept as
# build/fuzz/crash-NAME-*, to become a regression seed in fuzz/corpus/NAME.
# One line per harness: executions, coverage, corpus size.
#
#   sh sim/fuzz.sh SECONDS HARNESS...
set -eu
cd "$(dirname "$0")/.."
seconds=$1
shift
rc=0
for bin in "$@"; do
        name=$(basename "$bin")
        seeds=fuzz/corpus/${name#fuzz_}
        work=$(dirname "$bin")/corpus/${name#fuzz_}
        mkdir -p "$work" "$seeds"
        mkdir -p "$(dirname "$bin")/logs"
        log=$(dirname "$bin")/logs/$name.log
        if "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
                -artifact_prefix="$(dirname "$bin")/crash-$name-" "$work" "$seeds" >"$log" 2>&1; then
                execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
                cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
                echo "fuzz: $name: $execs executions in ${seconds}s, $cov, corpus $(ls "$work" | wc -l) inputs: ok"
        else
                echo "fuzz: $name: FAILED (log: $log)"
                grep -E 'ERROR|SUMMARY|Test unit written' "$log" | head -n 5
                rc=1
        fi
done
exit $rc
