# Printing helpers for sim/sim.sh: sections, commands shown with a "$ "
# prompt before their output, expected failures, and pieces that are not
# built yet. Unexpected results are counted in DEMO_FAILURES.

DEMO_FAILURES=0
DEMO_SECTION=0
DEMO_UNAVAILABLE=0
if [ -t 1 ]; then
        C_HEAD=$'\033[1m' C_CMD=$'\033[36m' C_NA=$'\033[33m' C_OFF=$'\033[0m'
else
        C_HEAD= C_CMD= C_NA= C_OFF=
fi

# demo_section TITLE [TEXT...]: a numbered header, then each TEXT as a line.
demo_section() {
        DEMO_SECTION=$((DEMO_SECTION + 1))
        printf '\n%s== %d. %s%s\n' "$C_HEAD" "$DEMO_SECTION" "$1" "$C_OFF"
        shift
        [ $# -eq 0 ] || printf '%s\n' "$@"
}

demo_say() {
        printf '%s\n' "$@"
}

# demo_quote WORD...: the words as a user would type them.
demo_quote() {
        local w out=
        for w in "$@"; do
                case "$w" in
                *[!A-Za-z0-9_./:=,+@%-]* | '') w="'${w//\'/\'\\\'\'}'" ;;
                esac
                out="$out${out:+ }$w"
        done
        printf '%s\n' "$out"
}

# demo_prompt CMD...: prints "$ CMD" (for commands run some other way).
demo_prompt() {
        printf '%s$ %s%s\n' "$C_CMD" "$(demo_quote "$@")" "$C_OFF"
}

# demo_run CMD...: prints "$ CMD", runs it and prints its output (stderr
# into stdout; also kept in DEMO_OUT); a non-zero exit is reported and counted.
demo_run() {
        demo_prompt "$@"
        local rc
        DEMO_OUT=$("$@" 2>&1) && rc=0 || rc=$?
        [ -z "$DEMO_OUT" ] || printf '%s\n' "$DEMO_OUT"
        if [ $rc -ne 0 ]; then
                printf '!! unexpected exit status %d\n' "$rc"
                DEMO_FAILURES=$((DEMO_FAILURES + 1))
        fi
        return $rc
}

# demo_fails CMD...: like demo_run for a command that must fail.
demo_fails() {
        demo_prompt "$@"
        local rc
        DEMO_OUT=$("$@" 2>&1) && rc=0 || rc=$?
        [ -z "$DEMO_OUT" ] || printf '%s\n' "$DEMO_OUT"
        if [ $rc -eq 0 ]; then
                printf '!! this command should have failed\n'
                DEMO_FAILURES=$((DEMO_FAILURES + 1))
                return 1
        fi
        printf '(exit status %d, as expected)\n' "$rc"
}

# demo_unavailable WHAT: the piece is not built yet; the demo goes on.
demo_unavailable() {
        printf '%s-- not available yet: %s%s\n' "$C_NA" "$*" "$C_OFF"
        DEMO_UNAVAILABLE=$((DEMO_UNAVAILABLE + 1))
}
