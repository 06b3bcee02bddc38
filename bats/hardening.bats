#!/usr/bin/env bats
# The programs are built hardened (sim/checksec.sh, run by make check too),
# and the check notices a program that is not.

load helpers/common
load helpers/runtime_bundle

@test "checksec: amd-ctk, the runtime (launcher and full) and amd-ctk-fakefs are PIE, full RELRO, NX, SSP, fortified" {
        ctk_require_built "$RT_BIN/amd-ctk" "$RT_SHIM"
        run sh "$CTK_REPO/sim/checksec.sh" "$RT_BIN/amd-ctk" "$RT_BIN/amd-ctk-fakefs" \
                "$RT_BIN/../libexec/amd-container-toolkit/amd-container-runtime-full"
        [ "$status" -eq 0 ]
        [ "${#lines[@]}" -eq 3 ]
        for l in "${lines[@]}"; do [[ "$l" == *": PIE RELRO NX SSP FORTIFY" ]]; done
        # the musl launcher: static, not PIE (see GNUmakefile); NX and SSP,
        # and no program interpreter: it runs on hosts without musl
        run sh "$CTK_REPO/sim/checksec.sh" --skip PIE,RELRO,FORTIFY "$RT_SHIM"
        [ "$status" -eq 0 ]
        [[ "$output" == *": NX SSP" ]]
        ! readelf -lW "$RT_SHIM" | grep -q interpreter
}

@test "checksec: a program built without hardening fails, naming each missing protection" {
        printf '#include <string.h>\nint main(int c, char **v) { char b[8]; strcpy(b, c > 1 ? v[1] : "x"); return b[0]; }\n' \
                >"$BATS_TEST_TMPDIR/weak.c"
        cc -O0 -fno-stack-protector -no-pie -Wl,-z,norelro -o "$BATS_TEST_TMPDIR/weak" "$BATS_TEST_TMPDIR/weak.c"
        run sh "$CTK_REPO/sim/checksec.sh" "$BATS_TEST_TMPDIR/weak"
        [ "$status" -eq 1 ]
        [ "$output" = "$BATS_TEST_TMPDIR/weak: not hardened: PIE RELRO SSP FORTIFY" ]
        run sh "$CTK_REPO/sim/checksec.sh" "$BATS_TEST_TMPDIR/weak.c"
        [ "$status" -eq 1 ]
        [ "$output" = "$BATS_TEST_TMPDIR/weak.c: not an ELF file" ]
}
