#!/bin/sh
# Builds a Debian root once, for the tests that need another release's
# packages (engines, package installs):
#
#   sh sim/roots.sh NAME SUITE PACKAGE... [--files-of PACKAGE...]
#                   [--from SUITE2 PACKAGE...]
#
# Packages after --files-of are only unpacked into the root (dpkg-deb -x):
# no dependencies, no maintainer scripts, for the files they ship (the CRI
# api.proto of a Go -dev package whose dependencies are 400 MB of sources).
# Packages after --from SUITE2 are installed afterwards with the root's apt
# from SUITE2 (experimental over sid: newer engines), their dependencies
# from SUITE where it has them; SUITE2 stays in the root's sources.  apt
# there ignores the Releases' Valid-Until (sid's on the archive can be past
# it) and starts no service (a policy-rc.d while it runs).
# The root is DIR=$ROOTS_DIR/NAME (default build/roots/NAME).  A root is
# reused when DIR/.ctk-root names the same suite and packages (written last,
# so an interrupted build is never taken for a complete one), and rebuilt
# otherwise.  Prints DIR.  The mirror is the one apt uses on this machine
# (debootstrap's default when none is found).
set -eu
[ $# -ge 2 ] || { echo "usage: sh sim/roots.sh NAME SUITE [PACKAGE...] [--files-of PACKAGE...] [--from SUITE2 PACKAGE...]" >&2; exit 2; }
name=$1 suite=$2
shift 2
pkgs="" files_of="" from="" from_pkgs="" list=pkgs
for p in "$@"; do
        if [ "$p" = --files-of ]; then
                list=files_of
        elif [ "$p" = --from ]; then
                list=from
        elif [ $list = pkgs ]; then
                pkgs="$pkgs $p"
        elif [ $list = files_of ]; then
                files_of="$files_of $p"
        elif [ -z "$from" ]; then
                from=$p
        else
                from_pkgs="$from_pkgs $p"
        fi
done
# shellcheck disable=SC2086 # the lists split into their names
pkgs=$(printf '%s\n' $pkgs | sort -u | tr '\n' ',' | sed 's/^,//; s/,$//')
# shellcheck disable=SC2086
files_of=$(printf '%s\n' $files_of | sort -u | tr '\n' ' ' | sed 's/^ //; s/ $//')
# shellcheck disable=SC2086
from_pkgs=$(printf '%s\n' $from_pkgs | sort -u | tr '\n' ' ' | sed 's/^ //; s/ $//')
dir=${ROOTS_DIR:-build/roots}/$name
stamp="suite=$suite packages=$pkgs${files_of:+ files-of=$files_of}${from:+ from $from=$from_pkgs}"
if [ -f "$dir/.ctk-root" ] && [ "$(cat "$dir/.ctk-root")" = "$stamp" ]; then
        echo "$dir"
        exit 0
fi
# one build at a time (a second caller waits, then finds the root built)
mkdir -p "$(dirname "$dir")"
if [ -z "${CTK_ROOTS_LOCKED:-}" ] && command -v flock >/dev/null; then
        CTK_ROOTS_LOCKED=1 exec flock "$dir.lock" sh "$0" "$name" "$suite" "$@"
fi
if [ -f "$dir/.ctk-root" ] && [ "$(cat "$dir/.ctk-root")" = "$stamp" ]; then
        echo "$dir"
        exit 0
fi
if [ "$(id -u)" != 0 ]; then
        echo "roots: building $dir needs root (debootstrap)" >&2
        exit 1
fi
command -v debootstrap >/dev/null || { echo "roots: debootstrap is missing: run make deps" >&2; exit 1; }

mirror=""
for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        mirror=$(awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i ~ /\/debian\/?$/) { print $i; exit } }' "$f")
        [ -n "$mirror" ] && break
done
if [ -z "$mirror" ] && [ -f /etc/apt/sources.list ]; then
        mirror=$(awk '$1 == "deb" && $2 !~ /^\[/ && $2 ~ /\/debian\/?$/ { print $2; exit }' /etc/apt/sources.list)
fi

# a half-built root (an interrupted run, a failed try): unmount whatever is
# left in it, remove it
clean_dir() {
        [ -d "$dir" ] || return 0
        grep -F " $(realpath "$dir")/" /proc/mounts | awk '{print $2}' | sort -r | while read -r m; do
                umount -l "$m" 2>/dev/null || true
        done
        rm -rf "$dir"
}
clean_dir
mkdir -p "$(dirname "$dir")"
log=$(mktemp)
echo "roots: building $dir ($suite: $pkgs)" >&2
# a download the archive fails now and then is tried again, from scratch
tries=0
# shellcheck disable=SC2086
until debootstrap --variant=minbase ${pkgs:+--include="$pkgs"} "$suite" "$dir" $mirror >"$log" 2>&1; do
        tries=$((tries + 1))
        if [ $tries -ge 3 ]; then
                tail -20 "$log" >&2
                rm -f "$log"
                echo "roots: debootstrap of $suite into $dir failed 3 times (log above)" >&2
                exit 1
        fi
        echo "roots: debootstrap failed, trying again ($(grep '^E:' "$log" | tail -n 1))" >&2
        clean_dir
done
rm -f "$log"
# apt-get of the root fetches them (its lists are debootstrap's, checked
# against the suite's signed Release)
for p in $files_of; do
        chroot "$dir" sh -c 'cd /tmp && apt-get -q download "$1"' sh "$p" >/dev/null &&
                dpkg-deb -x "$dir/tmp/${p}_"*.deb "$dir" &&
                rm -f "$dir/tmp/${p}_"*.deb || {
                echo "roots: could not fetch and unpack $p into $dir" >&2
                exit 1
        }
done
if [ -n "$from" ]; then
        apt_log=$(mktemp)
        # shellcheck disable=SC2046,SC2086 # the list splits into its names
        if ! {
                awk -v s="$suite" -v f="$from" '$1 == "deb" && $3 == s { $3 = f; print }' "$dir/etc/apt/sources.list" \
                        >"$dir/etc/apt/sources.list.d/$from.list" &&
                        [ -s "$dir/etc/apt/sources.list.d/$from.list" ] &&
                        printf '#!/bin/sh\nexit 101\n' >"$dir/usr/sbin/policy-rc.d" && chmod 0755 "$dir/usr/sbin/policy-rc.d" &&
                        chroot "$dir" apt-get -q -o Acquire::Check-Valid-Until=false update &&
                        chroot "$dir" env DEBIAN_FRONTEND=noninteractive apt-get -q -y --no-install-recommends \
                                -o Acquire::Check-Valid-Until=false install \
                                $(printf '%s\n' $from_pkgs | sed "s|\$|/$from|") &&
                        chroot "$dir" apt-get clean && rm -f "$dir/usr/sbin/policy-rc.d"
        } >"$apt_log" 2>&1; then
                tail -20 "$apt_log" >&2
                rm -f "$apt_log"
                echo "roots: could not install $from_pkgs from $from into $dir (log above)" >&2
                exit 1
        fi
        rm -f "$apt_log"
fi
printf '%s\n' "$stamp" >"$dir/.ctk-root"
echo "$dir"
