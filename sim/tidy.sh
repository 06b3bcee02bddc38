#!/bin/sh
# Runs clang-tidy (the checks in .clang-tidy) on C files, TIDY_JOBS (2) at
# a time, with the compiler flags in TIDY_FLAGS; a unit test (*/tests/*)
# gets sim/tidy-cmocka.h included first and the checks in TIDY_TEST_CHECKS
# (clang-tidy's --checks syntax) taken off.  Prints every finding as
# FILE:LINE:COLUMN: warning: ... [check] and exits 1 when there is one; the
# whole output of a file (with the analyzer's path notes) is kept in
# $TIDY_CACHE/log/ (build/tidy/log/).
#
# A file found clean is not checked again while nothing it is made of
# changes: the cache key is a hash of clang-tidy's version, every
# .clang-tidy, this script, the flags, and the bytes of the file and of
# every header it includes (as `clang -M` lists them, system headers too).
#
#   TIDY_FLAGS='-I. ...' [TIDY_TEST_CHECKS=-check,...] sh sim/tidy.sh FILE...
set -eu
cd "$(dirname "$0")/.."
cache=${TIDY_CACHE:-build/tidy}
tidy=${CLANG_TIDY:-clang-tidy}

# one file: sim/tidy.sh --one FILE (run by the loop below)
if [ "${1:-}" = --one ]; then
        f=$2
        name=$(echo "$f" | tr / _)
        flags=$TIDY_FLAGS checks=""
        case $f in
        */tests/*)
                flags="$flags -include sim/tidy-cmocka.h"
                checks=${TIDY_TEST_CHECKS:+--checks=$TIDY_TEST_CHECKS}
                ;;
        esac
        # shellcheck disable=SC2086
        deps=$(clang -M $flags "$f" 2>/dev/null | sed 's/\\$//' | tr ' ' '\n' | grep -v ':$' | grep .) || deps=""
        if [ -n "$deps" ]; then
                # shellcheck disable=SC2086
                key=$({ echo "$TIDY_CONFIG_SUM $flags $checks"; echo "$deps"; cat $deps; } | sha256sum | cut -c1-32)
                if [ -e "$cache/ok/$key" ]; then
                        touch "$cache/ok/$key"
                        exit 0
                fi
        else
                key="" # cannot list its headers (it does not compile): clang-tidy says why
        fi
        log=$cache/log/$name.log
        # shellcheck disable=SC2086
        if "$tidy" --quiet $checks "$f" -- $flags >"$log" 2>&1 && ! grep -q ': \(warning\|error\):' "$log"; then
                [ -z "$key" ] || touch "$cache/ok/$key"
                exit 0
        fi
        exit 1
fi

[ $# -gt 0 ] || { echo "usage: TIDY_FLAGS=... sh sim/tidy.sh FILE..." >&2; exit 2; }
command -v "$tidy" >/dev/null && command -v clang >/dev/null ||
        { echo "lint: clang-tidy or clang is missing (run make deps)" >&2; exit 2; }
mkdir -p "$cache/ok" "$cache/log"
start=$cache/.start
touch "$start"
rm -f "$cache"/log/*.log
# clang-tidy, this script and every .clang-tidy: a change to any checks all again
TIDY_CONFIG_SUM=$({
        "$tidy" --version
        cat sim/tidy.sh
        find . -path ./build -prune -o -name .clang-tidy -print | sort | xargs cat
} | sha256sum | cut -c1-32)
export TIDY_FLAGS TIDY_TEST_CHECKS="${TIDY_TEST_CHECKS:-}" CLANG_TIDY="$tidy" TIDY_CACHE="$cache" TIDY_CONFIG_SUM
rc=0
printf '%s\n' "$@" | xargs -P "${TIDY_JOBS:-2}" -n 1 sh sim/tidy.sh --one || rc=$?
if [ $rc -eq 0 ]; then
        # keys not seen in a clean run belong to older versions of the files
        find "$cache/ok" -type f ! -newer "$start" -delete
        echo "lint: clang-tidy: $# files clean"
        exit 0
fi
here=$(pwd)/
# a header's finding shows in every file that includes it: once here
cat "$cache"/log/*.log | grep ': \(warning\|error\):' | sed -e "s|^$here||" -e "s|^\./||" | sort -t: -k1,1 -k2,2n -k3,3n | uniq
n=$(cat "$cache"/log/*.log | grep -c ': \(warning\|error\):' || true)
echo "lint: clang-tidy: findings above (each file's whole output: $cache/log/); fix them, or silence one that is" \
        "false with // NOLINT(check-name): reason"
[ "$n" -gt 0 ] || echo "lint: clang-tidy failed without a finding: see $cache/log/"
exit 1
