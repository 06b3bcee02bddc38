#!/usr/bin/env bats
# sim/gen-man.sh: man pages generated from --help (used by `make install`).

load helpers/common

# Fake binaries with a known --help, so the conversion itself is checked.
make_fake_bin() {
        local bin=$1
        mkdir -p "$bin"
        cat >"$bin/amd-ctk" <<'EOF'
#!/bin/sh
case "$*" in
version) printf 'Version: 9.8.7\nBuild Date: x\nGitCommit: y\n' ;;
--help) printf '%s\n' 'NAME:' '   amd-ctk - fake' '' 'USAGE:' '   amd-ctk [global options] command' '' \
        'COMMANDS:' '   version      Show the version' '   gpu-tracker  GPU Tracker related commands' \
        '   help, h      Shows a list of commands' '' 'GLOBAL OPTIONS:' '   --root DIR  read \sys below DIR' \
        '.starts with a dot' "   'quoted' once unindented" ;;
"gpu-tracker --help") printf '%s\n' 'COMMANDS:' '   disable  Disable the GPU Tracker' \
        '   enable, e  Enable the GPU Tracker' '   help, h  Shows a list' ;;
*" --help") printf 'USAGE:\n   amd-ctk %s\n' "${*% --help}" ;;
*) exit 2 ;;
esac
EOF
        printf '#!/bin/sh\necho "usage: amd-container-runtime [--amd-config=FILE] RUNC-ARGS..."\n' \
                >"$bin/amd-container-runtime"
        printf '#!/bin/sh\necho "usage: amd-ctk-fakefs mount PROFILE DIR" >&2; exit 2\n' >"$bin/amd-ctk-fakefs"
        chmod +x "$bin"/*
}

@test "gen-man writes one page per binary, command and subcommand" {
        make_fake_bin "$BATS_TEST_TMPDIR/bin"
        SOURCE_DATE_EPOCH=0 run sh "$CTK_REPO/sim/gen-man.sh" "$BATS_TEST_TMPDIR/bin" "$BATS_TEST_TMPDIR/man"
        [ "$status" -eq 0 ]
        [ "$output" = "gen-man: 7 pages in $BATS_TEST_TMPDIR/man" ]
        run ls "$BATS_TEST_TMPDIR/man"
        [ "$output" = "$(printf '%s.1\n' amd-container-runtime amd-ctk-fakefs amd-ctk-gpu-tracker-disable \
                amd-ctk-gpu-tracker-enable amd-ctk-gpu-tracker amd-ctk-version amd-ctk)" ]
}

@test "gen-man pages: NAME from the help or the command list, sections, escapes, SEE ALSO" {
        make_fake_bin "$BATS_TEST_TMPDIR/bin"
        SOURCE_DATE_EPOCH=0 sh "$CTK_REPO/sim/gen-man.sh" "$BATS_TEST_TMPDIR/bin" "$BATS_TEST_TMPDIR/man"
        page=$BATS_TEST_TMPDIR/man/amd-ctk.1
        [ "$(sed -n 1p "$page")" = '.TH AMD-CTK 1 "1970-01-01" "amd-container-toolkit 9.8.7" "User Commands"' ]
        grep -qx 'amd-ctk \\- configure the AMD Container Toolkit' "$page"
        grep -qx '.SH GLOBAL OPTIONS' "$page"
        grep -qxF -- '--root DIR  read \esys below DIR' "$page"
        grep -qxF '\&.starts with a dot' "$page"
        grep -qxF "\\&'quoted' once unindented" "$page"
        # SEE ALSO: top-level pages, parent, subcommands
        [ "$(sed -n '/^.SH SEE ALSO/,$p' "$page")" = "$(printf '%s\n' '.SH SEE ALSO' \
                '.BR amd-container-runtime (1),' '.BR amd-ctk-fakefs (1),' '.BR amd-ctk-gpu-tracker (1),' \
                '.BR amd-ctk-version (1)')" ]
        [ "$(sed -n '/^.SH SEE ALSO/,$p' "$BATS_TEST_TMPDIR/man/amd-ctk-gpu-tracker-enable.1")" = \
                "$(printf '%s\n' '.SH SEE ALSO' '.BR amd-container-runtime (1),' '.BR amd-ctk (1),' \
                        '.BR amd-ctk-fakefs (1),' '.BR amd-ctk-gpu-tracker (1)')" ]
        grep -qx 'amd-ctk-gpu-tracker-enable \\- Enable the GPU Tracker' \
                "$BATS_TEST_TMPDIR/man/amd-ctk-gpu-tracker-enable.1"
        for p in "$BATS_TEST_TMPDIR"/man/*.1; do
                [ -z "$(groff -man -Tutf8 -ww -z "$p" 2>&1)" ]
                lexgrog "$p" >/dev/null
        done
}

@test "gen-man: 'Usage:' and 'Commands:' style help becomes SYNOPSIS and COMMANDS, with subcommand pages" {
        make_fake_bin "$BATS_TEST_TMPDIR/bin"
        cat >"$BATS_TEST_TMPDIR/bin/amd-ctk-fakefs" <<'EOF'
#!/bin/sh
case "$*" in
--help) printf '%s\n' 'Usage: amd-ctk-fakefs COMMAND' '' 'Commands:' '   mount   serve a profile over FUSE' \
        '' 'Profiles are JSON.' ;;
"mount --help") printf '%s\n' 'Usage: amd-ctk-fakefs mount PROFILE DIR' 'Serves PROFILE below DIR.' ;;
esac
EOF
        sh "$CTK_REPO/sim/gen-man.sh" "$BATS_TEST_TMPDIR/bin" "$BATS_TEST_TMPDIR/man"
        [ "$(sed -n '/^.SH SYNOPSIS/,/^.SH SEE/p' "$BATS_TEST_TMPDIR/man/amd-ctk-fakefs.1")" = "$(printf '%s\n' \
                '.SH SYNOPSIS' '.nf' 'amd-ctk-fakefs COMMAND' '.fi' '.SH COMMANDS' '.nf' \
                'mount   serve a profile over FUSE' '' 'Profiles are JSON.' '.fi' '.SH SEE ALSO')" ]
        page=$BATS_TEST_TMPDIR/man/amd-ctk-fakefs-mount.1
        grep -qx 'amd-ctk-fakefs-mount \\- serve a profile over FUSE' "$page"
        [ "$(sed -n '/^.SH SYNOPSIS/,/^.SH SEE/p' "$page")" = "$(printf '%s\n' \
                '.SH SYNOPSIS' '.nf' 'amd-ctk-fakefs mount PROFILE DIR' 'Serves PROFILE below DIR.' '.fi' '.SH SEE ALSO')" ]
        [ -z "$(groff -man -Tutf8 -ww -z "$page" 2>&1)" ]
}

@test "gen-man: a runtime that passes --help to runc gets our page plus runc's help" {
        make_fake_bin "$BATS_TEST_TMPDIR/bin"
        printf '#!/bin/sh\nprintf "NAME:\\n   runc - Open Container Initiative runtime\\n"\n' \
                >"$BATS_TEST_TMPDIR/bin/amd-container-runtime"
        sh "$CTK_REPO/sim/gen-man.sh" "$BATS_TEST_TMPDIR/bin" "$BATS_TEST_TMPDIR/man"
        page=$BATS_TEST_TMPDIR/man/amd-container-runtime.1
        grep -qx '.SH SYNOPSIS' "$page"
        grep -qx '.SH LOW-LEVEL RUNTIME' "$page"
        grep -qx '   runc - Open Container Initiative runtime' "$page"
        grep -qxF '.BR amd-ctk (1),' "$page"
        [ -z "$(groff -man -Tutf8 -ww -z "$page" 2>&1)" ]
        lexgrog "$page"
}

@test "gen-man fails clearly when a binary is missing" {
        make_fake_bin "$BATS_TEST_TMPDIR/bin"
        rm "$BATS_TEST_TMPDIR/bin/amd-ctk-fakefs"
        run sh "$CTK_REPO/sim/gen-man.sh" "$BATS_TEST_TMPDIR/bin" "$BATS_TEST_TMPDIR/man"
        [ "$status" -ne 0 ]
        [ "${lines[-1]}" = "gen-man: $BATS_TEST_TMPDIR/bin/amd-ctk-fakefs is not an executable (build it first)" ]
}

@test "gen-man fails clearly when a binary prints no help" {
        make_fake_bin "$BATS_TEST_TMPDIR/bin"
        printf '#!/bin/sh\nexit 0\n' >"$BATS_TEST_TMPDIR/bin/amd-container-runtime"
        run sh "$CTK_REPO/sim/gen-man.sh" "$BATS_TEST_TMPDIR/bin" "$BATS_TEST_TMPDIR/man"
        [ "$status" -ne 0 ]
        [[ "$output" == *"amd-container-runtime --help' printed nothing"* ]]
}

@test "gen-man on the built binaries: every page renders without warnings and has a NAME" {
        run sh "$CTK_REPO/sim/gen-man.sh" "$CTK_BIN" "$BATS_TEST_TMPDIR/man"
        [ "$status" -eq 0 ]
        [ -s "$BATS_TEST_TMPDIR/man/amd-ctk.1" ]
        [ -s "$BATS_TEST_TMPDIR/man/amd-container-runtime.1" ]
        [ -s "$BATS_TEST_TMPDIR/man/amd-ctk-fakefs.1" ]
        for p in "$BATS_TEST_TMPDIR"/man/*.1; do
                [ -z "$(groff -man -Tutf8 -ww -z "$p" 2>&1)" ]
                lexgrog "$p" >/dev/null
        done
}

@test "make install PREFIX=/usr DESTDIR=...: the programs, the full runtime, one man page per command" {
        dest=$BATS_TEST_TMPDIR/dest
        # a make of its own, not a sub-make of the `make check` that runs the tests
        run env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -C "$CTK_REPO" BUILD="${CTK_BIN%/bin}" install PREFIX=/usr DESTDIR="$dest"
        [ "$status" -eq 0 ] || {
                echo "$output"
                return 1
        }
        for b in amd-ctk amd-container-runtime amd-ctk-fakefs; do
                [ -x "$dest/usr/bin/$b" ]
        done
        [ -x "$dest/usr/libexec/amd-container-toolkit/amd-container-runtime-full" ]
        man=$dest/usr/share/man/man1
        want="amd-ctk amd-container-runtime amd-ctk-fakefs"
        for c in $("$CTK_BIN/amd-ctk" --help | ctk_help_commands); do
                want="$want amd-ctk-$c"
                for s in $("$CTK_BIN/amd-ctk" "$c" --help | ctk_help_commands); do
                        want="$want amd-ctk-$c-$s"
                done
        done
        for c in $("$CTK_BIN/amd-ctk-fakefs" --help | ctk_help_commands); do
                want="$want amd-ctk-fakefs-$c"
        done
        [ "$(ls "$man")" = "$(printf '%s.1\n' $want | sort)" ]
        # each page is that command's --help: its usage line is in the page
        usage=$("$CTK_BIN/amd-ctk" gpu list --help | sed -n '/^USAGE:/{n;s/^ *//;p}')
        [ -n "$usage" ]
        grep -qxF -- "$usage" "$man/amd-ctk-gpu-list.1"
        [ "$(stat -c '%a' "$man/amd-ctk-gpu-list.1")" = 644 ]
}
