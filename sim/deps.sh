#!/bin/sh
# Installs the Debian packages needed to build and test the project.
# Idempotent and fast when everything is present; as non-root it only prints
# the command to run.
#
# Installing docker.io, containerd or podman must not leave the machine
# running (or starting at the next boot) engines it did not run before: a
# package's maintainer scripts enable its units (symlinks below
# /etc/systemd) and start them.  So the install runs with a policy-rc.d that
# forbids starting anything (invoke-rc.d and deb-systemd-invoke ask it), and
# afterwards every symlink the install added below /etc/systemd is removed
# again (a changed one is put back): the units are as enabled as before,
# whether systemd runs or not.  Where systemd runs, it is reloaded, and a
# unit the install started anyway (a maintainer script calling systemctl
# itself) is stopped.  deb-systemd-helper keeps its record that it enabled
# them once, so an upgrade of the package does not enable them either.
set -eu
PKGS="build-essential pkg-config libjansson-dev libyaml-dev libfuse3-dev fuse3 libseccomp-dev libcmocka-dev
bats lcov busybox-static musl-tools debootstrap lintian cppcheck clang clang-tidy libclang-rt-14-dev docker.io runc containerd podman python3-jsonschema clang-format mandoc"
# commands the scripts and tests run: jq, file, groff and lexgrog (man
# pages), git, ip, ps/pgrep/pkill, python3 (tomllib), dpkg-shlibdeps, GNU
# parallel (bats runs files side by side with it), rpmbuild, rpm, rpm2cpio,
# rpmlint and cpio (make rpm and its tests)
PKGS="$PKGS jq file groff-base man-db git iproute2 procps python3 dpkg-dev parallel rpm rpmlint cpio"
POLICY=/usr/sbin/policy-rc.d
missing=""
for p in $PKGS; do
        st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
        case "$st" in
        *"install ok installed"*) ;;
        *) missing="$missing $p" ;;
        esac
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
        echo "missing packages:$missing"
        echo "run as root: apt-get update && apt-get install -y$missing"
        exit 0
fi
echo "installing:$missing"

work=$(mktemp -d /tmp/ctk-deps.XXXXXX)
saved=$POLICY.ctk-deps-saved
# a run killed during the install left the machine's own policy aside
[ ! -e "$saved" ] || mv -f "$saved" "$POLICY"
ours=0 # (policy-rc.d is ours)
restore_policy() {
        [ $ours = 1 ] || return 0
        rm -f "$POLICY"
        [ ! -e "$saved" ] || mv -f "$saved" "$POLICY"
        ours=0
}
cleanup() {
        restore_policy
        rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# symlinks and directories below /etc/systemd, units running (with systemd)
links() { find /etc/systemd -type l -printf '%p\t%l\n' 2>/dev/null | LC_ALL=C sort; }
dirs() { find /etc/systemd -type d 2>/dev/null | LC_ALL=C sort; }
systemd_runs() { [ -d /run/systemd/system ]; }
active() { systemctl list-units --all --state=active --plain --no-legend 2>/dev/null | awk '{ print $1 }' | LC_ALL=C sort; }
links >"$work/links"
dirs >"$work/dirs"
! systemd_runs || active >"$work/active"

[ ! -e "$POLICY" ] || mv -f "$POLICY" "$saved"
ours=1
printf '#!/bin/sh\n# make deps (sim/deps.sh): no service starts while it installs packages\nexit 101\n' >"$POLICY"
chmod 0755 "$POLICY"

export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086
if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing; } >"$work/apt.log" 2>&1; then
        tail -n 30 "$work/apt.log"
        echo "deps: apt-get failed (its last lines above)"
        exit 1
fi
restore_policy

# enablement symlinks the install added (or changed): as they were
links | LC_ALL=C comm -13 "$work/links" - | while IFS="$(printf '\t')" read -r path target; do
        old=$(awk -F'\t' -v p="$path" '$1 == p { print $2; exit }' "$work/links")
        if [ -n "$old" ]; then
                ln -sfn "$old" "$path"
        else
                rm -f "$path"
        fi
done
dirs | LC_ALL=C comm -13 "$work/dirs" - | LC_ALL=C sort -r | while read -r d; do
        rmdir "$d" 2>/dev/null || true
done
if systemd_runs; then
        systemctl daemon-reload
        active | LC_ALL=C comm -13 "$work/active" - | while read -r unit; do
                systemctl stop "$unit" || true
        done
fi
