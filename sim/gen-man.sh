#!/bin/sh
# Generates man pages (roff, section 1) from the programs' own --help output,
# so the pages never disagree with the binaries:
#   amd-ctk.1, amd-ctk-<command>.1 (and amd-ctk-<command>-<sub>.1 for the
#   subcommands a command's help lists), amd-container-runtime.1,
#   amd-ctk-fakefs.1.
# Usage: sh sim/gen-man.sh BINDIR MANDIR      (used by `make install`)
# SOURCE_DATE_EPOCH, when set, fixes the date in the pages.
set -eu

[ $# -eq 2 ] || {
        echo "usage: $0 BINDIR MANDIR" >&2
        exit 2
}
BINDIR=$1
MANDIR=$2
mkdir -p "$MANDIR"

if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
        DATE=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)
else
        DATE=$(date -u +%Y-%m-%d)
fi
VERSION=$("$BINDIR/amd-ctk" version 2>/dev/null | sed -n 's/^Version: *//p' | head -n1) || true
VERSION=${VERSION:-unknown}
LIST=$(mktemp)
trap 'rm -f "$LIST" "$MANDIR"/*.1.tmp' EXIT

# Escapes help text for roff: backslashes, and lines starting with . or '.
roff_escape() {
        sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"
}

# help_to_roff NAME DESCRIPTION: --help text on stdin -> page on stdout.
# "SECTION:" / "Section:" lines become .SH (NAME is replaced by ours), a first
# "Usage: ..." line becomes SYNOPSIS, text before any header DESCRIPTION;
# each section's text stays preformatted.
help_to_roff() {
        printf '.TH %s 1 "%s" "amd-container-toolkit %s" "User Commands"\n' \
                "$(echo "$1" | tr '[:lower:]' '[:upper:]')" "$DATE" "$VERSION"
        printf '.SH NAME\n%s \\- %s\n' "$1" "$(printf '%s\n' "$2" | roff_escape)"
        roff_escape | awk '
                function header(name) {
                        if (open) print ".fi"
                        open = 0; blank = 0; section = name
                        skip = (name == "NAME")
                        if (!skip) print ".SH " name
                }
                NR == 1 && /^Usage: / { header("SYNOPSIS"); sub(/^Usage: +/, "   ") }
                /^[A-Z][A-Za-z ]*:$/ { header(toupper(substr($0, 1, length($0) - 1))); next }
                section == "" && !/^[ \t]*$/ { header("DESCRIPTION") }
                skip { next }
                /^[ \t]*$/ { blank++; next }
                !open { print ".nf"; open = 1; blank = 0 }
                {
                        for (; blank > 0; blank--) print ""
                        sub(/^   /, "")
                        if ($0 ~ /^[.\047]/) $0 = "\\&" $0 # a control character once unindented
                        print
                }
                END { if (open) print ".fi" }'
}

# page NAME DESCRIPTION CMD...: writes MANDIR/NAME.1 from `CMD --help`.
page() {
        name=$1
        desc=$2
        shift 2
        [ -x "$1" ] || {
                echo "gen-man: $1 is not an executable (build it first)" >&2
                exit 1
        }
        help=$("$@" --help 2>&1) || true
        [ -n "$help" ] || {
                echo "gen-man: '$* --help' printed nothing" >&2
                exit 1
        }
        printf '%s\n' "$help" | help_to_roff "$name" "$desc" >"$MANDIR/$name.1.tmp"
        mv "$MANDIR/$name.1.tmp" "$MANDIR/$name.1"
        chmod 0644 "$MANDIR/$name.1"
        printf '%s %s\n' "$name" "${PARENT:--}" >>"$LIST"
}

# The runtime is a shim: its --help is the low-level runtime's (runc's) help.
# Its page is our own text (sim/man/) followed by that help; should the
# runtime print a help of its own, that help is used like any other.
runtime_page() {
        bin=$BINDIR/amd-container-runtime desc="OCI runtime that gives containers AMD GPUs, over runc or crun"
        help=$("$bin" --help 2>&1) || true
        if printf '%s\n' "$help" | grep -q 'amd-container-runtime'; then
                page amd-container-runtime "$desc" "$bin"
                return
        fi
        [ -x "$bin" ] && [ -n "$help" ] || page amd-container-runtime "$desc" "$bin" # reports the problem
        {
                printf '.TH AMD-CONTAINER-RUNTIME 1 "%s" "amd-container-toolkit %s" "User Commands"\n' "$DATE" "$VERSION"
                printf '.SH NAME\namd-container-runtime \\- %s\n' "$desc"
                cat "$(dirname "$0")/man/amd-container-runtime.roff"
                printf '.SH LOW-LEVEL RUNTIME\nAll other arguments are the low-level runtime'"'"'s; its help follows.\n'
                printf '.PP\n.nf\n'
                printf '%s\n' "$help" | roff_escape
                printf '.fi\n'
        } >"$MANDIR/amd-container-runtime.1.tmp"
        mv "$MANDIR/amd-container-runtime.1.tmp" "$MANDIR/amd-container-runtime.1"
        chmod 0644 "$MANDIR/amd-container-runtime.1"
        echo "amd-container-runtime -" >>"$LIST"
}

# commands HELP_TEXT: "name<TAB>summary" for each entry of its COMMANDS
# section ("   name, alias   summary"); the help command is left out.
commands() {
        printf '%s\n' "$1" | awk '
                /^[A-Z][A-Za-z ]*:$/ { in_cmds = (toupper($0) == "COMMANDS:"); next }
                in_cmds && /^ +[a-z]/ {
                        name = $1; sub(/,$/, "", name)
                        if (name == "help") next
                        summary = $0; sub(/^ *[^ ,]+(, *[^ ,]+)* */, "", summary)
                        print name "\t" summary
                }'
}

# tree NAME DESCRIPTION DEPTH CMD...: the page of CMD, then (DEPTH levels
# down) one page per command its help lists: NAME-COMMAND.1.
tree() {
        local name="$1" desc="$2" depth="$3" tab PARENT="${PARENT:--}"
        shift 3
        page "$name" "$desc" "$@"
        [ "$depth" -gt 0 ] || return 0
        PARENT=$name
        tab=$(printf '\t')
        commands "$("$@" --help 2>&1 || true)" | while IFS="$tab" read -r cmd summary; do
                tree "$name-$cmd" "${summary:-$name $cmd}" $((depth - 1)) "$@" "$cmd"
        done
}

tree amd-ctk "configure the AMD Container Toolkit" 2 "$BINDIR/amd-ctk"
runtime_page
tree amd-ctk-fakefs "serve a simulated GPU host (sysfs and /dev) from a JSON profile" 1 "$BINDIR/amd-ctk-fakefs"

# SEE ALSO: the top-level pages, the page's parent and its subcommands.
related() {
        awk -v p="$1" 'NR == FNR { if ($1 == p) parent = $2; next }
                $1 != p && ($2 == "-" || $2 == p || $1 == parent) { print $1 }' "$LIST" "$LIST" | sort -u
}
for p in $(cut -d' ' -f1 "$LIST"); do
        {
                echo ".SH SEE ALSO"
                related "$p" | sed -e 's/^/.BR /' -e 's/$/ (1),/' -e '$s/,$//'
        } >>"$MANDIR/$p.1"
done
echo "gen-man: $(wc -l <"$LIST") pages in $MANDIR"
