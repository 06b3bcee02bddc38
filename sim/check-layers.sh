#!/bin/sh
# The include direction of core/ (ARCHITECTURE.md), checked on every C file:
#
#   base <- json <- config, device <- oci, tracker <- cdi <- engines
#
# * a folder of core/ uses its own headers by bare name, and of the folders
#   below it only their one public header, core/F/F.h;
# * everything outside core/ (ctk, runtime, backends, sim) includes only
#   those public headers; tests (*/tests/, and sim/bench/, built like them)
#   may also include their own folder's headers and the test helpers of any
#   folder (core/F/tests/*.h).
# Prints one line per include against the direction; exits 1 if any.
#
#   sh sim/check-layers.sh [DIR]     (DIR: a git work tree, default this one)
set -eu
cd "${1:-$(dirname "$0")/..}"

allowed() { # allowed FOLDER: the folders it may include
        case $1 in
        base) echo "" ;;
        json) echo "base" ;;
        config | device) echo "base json" ;;
        oci | tracker) echo "base json device" ;;
        cdi) echo "base json device oci" ;;
        engines) echo "base json config device oci tracker cdi" ;;
        *) echo "?" ;;
        esac
}

report() {
        echo "$1:$2: $3"
        bad=1
}

for f in $(git ls-files '*.c' '*.h'); do
        case $f in
        core/*/tests/*) folder=${f#core/}; folder=${folder%%/*}; kind=coretest ;;
        core/*/*) folder=${f#core/}; folder=${folder%%/*}; kind=core ;;
        */tests/* | sim/bench/*) folder=; kind=test ;;
        *) folder=; kind=other ;;
        esac
        if [ -n "$folder" ] && [ "$(allowed "$folder")" = "?" ]; then
                report "$f" 1 "core/$folder is not a known folder of core/ (add it to sim/check-layers.sh and ARCHITECTURE.md)"
                continue
        fi
        grep -n '^#include "' "$f" | sed 's/^\([0-9]*\):#include "\([^"]*\)".*/\1 \2/' | while read -r line inc; do
                case $inc in
                core/*/tests/*.h)
                        case $kind in
                        test | coretest) ;;
                        *) report "$f" "$line" "includes the test helper $inc outside a tests/ folder" ;;
                        esac
                        continue
                        ;;
                core/*/*.h)
                        to=${inc#core/}
                        to=${to%%/*}
                        if [ "$kind" = coretest ] && [ "$to" = "$folder" ]; then
                                continue
                        fi
                        if [ "$inc" != "core/$to/$to.h" ]; then
                                report "$f" "$line" "includes $inc: outside core/$to use its public header core/$to/$to.h"
                                continue
                        fi
                        if [ -n "$folder" ]; then
                                if [ "$to" = "$folder" ]; then
                                        [ "$kind" = coretest ] ||
                                                report "$f" "$line" "includes its own folder's $inc by path: use \"$to.h\""
                                        continue
                                fi
                                case " $(allowed "$folder") " in
                                *" $to "*) ;;
                                *) report "$f" "$line" "core/$folder may not include core/$to (against the direction)" ;;
                                esac
                        fi
                        ;;
                core/*)
                        report "$f" "$line" "includes $inc: core/ headers live in its folders (core/F/F.h)"
                        ;;
                esac
        done
done >"${TMPDIR:-/tmp}/ctk-layers.$$"
if [ -s "${TMPDIR:-/tmp}/ctk-layers.$$" ]; then
        cat "${TMPDIR:-/tmp}/ctk-layers.$$"
        rm -f "${TMPDIR:-/tmp}/ctk-layers.$$"
        echo "layers: includes against the direction of core/ (see ARCHITECTURE.md)"
        exit 1
fi
rm -f "${TMPDIR:-/tmp}/ctk-layers.$$"
echo "layers: ok"
