#!/bin/sh
# `make coverage`: builds with --coverage into build/cov, runs the unit tests
# and the bats suite against those binaries, and reports line coverage.
#   coverage/total.info   everything captured (project sources only)
#   coverage/html/        the HTML report (genhtml)
# Prints line coverage for core/ and backends/ (and ctk/, runtime/).
# Exit status: non-zero if a test failed (the report is written anyway).
# COV_BATS names the bats files or directories to run, e.g.
# COV_BATS="bats/gpu-list.bats bats/fakefs-fuse.bats"; by default every bats
# file but two: hardening.bats checks that the programs of the release build
# are hardened (PIE, RELRO, _FORTIFY_SOURCE...), which a coverage build (-O0,
# no fortify) is not, and coverage.bats runs this script.
# `sh coverage/run.sh --bats-files` prints the default list.
# COV_BUILD (build/cov) is the build, COV_OUT (coverage) where the report goes.
set -eu
cd "$(dirname "$0")/.."
COV_BUILD=${COV_BUILD:-build/cov}
RC="--config-file coverage/lcovrc"
OUT=${COV_OUT:-coverage}

default_bats() {
        for f in bats/*.bats; do
                case $f in
                bats/hardening.bats | bats/coverage.bats) ;;
                *) echo "$f" ;;
                esac
        done
}
if [ "${1:-}" = --bats-files ]; then
        default_bats
        exit 0
fi
[ $# -eq 0 ] || { echo "usage: [COV_BATS=FILES] [COV_BUILD=DIR] [COV_OUT=DIR] sh coverage/run.sh [--bats-files]" >&2; exit 2; }
mkdir -p "$OUT"

# lcov with Debian 1.16's "Subroutine ... redefined" perl noise filtered out.
lcov_q() {
        err=$(lcov $RC --quiet "$@" 2>&1 >/dev/null) && rc=0 || rc=$?
        printf '%s\n' "$err" | grep -v -e '^Subroutine .* redefined at ' -e '^$' >&2 || true
        return $rc
}

# (compiler lines with V=1; on every core unless make was given -j)
jobs=-j$(nproc)
case " ${MAKEFLAGS:-} " in *" -j"* | *jobserver*) jobs="" ;; esac
quiet=-s
[ "${V:-0}" = 1 ] && quiet=""
make --no-print-directory $quiet $jobs BUILD="$COV_BUILD" COV=1 all tests

# Start from zero counters; the baseline makes files no test runs show 0%.
find "$COV_BUILD/obj" -name '*.gcda' -delete
rm -rf "$OUT/html" "$OUT"/*.info
lcov_q --capture --initial --directory "$COV_BUILD/obj" --base-directory . --output-file "$OUT/base.info"

# Tests also run the binaries as other users (e.g. "root is required"): an
# empty, world-writable counter file per object lets every process write its
# counters (otherwise gcov complains on their stderr). Empty ones are
# dropped again before the capture.
find "$COV_BUILD/obj" -name '*.gcno' | while read -r f; do
        : >"${f%.gcno}.gcda"
        chmod 0666 "${f%.gcno}.gcda"
done

status=0
# the unit tests only: other programs there (fuse_readers) are run by bats
tests=$(find "$COV_BUILD/tests" -type f -perm -u+x -name 'test_*' 2>/dev/null | sort)
if [ -n "$tests" ]; then
        # shellcheck disable=SC2086
        sh sim/run-unit.sh $tests || status=1
fi
# shellcheck disable=SC2086
CTK_BIN="$COV_BUILD/bin" CTK_TOOLS="$COV_BUILD/tools" bats --tap ${COV_BATS:-$(default_bats)} || status=1

find "$COV_BUILD/obj" -name '*.gcda' -size 0 -delete
lcov_q --capture --directory "$COV_BUILD/obj" --base-directory . --output-file "$OUT/tests.info"
lcov_q --add-tracefile "$OUT/base.info" --add-tracefile "$OUT/tests.info" --output-file "$OUT/all.info"
# Project sources only: no system headers, no test programs.
lcov_q --extract "$OUT/all.info" "$PWD/core/*" "$PWD/backends/*" "$PWD/ctk/*" "$PWD/runtime/*" \
        --output-file "$OUT/total.info"
lcov_q --remove "$OUT/total.info" '*/tests/*' --output-file "$OUT/total.info"
rm -f "$OUT/base.info" "$OUT/tests.info" "$OUT/all.info"
genhtml $RC --quiet --title "amd-container-toolkit" --prefix "$PWD" --output-directory "$OUT/html" "$OUT/total.info"

echo
echo "line coverage ($OUT/html/index.html):"
for dir in core backends ctk runtime; do
        lcov_q --extract "$OUT/total.info" "$PWD/$dir/*" --output-file "$OUT/$dir.info" 2>/dev/null || true
        line=$(lcov $RC --summary "$OUT/$dir.info" 2>&1 | sed -n 's/^ *lines\.*: *//p')
        printf '  %-10s %s\n' "$dir/" "${line:-no data}"
        rm -f "$OUT/$dir.info"
done
exit $status
