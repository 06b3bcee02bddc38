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
#   sh sim/pkg.sh build         the programs as the packages ship them:
#                               linked statically, so that one package
#                               serves every release (make STATIC=1
#                               BUILD=PKG_BUILD programs; PKG_BUILD default
#                               BUILD/static, BUILD default build), one such
#                               build at a time (bats files side by side
#                               share it: a lock beside PKG_BUILD)
#   sh sim/pkg.sh stage DIR     the programs and man pages as the packages
#                               ship them, staged below DIR (make install
#                               STATIC=1 BUILD=PKG_BUILD DESTDIR=DIR
#                               PREFIX=/usr, quietly, under the same lock)
set -eu
cd "$(dirname "$0")/.."
PKG_BUILD=${PKG_BUILD:-${BUILD:-build}/static}
# static_make ARG...: make STATIC=1 in PKG_BUILD, under its lock
static_make() {
        mkdir -p "$(dirname "$PKG_BUILD")"
        flock "$PKG_BUILD.lock" "${MAKE:-make}" --no-print-directory -s STATIC=1 BUILD="$PKG_BUILD" "$@"
}
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
        static_make install DESTDIR="$2" PREFIX=/usr >/dev/null
        ;;
build) static_make programs ;;
*)
        echo "usage: sh sim/pkg.sh version|epoch|build|stage DIR" >&2
        exit 2
        ;;
esac
