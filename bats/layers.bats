#!/usr/bin/env bats
# The include direction of core/ (sim/check-layers.sh, run by make check):
# it passes on this tree and names each include against the direction.

load helpers/common

setup() {
        T=$BATS_TEST_TMPDIR/tree
        mkdir -p "$T/core/base" "$T/core/device" "$T/core/cdi/tests" "$T/ctk"
        git -C "$T" init -q
        for f in base device cdi; do
                printf '#include "%s.h"\n' "$f" >"$T/core/$f/$f.c"
                : >"$T/core/$f/$f.h"
        done
        printf '#include "core/device/device.h"\n#include "core/base/base.h"\n' >>"$T/core/cdi/cdi.c"
        printf '#include "core/cdi/cdi.h"\n' >"$T/ctk/main.c"
        # a test may use its own folder's inner headers
        printf '#include "core/cdi/walk.h"\n' >"$T/core/cdi/tests/test_walk.c"
}

check() { git -C "$T" add -A && run sh "$CTK_REPO/sim/check-layers.sh" "$T"; }

@test "layers: this tree follows the direction" {
        run sh "$CTK_REPO/sim/check-layers.sh"
        [ "$status" -eq 0 ]
        [ "$output" = "layers: ok" ]
}

@test "layers: a well-formed tree passes" {
        check
        [ "$status" -eq 0 ]
        [ "$output" = "layers: ok" ]
}

@test "layers: a lower folder including a higher one fails, naming file and line" {
        printf '\n#include "core/cdi/cdi.h"\n' >>"$T/core/device/device.c"
        check
        [ "$status" -eq 1 ]
        [ "${lines[0]}" = "core/device/device.c:3: core/device may not include core/cdi (against the direction)" ]
}

@test "layers: an inner header of another folder, a flat core/ header and a test helper outside tests fail" {
        printf '#include "core/device/backend.h"\n' >>"$T/ctk/main.c"
        printf '#include "core/cleanup.h"\n' >>"$T/core/base/base.c"
        printf '#include "core/base/tests/scratch_dir.h"\n' >>"$T/core/cdi/cdi.c"
        mkdir -p "$T/core/extras"
        : >"$T/core/extras/x.c"
        check
        [ "$status" -eq 1 ]
        [[ "$output" == *"ctk/main.c:2: includes core/device/backend.h: outside core/device use its public header core/device/device.h"* ]]
        [[ "$output" == *"core/base/base.c:2: includes core/cleanup.h: core/ headers live in its folders (core/F/F.h)"* ]]
        [[ "$output" == *"core/cdi/cdi.c:4: includes the test helper core/base/tests/scratch_dir.h outside a tests/ folder"* ]]
        [[ "$output" == *"core/extras/x.c:1: core/extras is not a known folder of core/"* ]]
}
