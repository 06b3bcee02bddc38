#!/usr/bin/env bats
# The programs are built hardened (sim/checksec.sh, run by make check too),
# as built and as the packages ship them (stripped); the check notices a
# program that is not, stripped or not.  The default build links the
# programs dynamically, as a distribution builds them; the packages' static
# PIEs (STATIC=1) are checked by package.bats.

load helpers/common
load helpers/runtime_bundle

@test "checksec: amd-ctk, amd-container-runtime and amd-ctk-fakefs are PIE, full RELRO, NX, SSP, fortified, stripped too" {
        ctk_require_built "$RT_BIN/amd-ctk" "$RT_SHIM" "$RT_BIN/amd-ctk-fakefs"
        run sh "$CTK_REPO/sim/checksec.sh" --stripped "$RT_BIN/amd-ctk" "$RT_SHIM" "$RT_BIN/amd-ctk-fakefs"
        [ "$status" -eq 0 ]
        [ "${#lines[@]}" -eq 6 ]
        for l in "${lines[@]}"; do [[ "$l" == *": PIE RELRO NX SSP FORTIFY" ]]; done
        [[ "${lines[1]}" == "$RT_BIN/amd-ctk (stripped): "* ]]
        [[ "${lines[3]}" == "$RT_SHIM (stripped): "* ]]
}

@test "the default build links dynamically: the programs name the loader and the libraries they use" {
        ctk_require_built "$RT_BIN/amd-ctk" "$RT_SHIM"
        local p
        for p in "$RT_BIN/amd-ctk" "$RT_SHIM"; do
                readelf -lW "$p" | grep -q 'Requesting program interpreter'
                readelf -dW "$p" | grep -q 'NEEDED.*\[libjansson\.so'
        done
}

@test "checksec: a program built without hardening fails, naming each missing protection, stripped or not" {
        printf '#include <string.h>\nint main(int c, char **v) { char b[8]; strcpy(b, c > 1 ? v[1] : "x"); return b[0]; }\n' \
                >"$BATS_TEST_TMPDIR/weak.c"
        cc -O0 -fno-stack-protector -no-pie -Wl,-z,norelro -o "$BATS_TEST_TMPDIR/weak" "$BATS_TEST_TMPDIR/weak.c"
        run sh "$CTK_REPO/sim/checksec.sh" --stripped "$BATS_TEST_TMPDIR/weak"
        [ "$status" -eq 1 ]
        [ "$output" = "$(printf '%s\n' "$BATS_TEST_TMPDIR/weak: not hardened: PIE RELRO SSP FORTIFY" \
                "$BATS_TEST_TMPDIR/weak (stripped): not hardened: PIE RELRO SSP FORTIFY")" ]
        run sh "$CTK_REPO/sim/checksec.sh" "$BATS_TEST_TMPDIR/weak.c"
        [ "$status" -eq 1 ]
        [ "$output" = "$BATS_TEST_TMPDIR/weak.c: not an ELF file" ]
}
