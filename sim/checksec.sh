#!/bin/sh
# Checks that programs are built hardened, from what readelf and objdump
# show, whether the program still has its symbols or was stripped the way
# the packages strip it:
#   PIE       the ELF type is DYN: a PIE (the default build's dynamic
#             programs) or a static PIE (STATIC=1, the packages')
#   RELRO     a GNU_RELRO segment and BIND_NOW (full RELRO)
#   NX        the GNU_STACK segment is not executable
#   SSP       the stack protector: __stack_chk_fail among the symbols or,
#             stripped (no symbol table), canary reads (%fs:0x28, x86-64)
#             in the code
#   FORTIFY   fortified libc calls: a __*_chk symbol or, stripped, glibc's
#             "buffer overflow detected" failure message
# (In a static program libc's own code counts too, stripped or not.)
#
#   sh sim/checksec.sh [--stripped] PROGRAM...
# One line per program; exits 1 when any check fails, naming it.
# --stripped also judges a copy of each program stripped as the packages
# strip them (packaging/debian/strip-programs), on a line of its own
# ("PROGRAM (stripped): ...").
set -eu
stripped=""
[ "${1:-}" != --stripped ] || { stripped=1 && shift; }
[ $# -gt 0 ] || { echo "usage: sh sim/checksec.sh [--stripped] PROGRAM..." >&2; exit 2; }
for t in readelf objdump; do
        command -v $t >/dev/null || { echo "checksec: $t is missing (binutils)" >&2; exit 2; }
done
here=$(cd "$(dirname "$0")/.." && pwd)

# judge FILE NAME: one line about FILE, shown as NAME; 1 when not hardened
judge() {
        p=$1 name=$2 missing="" have="" symtab=""
        hdr=$(readelf -hlW "$p" 2>/dev/null) || { echo "$name: not an ELF file"; return 1; }
        dyn=$(readelf -dW "$p" 2>/dev/null || true)
        syms=$(readelf -sW "$p" 2>/dev/null || true)
        sections=$(readelf -SW "$p" 2>/dev/null || true)
        echo "$sections" | grep -q ' \.symtab ' && symtab=1
        if echo "$hdr" | grep -q 'Type: *DYN'; then have="$have PIE"; else missing="$missing PIE"; fi
        if echo "$hdr" | grep -q 'GNU_RELRO' && echo "$dyn" | grep -q 'BIND_NOW'; then
                have="$have RELRO"
        else
                missing="$missing RELRO"
        fi
        if echo "$hdr" | grep 'GNU_STACK' | grep -q 'RWE'; then missing="$missing NX"; else have="$have NX"; fi
        if echo "$syms" | grep -q '__stack_chk_fail' ||
                { [ -z "$symtab" ] && echo "$hdr" | grep -q 'Machine: *Advanced Micro Devices X86-64' &&
                        objdump -d --no-show-raw-insn "$p" 2>/dev/null | grep -q '%fs:0x28'; }; then
                have="$have SSP"
        else
                missing="$missing SSP"
        fi
        if echo "$syms" | grep -Eq ' __[a-z0-9_]+_chk(@|$)' ||
                { [ -z "$symtab" ] && grep -aq 'buffer overflow detected' "$p"; }; then
                have="$have FORTIFY"
        else
                missing="$missing FORTIFY"
        fi
        if [ -n "$missing" ]; then
                echo "$name: not hardened:$missing"
                return 1
        fi
        echo "$name:$have"
}

rc=0 tmp=""
if [ -n "$stripped" ]; then
        tmp=$(mktemp -d /tmp/ctk-checksec.XXXXXX)
        trap 'rm -rf "$tmp"' EXIT
fi
i=0
for p in "$@"; do
        judge "$p" "$p" || rc=1
        [ -n "$stripped" ] || continue
        i=$((i + 1))
        mkdir "$tmp/$i"
        copy=$tmp/$i/$(basename "$p")
        if ! { cp "$p" "$copy" && sh "$here/packaging/debian/strip-programs" "$copy"; } 2>/dev/null; then
                echo "$p (stripped): cannot strip a copy"
                rc=1
                continue
        fi
        judge "$copy" "$p (stripped)" || rc=1
done
exit $rc
