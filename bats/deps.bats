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
