#!/bin/sh
# The count caps for `make bench`: what refusing a spec of 30 million
# one-character process.env entries (120 MB of config.json, under the byte
# cap) costs the runtime, beside reading the same file once (cat).  Each
# call runs under sim/bench/cpu-time.c: its wall time, its CPU time (user +
# system: on a busy machine it varies far less than the wall time) and its
# peak resident memory.  The target is under 2 s and under 256 MiB
# (bats/limits.bats refuses the spec with 256 MiB of address space; this
# shows the figures, it asserts nothing).
#
#   sh sim/bench-counts.sh [ROUNDS]
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
rounds=${1:-5}
shim=$PWD/$BUILD/bin/amd-container-runtime
[ -x "$shim" ] || {
        echo "bench-counts: $shim is missing (run make)" >&2
        exit 1
}
base=/dev/shm
[ -d "$base" ] && [ -w "$base" ] || base=/tmp
tmp=$(mktemp -d "$base/ctk-bench-counts.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
${CC:-cc} -O2 -static -o "$tmp/cpu-time" sim/bench/cpu-time.c
mkdir -p "$tmp/b/rootfs"
python3 - "$tmp/b/config.json" <<'EOF'
import sys
with open(sys.argv[1], "w") as f:
    f.write('{"ociVersion": "1.0.2", "root": {"path": "rootfs"}, "process": {"args": ["true"], "cwd": "/", '
            '"env": ["AMD_VISIBLE_DEVICES=0"')
    chunk = ',"a"' * 1000000
    for _ in range(30):
        f.write(chunk)
    f.write("]}}")
EOF
printf '{"log-file": "%s", "runtime-path": "%s"}\n' "$tmp/runtime.log" "$(command -v true)" >"$tmp/config.json"

# run KEY CMD...: one call under cpu-time, its figures appended to $tmp/KEY
run() {
        key=$1
        shift
        "$tmp/cpu-time" "$tmp/out" "$@" >/dev/null 2>>"$tmp/errors" || true
        cat "$tmp/out" >>"$tmp/$key"
}
i=0
while [ "$i" -lt "$rounds" ]; do
        run cat cat "$tmp/b/config.json"
        run shim "$shim" "--amd-config=$tmp/config.json" create --bundle "$tmp/b" counts
        i=$((i + 1))
done
grep -q 'process.env has more than 1048576 entries' "$tmp/errors" || {
        echo "bench-counts: the spec was not refused:" >&2
        tail -n 3 "$tmp/errors" >&2
        exit 1
}
# median FILE COLUMN
median() { cut -d' ' -f"$2" "$1" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
echo
echo "the count caps: a config.json of 30 million one-character env entries ($(($(stat -c %s "$tmp/b/config.json") / 1000000)) MB)" \
        "refused, medians of $rounds"
printf '%-40s %10s %10s %10s\n' "call" "wall ms" "CPU ms" "peak MiB"
for k in cat shim; do
        case $k in
        cat) label="reference: cat of the file" ;;
        shim) label="the runtime's create: refused" ;;
        esac
        printf '%-40s %10d %10d %10s\n' "$label" $(($(median "$tmp/$k" 1) / 1000)) $(($(median "$tmp/$k" 2) / 1000)) \
                "$(awk -v k="$(median "$tmp/$k" 3)" 'BEGIN { printf "%.1f", k / 1024 }')"
done
cpu=$(median "$tmp/shim" 2)
rss=$(median "$tmp/shim" 3)
verdict() { if [ "$1" -lt "$2" ]; then echo met; else echo missed; fi; }
echo "  target: CPU $((cpu / 1000)) ms (< 2,000 ms: $(verdict "$cpu" 2000000)), peak $((rss / 1024)) MiB" \
        "(< 256 MiB: $(verdict "$rss" 262144))"
echo "  (the wall time against cat's shows how busy the machine was: on a busy one, the CPU time is the measure)"
