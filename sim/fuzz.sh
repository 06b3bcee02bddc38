#!/bin/sh
# Runs libFuzzer harnesses for SECONDS each, one per core at a time, from the
# committed seeds (fuzz/corpus/NAME) and what earlier runs kept
# (build/fuzz/corpus/NAME).  A crash fails the run: the input is kept as
# build/fuzz/crash-NAME-*, to become a regression seed in fuzz/corpus/NAME.
# One line per harness: executions, coverage, corpus size.
#
#   sh sim/fuzz.sh SECONDS HARNESS...
set -eu
cd "$(dirname "$0")/.."
seconds=$1
shift
# one harness (libFuzzer runs on one core) per core at a time
jobs=$(nproc 2>/dev/null || echo 1)
# run BIN: the harness, its result line in its log's .line (exit status:
# the harness's)
run() {
        bin=$1
        name=$(basename "$bin")
        seeds=fuzz/corpus/${name#fuzz_}
        work=$(dirname "$bin")/corpus/${name#fuzz_}
        mkdir -p "$work" "$seeds" "$(dirname "$bin")/logs"
        log=$(dirname "$bin")/logs/$name.log
        if "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
                -artifact_prefix="$(dirname "$bin")/crash-$name-" "$work" "$seeds" >"$log" 2>&1; then
                execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
                cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
                echo "fuzz: $name: $execs executions in ${seconds}s, $cov, corpus $(ls "$work" | wc -l) inputs: ok" \
                        >"$log.line"
        else
                { echo "fuzz: $name: FAILED (log: $log)"; grep -E 'ERROR|SUMMARY|Test unit written' "$log" | head -n 5; } \
                        >"$log.line"
                return 1
        fi
}
rc=0
while [ $# -gt 0 ]; do
        batch="" pids=""
        i=0
        while [ $# -gt 0 ] && [ $i -lt "$jobs" ]; do
                run "$1" &
                pids="$pids $!"
                batch="$batch $1"
                shift
                i=$((i + 1))
        done
        for p in $pids; do
                wait "$p" || rc=1
        done
        for bin in $batch; do
                cat "$(dirname "$bin")/logs/$(basename "$bin").log.line"
        done
done
exit $rc
