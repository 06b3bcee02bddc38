#!/usr/bin/env bats
# The programs are built hardened (sim/checksec.sh, run by make check too),
# as built and as the packages ship them (stripped); the check notices a
# program that is not, stripped or not.  The launcher is a static PIE with
# musl that runs where musl is not installed, and is built that way on any
# machine (or not at all).

load helpers/common
load helpers/runtime_bundle

@test "checksec: amd-ctk, the runtime (launcher and full) and amd-ctk-fakefs are PIE, full RELRO, NX, SSP, fortified, stripped too" {
        ctk_require_built "$RT_BIN/amd-ctk" "$RT_SHIM"
        run sh "$CTK_REPO/sim/checksec.sh" --stripped "$RT_BIN/amd-ctk" "$RT_BIN/amd-ctk-fakefs" \
                "$RT_BIN/../libexec/amd-container-toolkit/amd-container-runtime-full"
        [ "$status" -eq 0 ]
        [ "${#lines[@]}" -eq 6 ]
        for l in "${lines[@]}"; do [[ "$l" == *": PIE RELRO NX SSP FORTIFY" ]]; done
        [[ "${lines[1]}" == "$RT_BIN/amd-ctk (stripped): "* ]]
        # the musl launcher: a static PIE with full RELRO (musl has no fortified
        # functions), and no program interpreter: it runs on hosts without musl
        run sh "$CTK_REPO/sim/checksec.sh" --stripped --skip FORTIFY "$RT_SHIM"
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = "$RT_SHIM: PIE RELRO NX SSP" ]
        [ "${lines[1]}" = "$RT_SHIM (stripped): PIE RELRO NX SSP" ]
        ! readelf -lW "$RT_SHIM" | grep -q interpreter
        [[ "$(file -b "$RT_SHIM")" == *"static-pie linked"* ]]
}

@test "the launcher runs in an empty root (no musl, no loader)" {
        ctk_require_built "$RT_SHIM"
        local root=$BATS_TEST_TMPDIR/root
        mkdir -p "$root"
        cp "$RT_SHIM" "$root/"
        # no /proc there: its own error line shows it ran (a missing loader would be chroot's ENOENT)
        run chroot "$root" /amd-container-runtime state x
        [ "$status" -eq 1 ]
        [ "$output" = "amd-container-runtime: cannot read /proc/self/exe: No such file or directory" ]
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
        # musl-gcc's own static and static-pie links: not PIE, or needing musl's loader
        command -v musl-gcc >/dev/null || skip "musl-gcc is not installed (make deps)"
        musl-gcc -O2 -fPIE -fstack-protector-strong -static -o "$BATS_TEST_TMPDIR/m-static" "$BATS_TEST_TMPDIR/weak.c"
        musl-gcc -O2 -fPIE -fstack-protector-strong -static-pie -Wl,-z,relro,-z,now -o "$BATS_TEST_TMPDIR/m-spie" \
                "$BATS_TEST_TMPDIR/weak.c"
        run sh "$CTK_REPO/sim/checksec.sh" --skip FORTIFY "$BATS_TEST_TMPDIR/m-static" "$BATS_TEST_TMPDIR/m-spie"
        [ "$status" -eq 1 ]
        [ "${lines[0]}" = "$BATS_TEST_TMPDIR/m-static: not hardened: PIE RELRO" ]
        [ "${lines[1]}" = "$BATS_TEST_TMPDIR/m-spie: not hardened: PIE" ]
}

@test "the launcher is built with musl or not at all: without musl-gcc, one line naming make deps" {
        local build=$BATS_TEST_TMPDIR/build
        run make -C "$CTK_REPO" --no-print-directory -s BUILD="$build" MUSL_GCC=no-such-musl-gcc \
                "$build/bin/amd-container-runtime"
        [ "$status" -ne 0 ]
        [[ "$output" == *"no-such-musl-gcc is missing (the launcher is built with musl): run make deps"* ]]
        [ ! -e "$build/bin/amd-container-runtime" ]
        # and sim/musl-link.sh says the same when called alone
        run env MUSL_GCC=no-such-musl-gcc sh "$CTK_REPO/sim/musl-link.sh" "$build/x" "$build/x.o"
        [ "$status" -eq 1 ]
        [ "$output" = "no-such-musl-gcc is missing (the launcher is built with musl): run make deps" ]
}
