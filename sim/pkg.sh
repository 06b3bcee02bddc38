#!/bin/sh
# What the .deb (sim/deb.sh) and the .rpm (sim/rpm.sh) share, so that they
# carry the same programs under the same version:
#
#   sh sim/pkg.sh version       the packages' version, from the git tree the
#                               script is in: a snapshot 0.0~gitDATE.HASH
#                               (the commit's date and short hash; '~' sorts
#                               before anything in dpkg and rpm alike, so a
#                               tagged 0.0 will be newer); outside git,
#                               today's date and 0
#   sh sim/pkg.sh epoch         the commit's time (seconds since 1970; now
#                               outside git): the changelogs' date
#   sh sim/pkg.sh stage DIR     the programs and man pages as the packages
#                               ship them, staged below DIR (make install
#                               DESTDIR=DIR PREFIX=/usr, quietly)
set -eu
cd "$(dirname "$0")/.."
case ${1:-} in
version)
        echo "0.0~git$(git log -1 --format=%cd --date=format:%Y%m%d%H%M%S 2>/dev/null || date +%Y%m%d).$(git rev-parse \
                --short HEAD 2>/dev/null || echo 0)"
        ;;
epoch) git log -1 --format=%ct 2>/dev/null || date +%s ;;
stage)
        [ -n "${2:-}" ] || {
                echo "usage: sh sim/pkg.sh stage DIR" >&2
                exit 2
        }
        make --no-print-directory -s install DESTDIR="$2" PREFIX=/usr >/dev/null
        ;;
*)
        echo "usage: sh sim/pkg.sh version|epoch|stage DIR" >&2
        exit 2
        ;;
esac
