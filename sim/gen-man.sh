#!/bin/sh
# Writes the man pages (section 1) of the three programs into MANDIR.  Each
# program renders the page of each of its commands itself (`--help=man`,
# core/base/cmdline_man.c) from the one description of that command that its
# parser and its --help use too, so a page never disagrees with the program:
#   amd-ctk.1, amd-ctk-COMMAND.1, amd-ctk-COMMAND-SUB.1 (each command its
#   --help lists), amd-container-runtime.1, amd-ctk-fakefs.1,
#   amd-ctk-fakefs-COMMAND.1.
# Usage: sh sim/gen-man.sh BINDIR MANDIR      (used by `make install`)
set -eu

[ $# -eq 2 ] || {
        echo "usage: $0 BINDIR MANDIR" >&2
        exit 2
}
BINDIR=$1
MANDIR=$2
mkdir -p "$MANDIR"
LIST=$(mktemp)
trap 'rm -f "$LIST" "$MANDIR"/*.1.tmp' EXIT

# page NAME CMD...: MANDIR/NAME.1 from `CMD --help=man`.
page() {
        name=$1
        shift
        [ -x "$1" ] || {
                echo "gen-man: $1 is not an executable (build it first)" >&2
                exit 1
        }
        "$@" --help=man >"$MANDIR/$name.1.tmp" 2>/dev/null || true
        head -n 1 "$MANDIR/$name.1.tmp" | grep -q '^\.TH ' || {
                echo "gen-man: '$* --help=man' printed no man page" >&2
                exit 1
        }
        mv "$MANDIR/$name.1.tmp" "$MANDIR/$name.1"
        chmod 0644 "$MANDIR/$name.1"
        echo "$name" >>"$LIST"
}

# commands HELP_TEXT: the names in its COMMANDS section ("   name   summary",
# "   name, alias   summary"), the help command left out.
commands() {
        printf '%s\n' "$1" | awk '
                /^[A-Z][A-Za-z ]*:$/ { in_cmds = ($0 == "COMMANDS:"); next }
                in_cmds && /^ +[a-z]/ { sub(/,$/, "", $1); if ($1 != "help") print $1 }'
}

# tree NAME DEPTH CMD...: the page of CMD, then (DEPTH levels down) one page
# per command its help lists, NAME-COMMAND.1.
tree() {
        name=$1 depth=$2
        shift 2
        page "$name" "$@"
        [ "$depth" -gt 0 ] || return 0
        for cmd in $(commands "$("$@" --help 2>/dev/null || true)"); do
                (tree "$name-$cmd" $((depth - 1)) "$@" "$cmd") # (a subshell: sh has no local variables)
        done
}

tree amd-ctk 2 "$BINDIR/amd-ctk"
page amd-container-runtime "$BINDIR/amd-container-runtime"
tree amd-ctk-fakefs 1 "$BINDIR/amd-ctk-fakefs"
echo "gen-man: $(wc -l <"$LIST") pages in $MANDIR"
