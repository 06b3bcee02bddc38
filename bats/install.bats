#!/usr/bin/env bats
# `make install` and `make uninstall` into a DESTDIR: uninstall removes what
# install wrote, and nothing else.

load helpers/common

# make TARGET...: a make of its own (not a sub-make of the `make check` that
# runs the tests) on the binaries under test; the runtime's --help, which the
# man pages are made from, logs into the test's directory, not the host's.
make_dest() {
        printf '{"log-file": "%s/runtime.log"}\n' "$BATS_TEST_TMPDIR" >"$BATS_TEST_TMPDIR/config.json"
        run env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL AMD_CTK_CONFIG="$BATS_TEST_TMPDIR/config.json" \
                make --no-print-directory -C "$CTK_REPO" BUILD="${CTK_BIN%/bin}" PREFIX=/usr DESTDIR="$DEST" "$@"
        [ "$status" -eq 0 ] || {
                echo "$output"
                return 1
        }
}

# listing: every path below DEST with its type, sorted.
listing() { (cd "$DEST" && find . -mindepth 1 -printf '%y %p\n' | sort); }

setup() {
        DEST=$BATS_TEST_TMPDIR/dest
        # files of others beside ours, in the directories install writes to
        mkdir -p "$DEST/usr/bin" "$DEST/usr/share/man/man1"
        touch "$DEST/usr/bin/amd-ctk.sh" "$DEST/usr/bin/runc" "$DEST/usr/share/man/man1/amd-smi.1" \
                "$DEST/usr/share/man/man1/runc.1"
        listing >"$BATS_TEST_TMPDIR/before"
}

@test "make uninstall removes what make install wrote and leaves the rest as it was" {
        make_dest install
        [ -x "$DEST/usr/bin/amd-ctk" ]
        [ -x "$DEST/usr/bin/amd-container-runtime" ]
        [ -s "$DEST/usr/share/man/man1/amd-ctk-gpu-list.1" ]
        [ -s "$DEST/usr/share/man/man1/amd-container-runtime.1" ]
        [ -s "$DEST/usr/share/man/man1/amd-ctk-fakefs.1" ]
        make_dest uninstall
        listing | diff "$BATS_TEST_TMPDIR/before" -
        # again: nothing to remove is not an error
        make_dest uninstall
        listing | diff "$BATS_TEST_TMPDIR/before" -
}

