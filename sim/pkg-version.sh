#!/bin/sh
# The packages' version, one for the .deb (sim/deb.sh) and the .rpm
# (sim/rpm.sh), from the git tree the script is in: a snapshot
# 0.0~gitDATE.HASH (the commit's date and short hash; '~' sorts before
# anything in dpkg and rpm alike, so a tagged 0.0 will be newer).  Outside
# git: today's date and 0.
#
#   sh sim/pkg-version.sh            prints the version
#   sh sim/pkg-version.sh --epoch    prints the commit's time (seconds since
#                                    1970; now outside git): the changelogs'
#                                    date
set -eu
cd "$(dirname "$0")/.."
case ${1:-} in
--epoch) git log -1 --format=%ct 2>/dev/null || date +%s ;;
"")
        echo "0.0~git$(git log -1 --format=%cd --date=format:%Y%m%d%H%M%S 2>/dev/null || date +%Y%m%d).$(git rev-parse \
                --short HEAD 2>/dev/null || echo 0)"
        ;;
*)
        echo "usage: sh sim/pkg-version.sh [--epoch]" >&2
        exit 2
        ;;
esac
