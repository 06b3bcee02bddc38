#!/usr/bin/env bats
# The man pages: sim/gen-man.sh asks each program for the page of each of its
# commands (`--help=man`, rendered from the description its parser and --help
# use); every page has NAME, SYNOPSIS, DESCRIPTION, OPTIONS, EXIT STATUS,
# FILES, EXAMPLES and SEE ALSO, passes `mandoc -Tlint` and `groff -ww`
# without a word, and is the page of its own command.  `make install` puts
# them in place, the package ships them.

bats_require_minimum_version 1.5.0

load helpers/common

setup_file() {
        ctk_require_built "$CTK_BIN/amd-ctk" "$CTK_BIN/amd-ctk-fakefs" "$CTK_BIN/amd-container-runtime" || return 1
        export MAN="$BATS_FILE_TMPDIR/man"
        sh "$CTK_REPO/sim/gen-man.sh" "$CTK_BIN" "$MAN" >"$BATS_FILE_TMPDIR/gen-man.out"
}

# The pages the programs' help implies, "NAME<TAB>command path", one per
# program and command.
expected_pages() {
        local c s
        printf 'amd-ctk\tamd-ctk\n'
        for c in $("$CTK_BIN/amd-ctk" --help | ctk_help_commands); do
                printf 'amd-ctk-%s\tamd-ctk %s\n' "$c" "$c"
                for s in $("$CTK_BIN/amd-ctk" "$c" --help | ctk_help_commands); do
                        printf 'amd-ctk-%s-%s\tamd-ctk %s %s\n' "$c" "$s" "$c" "$s"
                done
        done
        printf 'amd-container-runtime\tamd-container-runtime\n'
        printf 'amd-ctk-fakefs\tamd-ctk-fakefs\n'
        for c in $("$CTK_BIN/amd-ctk-fakefs" --help | ctk_help_commands); do
                printf 'amd-ctk-fakefs-%s\tamd-ctk-fakefs %s\n' "$c" "$c"
        done
}

@test "one page per program, command and subcommand" {
        want=$(expected_pages | cut -f1 | sort)
        [ "$(ls "$MAN" | sort)" = "$(sed 's/$/.1/' <<<"$want" | sort)" ]
        [ "$(cat "$BATS_FILE_TMPDIR/gen-man.out")" = "gen-man: $(wc -l <<<"$want") pages in $MAN" ]
        [ "$(wc -l <<<"$want")" -ge 26 ]
        for p in "$MAN"/*.1; do
                [ "$(stat -c %a "$p")" = 644 ]
        done
}

@test "every page has the eight sections, in order, and passes mandoc -Tlint and groff -ww silently" {
        for p in "$MAN"/*.1; do
                want=$(printf '%s\n' NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" FILES EXAMPLES "SEE ALSO")
                # (and COMMANDS for a group, ENVIRONMENT; a program's options are its global options)
                got=$(sed 's/^GLOBAL OPTIONS$/OPTIONS/' <<<"$(grep '^\.SH ' "$p" | sed 's/^\.SH //' |
                        grep -Ev '^(COMMANDS|ENVIRONMENT)$')")
                [ "$got" = "$want" ] || {
                        echo "$(basename "$p"): sections $got"
                        return 1
                }
                out=$(mandoc -Tlint "$p" 2>&1) || true
                [ -z "$out" ] || {
                        echo "mandoc -Tlint $(basename "$p"): $out"
                        return 1
                }
                [ -z "$(groff -man -Tutf8 -ww -z "$p" 2>&1)" ]
                lexgrog "$p" >/dev/null
        done
}

@test "each page is its own command's: NAME, SYNOPSIS and options of that command" {
        while IFS=$'\t' read -r name path; do
                p=$MAN/$name.1
                esc=$(sed 's/-/\\-/g' <<<"$name")
                [[ "$(sed -n '/^\.SH NAME$/{n;p}' "$p")" == "$esc \\- "* ]] || {
                        echo "$name.1: NAME is $(sed -n '/^\.SH NAME$/{n;p}' "$p")"
                        return 1
                }
                # SYNOPSIS: the program, then the command's path (but for a usage written out whole)
                grep -q '^\.nf$' <(sed -n '/^\.SH SYNOPSIS$/,/^\.SH DESCRIPTION$/p' "$p") && continue
                words=$(sed -n '/^\.SH SYNOPSIS$/,/^\.SH /p' "$p" | sed -n 's/^\.B //p' | sed 's/\\-/-/g' | tr '\n' ' ')
                [ "$words" = "$path " ] || {
                        echo "$name.1: SYNOPSIS names '$words', not '$path'"
                        return 1
                }
        done < <(expected_pages)
        # config show's page is config show's, not its parent's (the old generator's bug)
        show=$MAN/amd-ctk-config-show.1
        [ "$(sed -n '/^\.SH NAME$/,/^\.SH /p' "$show" | sed '1d;$d' | tr '\n' ' ')" = \
                'amd\-ctk\-config\-show \- check the configuration file and print the configuration in effect ' ]
        ! grep -q '^\.SH COMMANDS' "$show"
        # the options of the command, as its --help lists them
        for opt in $("$CTK_BIN/amd-ctk" cdi generate --help | sed -n '/^OPTIONS:/,$p' | grep -o -- '--[a-z-]*' | sort -u); do
                grep -qF "\\fB$(sed 's/-/\\-/g' <<<"$opt")\\fR" "$MAN/amd-ctk-cdi-generate.1" || {
                        echo "$opt missing from amd-ctk-cdi-generate.1"
                        return 1
                }
        done
        # the GPU tracker's page keeps its document's usage
        grep -qx 'amd\\-ctk gpu\\-tracker [[]gpu\\-ids] [[]accessibility]' "$MAN/amd-ctk-gpu-tracker.1"
}

@test "SEE ALSO names pages that exist (or the engines'), hyphens escaped, none of them broken" {
        for p in "$MAN"/*.1; do
                refs=$(sed -n '/^\.SH SEE ALSO$/,$p' "$p" | sed -n 's/^\.BR \(.*\) (\([0-9]\)),\{0,1\}$/\1 \2/p')
                [ -n "$refs" ]
                while read -r ref sec; do
                        name=$(sed 's/\\-/-/g' <<<"$ref")
                        [[ "$ref" != *-* || "$ref" == *'\-'* ]] && [[ "$(sed 's/\\-//g' <<<"$ref")" != *-* ]] || {
                                echo "$(basename "$p"): '$ref' has an unescaped hyphen"
                                return 1
                        }
                        [ -e "$MAN/$name.$sec" ] || [[ "$name" =~ ^(runc|crun|docker-run|podman-run|podman|dockerd|containerd|crio|fusermount3)$ ]] || {
                                echo "$(basename "$p"): SEE ALSO $name($sec) is no page"
                                return 1
                        }
                done <<<"$refs"
        done
        # the parent and the subcommands
        sed -n '/^\.SH SEE ALSO$/,$p' "$MAN/amd-ctk-cdi.1" | grep -qx '\.BR amd\\-ctk (1),'
        sed -n '/^\.SH SEE ALSO$/,$p' "$MAN/amd-ctk-cdi.1" | grep -qx '\.BR amd\\-ctk\\-cdi\\-generate (1),'
        sed -n '/^\.SH SEE ALSO$/,$p' "$MAN/amd-ctk-cdi-generate.1" | grep -qx '\.BR amd\\-ctk\\-cdi (1),'
}

# Fake programs, to check how gen-man.sh reports a program it cannot use.
make_fake_bin() {
        local bin=$1
        mkdir -p "$bin"
        cp "$CTK_BIN"/amd-ctk "$CTK_BIN"/amd-ctk-fakefs "$bin/"
        printf '#!/bin/sh\necho "NAME:"\n' >"$bin/amd-container-runtime"
        chmod +x "$bin"/*
}

@test "gen-man fails clearly when a program is missing, or prints no page" {
        make_fake_bin "$BATS_TEST_TMPDIR/bin"
        run sh "$CTK_REPO/sim/gen-man.sh" "$BATS_TEST_TMPDIR/bin" "$BATS_TEST_TMPDIR/man"
        [ "$status" -ne 0 ]
        [ "${lines[-1]}" = "gen-man: '$BATS_TEST_TMPDIR/bin/amd-container-runtime --help=man' printed no man page" ]
        rm "$BATS_TEST_TMPDIR/bin/amd-ctk-fakefs"
        ln -s "$CTK_BIN/amd-container-runtime" "$BATS_TEST_TMPDIR/bin/rt" && mv "$BATS_TEST_TMPDIR/bin/rt" "$BATS_TEST_TMPDIR/bin/amd-container-runtime"
        run sh "$CTK_REPO/sim/gen-man.sh" "$BATS_TEST_TMPDIR/bin" "$BATS_TEST_TMPDIR/man"
        [ "$status" -ne 0 ]
        [ "${lines[-1]}" = "gen-man: $BATS_TEST_TMPDIR/bin/amd-ctk-fakefs is not an executable (build it first)" ]
        [ -z "$(find "$BATS_TEST_TMPDIR/man" -name '*.tmp')" ]
}

@test "make install PREFIX=/usr DESTDIR=...: the programs and the pages; nothing outside DESTDIR" {
        [ "$(id -u)" -eq 0 ] || skip "needs root (a private mount namespace with /var as an overlay)"
        dest=$BATS_TEST_TMPDIR/dest
        mkdir -p "$BATS_TEST_TMPDIR"/{var,etc}-{up,work}
        # a make of its own, not a sub-make of the `make check` that runs the tests; /etc and /var as
        # overlays whose writes land here (the runtime's log was one)
        # shellcheck disable=SC2016
        run unshare --mount --propagation private sh -ec '
                for d in etc var; do
                        mount -t overlay overlay -o "lowerdir=/$d,upperdir=$1/$d-up,workdir=$1/$d-work" "/$d"
                done
                env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -C "$2" BUILD="$3" install \
                        PREFIX=/usr DESTDIR="$4"' sh "$BATS_TEST_TMPDIR" "$CTK_REPO" "${CTK_BIN%/bin}" "$dest"
        [ "$status" -eq 0 ] || {
                echo "exit status $status: $output"
                return 1
        }
        [ -z "$(find "$BATS_TEST_TMPDIR/var-up" "$BATS_TEST_TMPDIR/etc-up" -mindepth 1)" ]
        for b in amd-ctk amd-container-runtime amd-ctk-fakefs; do
                [ -x "$dest/usr/bin/$b" ]
        done
        [ ! -e "$dest/usr/libexec" ]
        [ "$(ls "$dest/usr/share/man/man1")" = "$(ls "$MAN")" ]
        cmp "$dest/usr/share/man/man1/amd-ctk-gpu-list.1" "$MAN/amd-ctk-gpu-list.1"
}
