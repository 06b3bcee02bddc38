#!/usr/bin/env bats
# sim/deps.sh (`make deps`): installs only the missing Debian packages, as
# root; prints the command otherwise; does nothing when all are installed.
# dpkg-query, apt-get and id are stubs here, so nothing is installed.

load helpers/common

setup() {
        stub=$BATS_TEST_TMPDIR/stub
        mkdir -p "$stub"
        # dpkg-query: every package is installed except those in $MISSING
        cat >"$stub/dpkg-query" <<'STUB'
#!/bin/sh
for p; do :; done
case " $MISSING " in
*" $p "*) echo "dpkg-query: no packages found matching $p" >&2; exit 1 ;;
esac
printf 'install ok installed'
STUB
        printf '#!/bin/sh\necho "apt-get $*" >>"%s/calls"\n' "$BATS_TEST_TMPDIR" >"$stub/apt-get"
        printf '#!/bin/sh\necho "${FAKE_UID:-0}"\n' >"$stub/id"
        chmod +x "$stub"/*
        export PATH="$stub:$PATH"
}

@test "deps: everything installed is a silent no-op that runs no apt-get" {
        MISSING="" run sh "$CTK_REPO/sim/deps.sh"
        [ "$status" -eq 0 ]
        [ -z "$output" ]
        [ ! -e "$BATS_TEST_TMPDIR/calls" ]
}

@test "deps: as root, installs exactly the missing packages" {
        MISSING="bats lcov" run sh "$CTK_REPO/sim/deps.sh"
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = "installing: bats lcov" ]
        [ "$(sed -n 1p "$BATS_TEST_TMPDIR/calls")" = "apt-get update -qq" ]
        [ "$(sed -n 2p "$BATS_TEST_TMPDIR/calls")" = "apt-get install -y -qq --no-install-recommends bats lcov" ]
}

@test "deps: not root, prints the apt-get command and installs nothing" {
        FAKE_UID=1000 MISSING="lcov" run sh "$CTK_REPO/sim/deps.sh"
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = "missing packages: lcov" ]
        [ "${lines[1]}" = "run as root: apt-get update && apt-get install -y lcov" ]
        [ ! -e "$BATS_TEST_TMPDIR/calls" ]
}

# make fuzz on a machine without clang: `fresh-clang` (FUZZ_CC) exists only
# once the stub apt-get has "installed" it, a moment after being called.
@test "make -j2 fuzz: the packages it needs are installed before anything is built with them" {
        local fuzzobj="$CTK_REPO/build/fuzz/obj"
        # the fuzzers' library objects, built once (make check has built them already)
        env -u MAKEFLAGS -u MAKELEVEL make -s -C "$CTK_REPO" -j2 build/fuzz/fuzz_numbers
        mkdir -p "$BATS_TEST_TMPDIR/build/fuzz"
        cp -a "$fuzzobj" "$BATS_TEST_TMPDIR/build/fuzz/obj"
        cat >"$stub/apt-get" <<STUB
#!/bin/sh
echo "apt-get \$*" >>"$BATS_TEST_TMPDIR/calls"
case "\$1" in
install)
        sleep 2
        printf '#!/bin/sh\nexec clang "\$@"\n' >"$stub/fresh-clang"
        chmod +x "$stub/fresh-clang"
        ;;
esac
STUB
        MISSING="clang libclang-rt-14-dev" run env -u MAKEFLAGS -u MAKELEVEL make -C "$CTK_REPO" --no-print-directory \
                -j2 fuzz BUILD="$BATS_TEST_TMPDIR/build" FUZZ_CC=fresh-clang FUZZ_SECONDS=1
        [ "$status" -eq 0 ] || {
                echo "$output" | tail -20
                return 1
        }
        [ "$(sed -n 2p "$BATS_TEST_TMPDIR/calls")" = "apt-get install -y -qq --no-install-recommends clang libclang-rt-14-dev" ]
        local n
        n=$(ls "$CTK_REPO"/fuzz/fuzz_*.c | wc -l)
        [ "$(echo "$output" | grep -c '^fuzz: fuzz_.*: ok$')" -eq "$n" ]
}
