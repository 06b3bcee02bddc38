#!/usr/bin/env bats
# Comments and docs name files that exist (sim/check-paths.py, run by make
# lint): it passes on this tree, and names each missing file with the place
# that names it.

load helpers/common

setup() {
        T=$BATS_TEST_TMPDIR/tree
        mkdir -p "$T/core/base/tests/fixtures" "$T/docs" "$T/sim"
        git -C "$T" init -q
        printf '/build/\n' >"$T/.gitignore"
        printf '/* Reads core/base/util.h; writes build/out.txt. */\n' >"$T/core/base/util.c"
        : >"$T/core/base/util.h"
        : >"$T/core/base/tests/fixtures/a.json"
        printf '/* From fixtures/a.json (util.h; <stdio.h> is stdio.h). */\n' >"$T/core/base/tests/test_util.c"
        printf '#!/bin/sh\n# Run by sim/run.sh; reads /etc/hosts and ${x#core/} here.\nx=${y#core/nothing.c}\n' >"$T/sim/run.sh"
        printf 'See [the code](../core/base/util.c), `core/base/`, core/F/F.h, fuzz/corpus/NAME, core/*.c,\nhttps://example.com/core/x.c and /usr/lib/x.so.\n' >"$T/docs/a.md"
        printf '# Tree\n[docs](docs/a.md#top), [here](#tree)\n' >"$T/README.md"
}

check() { git -C "$T" add -A && run python3 "$CTK_REPO/sim/check-paths.py" "$T"; }

@test "check-paths: this tree names only files that exist" {
        run python3 "$CTK_REPO/sim/check-paths.py"
        [ "$status" -eq 0 ]
        [ "$output" = "paths: ok" ]
}

@test "check-paths: paths, relative ones, links, placeholders, system paths and build outputs pass" {
        check
        [ "$status" -eq 0 ]
        [ "$output" = "paths: ok" ]
}

@test "check-paths: a missing file in a comment or a doc fails, naming file and line" {
        printf 'int x; /* see core/base/gone.c:12 and\n * old_name.h */\n' >>"$T/core/base/util.c"
        printf '# and sim/gone.sh\n' >>"$T/sim/run.sh"
        printf '/* fixtures/b.json */\n' >>"$T/core/base/tests/test_util.c"
        printf 'Now [this](gone.md) and `docs/gone.md`.\n' >>"$T/docs/a.md"
        printf 'char *s = "core/base/gone2.c"; /* a string is not a comment */\n' >>"$T/core/base/util.c"
        check
        [ "$status" -eq 1 ]
        [ "${#lines[@]}" -eq 6 ]
        [[ "$output" == *"core/base/util.c:2: core/base/gone.c does not exist"* ]]
        [[ "$output" == *"core/base/util.c:3: old_name.h does not exist"* ]]
        [[ "$output" == *"sim/run.sh:4: sim/gone.sh does not exist"* ]]
        [[ "$output" == *"core/base/tests/test_util.c:2: fixtures/b.json does not exist"* ]]
        [[ "$output" == *"docs/a.md:3: gone.md does not exist"* ]]
        [[ "$output" == *"docs/a.md:3: docs/gone.md does not exist"* ]]
}
