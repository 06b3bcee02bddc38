#!/bin/sh
# Checks that programs are built hardened, from what readelf shows:
#   PIE       the ELF type is DYN (position-independent executable)
#   RELRO     a GNU_RELRO segment and BIND_NOW (full RELRO)
#   NX        the GNU_STACK segment is not executable
#   SSP       the stack protector's __stack_chk_fail is linked
#   FORTIFY   at least one fortified libc call (__*_chk) is linked; not
#             for the musl launcher (musl has no fortified functions)
#
#   sh sim/checksec.sh [--skip CHECK,...] PROGRAM...
# One line per program; exits 1 when any check fails, naming it.  --skip
# leaves out checks that cannot hold for these programs (said where the
# programs are built).  A program that needs musl's dynamic loader is not
# counted as PIE: most hosts have none.
set -eu
skip=,
if [ "${1:-}" = --skip ]; then
        skip=",$2,"
        shift 2
fi
[ $# -gt 0 ] || { echo "usage: sh sim/checksec.sh [--skip CHECK,...] PROGRAM..." >&2; exit 2; }
wanted() { case $skip in *",$1,"*) return 1 ;; esac; }
command -v readelf >/dev/null || { echo "checksec: readelf is missing (binutils)" >&2; exit 2; }
rc=0
for p in "$@"; do
        missing=""
        hdr=$(readelf -hlW "$p" 2>/dev/null) || { echo "$p: not an ELF file"; rc=1; continue; }
        dyn=$(readelf -dW "$p" 2>/dev/null || true)
        syms=$(readelf -sW "$p" 2>/dev/null || true)
        have=""
        if wanted PIE; then
                if echo "$hdr" | grep -q 'Type: *DYN' && ! echo "$hdr" | grep -q 'interpreter: /lib/ld-musl'; then
                        have="$have PIE"
                else
                        missing="$missing PIE"
                fi
        fi
        if wanted RELRO; then
                if echo "$hdr" | grep -q 'GNU_RELRO' && echo "$dyn" | grep -q 'BIND_NOW'; then
                        have="$have RELRO"
                else
                        missing="$missing RELRO"
                fi
        fi
        if echo "$hdr" | grep 'GNU_STACK' | grep -q 'RWE'; then missing="$missing NX"; else have="$have NX"; fi
        if echo "$syms" | grep -q '__stack_chk_fail'; then have="$have SSP"; else missing="$missing SSP"; fi
        if wanted FORTIFY; then
                if echo "$syms" | grep -Eq ' __[a-z0-9_]+_chk(@|$)'; then
                        have="$have FORTIFY"
                else
                        missing="$missing FORTIFY"
                fi
        fi
        if [ -n "$missing" ]; then
                echo "$p: not hardened:$missing"
                rc=1
        else
                echo "$p:$have"
        fi
done
exit $rc
