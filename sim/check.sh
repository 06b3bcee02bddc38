#!/bin/sh
# `make check`: every test, as one run that reads like one.
#
#   MAKE=make [V=1] [BUILD=build] sh sim/check.sh
#
# Steps, each announced by a "check: ..." line: the build, format and
# layers, lint (cppcheck, clang-tidy), checksec, the fuzz smoke run, the
# unit tests, the unit tests under ASan and UBSan, the end-to-end (bats)
# tests; the Debian roots those need are built in the background meanwhile.  Compiler command lines are not shown (V=1 shows
# them).  A step that prints nothing for a minute gets a progress line
# ("  lint: 2m 0s, clang-tidy: 57 of 163 files done").  A failing step does
# not stop the run (a failed build does: nothing can be tested).
#
# Around it all, the host-state check (sim/hoststate.sh): the machine's
# state before the first step and after the last must be the same; each
# difference is one line.  The processes of the run carry CTK_HOSTCHECK in
# their environment, so one a test left behind is marked as this run's.
#
# The last line: "N passed, N failed (unit N, end-to-end N, fuzz N, lint N,
# host N) in Xm Ys", over the unit tests (both builds), the bats tests, the
# fuzz harnesses, the lint steps (the build with -Werror, format, layers,
# lint, checksec) and the host-state check; a bats test skipped is counted on a line of its own
# before it.  Exit status 0 when nothing failed.  Logs: BUILD/check/.
set -u
cd "$(dirname "$0")/.."
MAKE=${MAKE:-make}
BUILD=${BUILD:-build}
LOGS=$BUILD/check
START=$(date +%s)
CTK_HOSTCHECK=check-$START-$$
export CTK_HOSTCHECK
quiet=-s
[ "${V:-0}" = 1 ] && quiet=""
# builds on every core unless make was given -j
jobs=-j$(nproc)
case " ${MAKEFLAGS:-} " in *" -j"* | *jobserver*) jobs="" ;; esac

rm -rf "$LOGS"
mkdir -p "$LOGS"
# passed/failed per kind: LOGS/count.KIND holds "P F"
count() { # KIND PASSED FAILED
        p=0 f=0
        [ ! -f "$LOGS/count.$1" ] || read -r p f <"$LOGS/count.$1"
        echo "$((p + $2)) $((f + $3))" >"$LOGS/count.$1"
}
elapsed() { # SECONDS -> "Xm Ys"
        echo "$(($1 / 60))m $(($1 % 60))s"
}

# progress probes: what a silent step has done so far (one short phrase)
progress_objects() { # DIR: objects built since the step began
        n=$(find "$1" -name '*.o' -newer "$LOGS/$step.start" 2>/dev/null | wc -l)
        [ "$n" -eq 0 ] || echo "$n objects compiled"
}
progress_lint() {
        total=$(find core backends runtime ctk fuzz sim -name '*.c' | wc -l)
        clean=$(find "$BUILD/tidy/ok" -type f -newer "$LOGS/$step.start" 2>/dev/null | wc -l)
        [ -e "$BUILD/tidy/.start" ] && [ "$BUILD/tidy/.start" -nt "$LOGS/$step.start" ] &&
                echo "clang-tidy: $clean of $total files found clean so far"
}
progress_unit() { # DIR: the test binaries done, the one running
        n=$(grep -c '^unit ' "$LOGS/$step.log")
        total=$(find "$1" -type f -name 'test_*' -perm -u+x 2>/dev/null | wc -l)
        # (ours: run from this directory)
        running=$(ps -eo pid=,args= 2>/dev/null | awk -v d="$1/" 'index($2, d) == 1 { print $1, $2 }' |
                while read -r pid bin; do
                        [ "$(readlink "/proc/$pid/cwd")" != "$PWD" ] || { echo "$bin"; break; }
                done)
        if [ -n "$running" ]; then
                echo "$n of $total test binaries done, running ${running##*/}"
        else
                progress_objects "$(dirname "$1")"
        fi
}
progress_bats() {
        n=$(grep -c '^\(not \)\{0,1\}ok ' "$LOGS/$step.log")
        plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$LOGS/$step.log" | head -n 1)
        # the file bats runs now
        file=$(ps -eo args= 2>/dev/null | sed -n 's|.*bats-exec-file .* \([^ ]*/bats/[^ ]*\.bats\) .*|\1|p' |
                grep -F "$PWD/" | head -n 1)
        echo "$n of ${plan:-?} tests done${file:+, running ${file#"$PWD"/}}"
}

# heartbeat STEP PROBE: while the step runs (until LOGS/STEP.rc exists), a
# line each minute it is silent
heartbeat() {
        last=$(date +%s)
        while [ ! -e "$LOGS/$1.rc" ]; do
                sleep 1
                now=$(date +%s)
                changed=$(stat -c %Y "$LOGS/$1.log" 2>/dev/null || echo "$now")
                [ "$changed" -gt "$last" ] && last=$changed
                [ $((now - last)) -ge 60 ] || continue
                what=$($2 2>/dev/null) || what=""
                echo "  $1: $(elapsed $((now - $(stat -c %Y "$LOGS/$1.start"))))${what:+, $what}"
                last=$now
        done
}

# step NAME "WHAT" PROBE CMD...: runs CMD, its output shown and kept in
# LOGS/NAME.log; returns its status
step() {
        step=$1
        echo "check: $2"
        touch "$LOGS/$step.start"
        heartbeat "$step" "$3" &
        hb=$!
        shift 3
        { "$@" 2>&1; echo $? >"$LOGS/$step.rc"; } | tee "$LOGS/$step.log"
        wait "$hb"
        return "$(cat "$LOGS/$step.rc")"
}

# a lint-like step: one pass or one failure
lint_step() { # NAME "WHAT" PROBE CMD...
        if step "$@"; then count lint 1 0; else count lint 0 1; fi
}

finish() {
        total_p=0 total_f=0 parts=""
        for kind in unit end-to-end fuzz lint host; do
                p=0 f=0
                [ ! -f "$LOGS/count.$kind" ] || read -r p f <"$LOGS/count.$kind"
                total_p=$((total_p + p))
                total_f=$((total_f + f))
                parts="$parts${parts:+, }$kind $((p + f))"
        done
        skipped=$(cat "$LOGS/skipped" 2>/dev/null || echo 0)
        [ "$skipped" -eq 0 ] || echo "$skipped skipped"
        echo "$total_p passed, $total_f failed ($parts) in $(elapsed $(($(date +%s) - START)))"
        [ "$total_f" -eq 0 ] && [ "${1:-0}" -eq 0 ]
}

echo "check: the host's state before the tests (sim/hoststate.sh; ${CTK_HOSTCHECK})"
sh sim/hoststate.sh snapshot "$LOGS/host-before"

# The Debian roots (make engines: debootstrap, minutes the first time) are
# built in the background meanwhile: they wait on the network and the disk,
# the steps until the end-to-end tests on the CPU.
echo "check: the Debian roots of the end-to-end tests, in the background (built once with debootstrap)"
{
        $MAKE --no-print-directory $quiet engines >"$LOGS/engines.log" 2>&1
        echo $? >"$LOGS/engines.rc"
} &
roots=$!

# (the unit test binaries are built here too: the ASan build is unit-asan's)
if ! step build "build (programs, tools, unit tests; V=1 shows the compiler lines)" "progress_objects $BUILD" \
        $MAKE --no-print-directory $quiet $jobs all tests; then
        echo "check: the build failed: nothing is tested"
        wait "$roots" # (kept for the next run)
        count lint 0 1
        finish
        exit 1
fi
lint_step format "format (clang-format)" : $MAKE --no-print-directory $quiet format-check
lint_step layers "layers (core/ include direction)" : $MAKE --no-print-directory $quiet layers
lint_step lint "lint (cppcheck, clang-tidy: minutes when files changed)" progress_lint \
        $MAKE --no-print-directory $quiet lint
lint_step checksec "checksec (hardened programs)" : $MAKE --no-print-directory $quiet checksec

step fuzz "fuzz smoke (each harness 20 s, built first)" "progress_objects $BUILD/fuzz" \
        $MAKE --no-print-directory $quiet $jobs fuzz-smoke
count fuzz "$(grep -c '^fuzz: .*: ok$' "$LOGS/fuzz.log")" "$(grep -c '^fuzz: .*: FAILED' "$LOGS/fuzz.log")"
[ "$(cat "$LOGS/fuzz.rc")" -eq 0 ] || grep -q '^fuzz: .*: FAILED' "$LOGS/fuzz.log" || count fuzz 0 1

# unit: the "unit: N passed, N failed" line of sim/run-unit.sh
unit_count() {
        line=$(grep '^unit: [0-9]* passed, [0-9]* failed$' "$LOGS/$1.log" | tail -n 1)
        if [ -n "$line" ]; then
                # shellcheck disable=SC2086 # "unit: P passed, F failed"
                set -- $line
                count unit "$2" "$4"
        else
                count unit 0 1 # (did not build, or did not get to the end)
        fi
}
step unit "unit tests (cmocka)" "progress_unit $BUILD/tests" $MAKE --no-print-directory $quiet unit
unit_count unit
step unit-asan "unit tests under ASan and UBSan (their build first)" "progress_unit $BUILD/asan/tests" \
        $MAKE --no-print-directory $quiet $jobs unit-asan
unit_count unit-asan

[ -e "$LOGS/engines.rc" ] || echo "  waiting for the Debian roots ($LOGS/engines.log)"
wait "$roots"
cat "$LOGS/engines.log"
[ "$(cat "$LOGS/engines.rc")" -eq 0 ] || count end-to-end 0 1

step bats "end-to-end tests (bats)" progress_bats $MAKE --no-print-directory $quiet bats
# a bats test skipped ("ok N name # skip ...") is not counted as passed; the
# tests a crash kept from running (the plan says how many) are failures
ok=$(grep '^ok ' "$LOGS/bats.log" | grep -vc ' # skip')
skip=$(grep '^ok ' "$LOGS/bats.log" | grep -c ' # skip')
notok=$(grep -c '^not ok ' "$LOGS/bats.log")
plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$LOGS/bats.log" | head -n 1)
missing=$((${plan:-0} - ok - skip - notok))
[ "$missing" -ge 0 ] || missing=0
[ "$(cat "$LOGS/bats.rc")" -eq 0 ] || [ "$notok" -gt 0 ] || [ "$missing" -gt 0 ] || missing=1
count end-to-end "$ok" $((notok + missing))
echo "$skip" >"$LOGS/skipped"

echo "check: the host's state after the tests"
sh sim/hoststate.sh snapshot "$LOGS/host-after"
if sh sim/hoststate.sh compare "$LOGS/host-before" "$LOGS/host-after" >"$LOGS/host.diff"; then
        echo "host: unchanged (files under /etc /var /run /usr, mounts, network namespaces, interfaces," \
                "processes, the engines' services, the run's cgroups)"
        count host 1 0
else
        echo "host: changed by the run (or by someone else on this machine meanwhile):"
        sed 's/^/  /' "$LOGS/host.diff"
        count host 0 1
fi
finish
