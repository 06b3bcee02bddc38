#!/usr/bin/env bats
# Commit subjects are at most 72 characters after the base commit
# (sim/check-commits.sh, run by make lint); history before it is not
# checked.

load helpers/common

setup() {
        T=$BATS_TEST_TMPDIR/repo
        git init -q "$T"
        git -C "$T" config user.email test@example.com
        git -C "$T" config user.name test
        long=$(printf 'x%.0s' $(seq 100))
        git -C "$T" commit -q --allow-empty -m "old: $long"
        BASE=$(git -C "$T" rev-parse HEAD)
}

@test "check-commits: this tree's subjects since the rule are short" {
        run sh "$CTK_REPO/sim/check-commits.sh"
        [ "$status" -eq 0 ]
        [ "$output" = "commits: ok" ] || [[ "$output" == *"not in this clone"* ]]
}

@test "check-commits: 72 characters pass, 73 fail, history before the base is not read" {
        git -C "$T" commit -q --allow-empty -m "$(printf 'a%.0s' $(seq 72))" -m "a body line may be longer: $long"
        run sh "$CTK_REPO/sim/check-commits.sh" "$T" "$BASE"
        [ "$status" -eq 0 ]
        [ "$output" = "commits: ok" ]
        git -C "$T" commit -q --allow-empty -m "$(printf 'b%.0s' $(seq 73))"
        run sh "$CTK_REPO/sim/check-commits.sh" "$T" "$BASE"
        [ "$status" -eq 1 ]
        [[ "$output" =~ ^commit\ [0-9a-f]+:\ subject\ of\ 73\ characters\ \(at\ most\ 72\):\ b+$ ]]
}

@test "check-commits: a clone without the base says so and passes" {
        run sh "$CTK_REPO/sim/check-commits.sh" "$T" 0123456789012345678901234567890123456789
        [ "$status" -eq 0 ]
        [[ "$output" == "commits: 0123456789012345678901234567890123456789 is not in this clone"* ]]
}
