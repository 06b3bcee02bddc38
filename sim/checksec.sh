#!/bin/sh
# Checks that programs are built hardened, from what readelf shows:
#   PIE       the ELF type is DYN (position-independent executable)
#   RELRO     a GNU_RELRO segment and BIND_NOW (full RELRO)
#   NX        the GNU_STACK segment is not executable
#   SSP       the stack protector's __stack_chk_fail is linked
#   FORTIFY   at least one fortified libc call (__*_chk) is linked; not
#             for the musl launcher (musl has no fortified functions)
#
#   sh sim/checksec.sh [--no-fortify] PROGRAM...
# One line per program; exits 1 when any check fails, naming it.
set -eu
fortify=1
if [ "${1:-}" = --no-fortify ]; then
        fortify=0
        shift
fi
[ $# -gt 0 ] || { echo "usage: sh sim/checksec.sh [--no-fortify] PROGRAM..." >&2; exit 2; }
command -v readelf >/dev/null || { echo "checksec: readelf is missing (binutils)" >&2; exit 2; }
rc=0
for p in "$@"; do
        missing=""
        hdr=$(readelf -hlW "$p" 2>/dev/null) || { echo "$p: not an ELF file"; rc=1; continue; }
        dyn=$(readelf -dW "$p" 2>/dev/null || true)
        syms=$(readelf -sW "$p" 2>/dev/null || true)
        echo "$hdr" | grep -q 'Type: *DYN' || missing="$missing PIE"
        { echo "$hdr" | grep -q 'GNU_RELRO' && echo "$dyn" | grep -q 'BIND_NOW'; } || missing="$missing RELRO"
        echo "$hdr" | grep 'GNU_STACK' | grep -q 'RWE' && missing="$missing NX"
        echo "$syms" | grep -q '__stack_chk_fail' || missing="$missing SSP"
        if [ $fortify = 1 ]; then
                echo "$syms" | grep -Eq ' __[a-z0-9_]+_chk(@|$)' || missing="$missing FORTIFY"
        fi
        if [ -n "$missing" ]; then
                echo "$p: not hardened:$missing"
                rc=1
        else
                echo "$p: PIE RELRO NX SSP$([ $fortify = 1 ] && echo ' FORTIFY')"
        fi
done
exit $rc
