#!/usr/bin/env bats
# make coverage (coverage/run.sh) works from a fresh clone: the coverage
# build, the unit tests and bats files against it, the report.  Here on a
# part of the suite (the unit tests and one bats file), the report in a
# directory of the test's own; make check runs the rest of the suite on the
# release build.

load helpers/common

@test "make coverage on the unit tests and one bats file: exit 0, the HTML report, a figure per directory" {
        local out=$BATS_TEST_TMPDIR/out
        # (a clean environment: the bats inside must not see this one's
        # variables, nor its libexec directory first on PATH)
        local path
        path=$(tr ':' '\n' <<<"$PATH" | grep -v '/bats-core$' | paste -sd:)
        run env -i PATH="$path" HOME="$HOME" make -C "$CTK_REPO" --no-print-directory coverage \
                COV_BATS=bats/gpu-list.bats COV_OUT="$out"
        [ "$status" -eq 0 ] || {
                echo "$output" | tail -n 40
                return 1
        }
        [ -s "$out/html/index.html" ]
        [ -s "$out/total.info" ]
        grep -q "^SF:$CTK_REPO/core/" "$out/total.info"
        [[ "$output" == *"unit: "*" passed, 0 failed"* ]]
        [[ "$output" == *"line coverage ($out/html/index.html):"* ]]
        local d line
        for d in core backends ctk runtime; do
                line=$(grep "^  $d/ " <<<"$output")
                [[ "$line" =~ [0-9]+\.[0-9]+%\ \([0-9]+\ of\ [0-9]+\ lines\) ]] || {
                        echo "no figure for $d/: $line"
                        return 1
                }
        done
        # the compiler lines are not shown
        ! grep -q -- ' -c .*\.c -o ' <<<"$output"
}

@test "make coverage runs every bats file but hardening.bats (the release build's hardening) and this one" {
        run sh "$CTK_REPO/coverage/run.sh" --bats-files
        [ "$status" -eq 0 ]
        [ "$output" = "$(cd "$CTK_REPO" && ls bats/*.bats | grep -v -e '^bats/hardening\.bats$' -e '^bats/coverage\.bats$')" ]
        [ "${#lines[@]}" -ge 30 ]
}
