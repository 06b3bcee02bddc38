#!/usr/bin/env bats
# Output a user can read: tables within 100 columns without trailing blanks
# (gpu list, gpu list --all-vendors, gpu-tracker status, with the GPU
# tracker document's columns and words), every partition's mode in gpu list,
# and a version that says "-dirty" for a build of a modified tree.

bats_require_minimum_version 1.5.0

load helpers/common

setup_file() {
        export CTK="$CTK_BIN/amd-ctk"
        ctk_require_built "$CTK" || return 1
}

setup() {
        unset AMD_CTK_CONFIG AMD_CTK_ROOT AMD_CTK_PROFILE
}

# fits NAME: $output's lines are at most 100 columns and end in no blank.
fits() {
        local long blank
        long=$(awk 'length($0) > 100 { print NR": "length($0) }' <<<"$output")
        blank=$(grep -n ' $' <<<"$output" || true)
        [ -z "$long" ] && [ -z "$blank" ] || {
                echo "$1: lines over 100 columns: $long; lines ending in a blank: $blank"
                return 1
        }
}

@test "gpu list and gpu list --all-vendors fit 100 columns, no trailing blanks, for every profile" {
        for p in "$PROFILES"/*.json; do
                for args in "gpu list" "gpu list --all-vendors"; do
                        run --separate-stderr "$CTK" --profile "$p" $args
                        fits "$(basename "$p") $args"
                done
        done
        # the rules: dashes, as long as the longest line
        run "$CTK" --profile "$PROFILES/mixed-vendor.json" gpu list --all-vendors
        [[ "${lines[1]}" =~ ^-+$ ]] && [ "${lines[3]}" = "${lines[1]}" ]
        [ "${#lines[1]}" -eq "$(awk '{ print length($0) }' <<<"$output" | sort -n | tail -n 1)" ]
}

@test "gpu list names the partition mode on every partition's row, and says what '-' means" {
        run "$CTK" --profile "$PROFILES/mi300x-cpx-x8.json" gpu list
        [ "$status" -eq 0 ]
        rows=$(grep -E '^[0-9]+ ' <<<"$output")
        [ "$(wc -l <<<"$rows")" -eq 63 ]
        [ "$(awk '{ print $NF }' <<<"$rows" | sort -u)" = cpx_nps1 ]
        [[ "$output" != *"cannot be partitioned"* ]] # no '-', no note
        # a GPU that cannot be partitioned: '-', explained under the table
        run "$CTK" --profile "$PROFILES/seed-4xmi210.json" gpu list
        [ "$(grep -E '^[0-9]+ ' <<<"$output" | awk '{ print $NF }' | sort -u)" = - ]
        [ "${lines[-1]}" = "Partition: the GPU's compute and memory partition mode; '-': the GPU cannot be partitioned" ]
}

@test "gpu-tracker status: the document's columns and words within 100 columns; Docker's ids by their short form" {
        T=$BATS_TEST_TMPDIR
        printf '{"state-dir": "%s", "profile": "%s"}\n' "$T/state" "$PROFILES/seed-4xmi210.json" >"$T/config.json"
        ctk() { "$CTK" --config "$T/config.json" "$@"; }
        ctk gpu-tracker enable >/dev/null
        a=36b012bb34c96149a6ef5b28623e6e75cf9f71eb2b824b2c8f44e0449c7a1aa8
        b=90cb29e11e83aa3ae497c68c90e1f0894b85262188c1ef9c7284457a9bc35ffd
        jq -c ".containers += [[\"$a\", [0, 1, 2], null, 0, 0], [\"$b\", [1, 3], null, 0, 0]]" \
                "$T/state/gpu-tracker.json" >"$T/s.json" && mv "$T/s.json" "$T/state/gpu-tracker.json"
        run ctk gpu-tracker status
        [ "$status" -eq 0 ]
        fits "gpu-tracker status"
        rule=--------------------------------------------------------------------
        [ "$output" = "$rule
GPU Id    UUID                     Accessibility       Container Ids
$rule
0         0xEA35F57CC80DEB35       Shared              36b012bb34c9
1         0x89CAA15875FF5A43       Shared              36b012bb34c9
                                                       90cb29e11e83
2         0x6E32F10EFC982B4C       Shared              36b012bb34c9
3         0x12FE4F7FDAF06B9        Shared              90cb29e11e83" ]
        # the whole ids: status --json
        [ "$(ctk gpu-tracker status --json | jq -r '.gpus[1].containers[]')" = "$a
$b" ]
}

@test "amd-ctk version says -dirty for a build of a modified tree: the stamp follows the tree, and only then rebuilds" {
        T=$BATS_TEST_TMPDIR
        git clone -q "$CTK_REPO" "$T/src"
        commit=$(git -C "$T/src" rev-parse --short HEAD)
        stamp() {
                make -C "$T/src" --no-print-directory -s BUILD="$T/build" "$T/build/gen/version.o" >/dev/null
                sed -n 's/^const char ctk_version\[\] = "\(.*\)";$/\1/p' "$T/build/gen/version.c"
        }
        [ "$(stamp)" = "$(git -C "$T/src" describe --tags --always)" ]
        grep -qx "const char ctk_git_commit\[\] = \"$commit\";" "$T/build/gen/version.c"
        before=$(stat -c %.9Y "$T/build/gen/version.o") # (a rebuild is milliseconds later at least)
        [ "$(stamp)" = "$(git -C "$T/src" describe --tags --always)" ]
        [ "$(stat -c %.9Y "$T/build/gen/version.o")" = "$before" ] # unchanged tree: not rebuilt
        echo "# a local edit" >>"$T/src/README.md"
        [ "$(stamp)" = "$(git -C "$T/src" describe --tags --always)-dirty" ]
        [ "$(stat -c %.9Y "$T/build/gen/version.o")" != "$before" ]
        # every program links it (through libctk.a)
        make -C "$T/src" BUILD="$T/build" -pq 2>/dev/null | grep -E "^$T/build/libctk.a: .*$T/build/gen/version.o( |$)"
        # and the built amd-ctk reports the stamp it was linked with
        run "$CTK" version
        [ "${lines[0]}" = "Version: $(sed -n 's/^const char ctk_version\[\] = "\(.*\)";$/\1/p' "${CTK_BIN%/bin}/gen/version.c")" ]
}
