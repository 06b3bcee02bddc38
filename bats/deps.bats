#!/usr/bin/env bats
# sim/deps.sh (`make deps`): installs only the missing Debian packages, as
# root; prints the command otherwise; does nothing when all are installed;
# leaves the services the packages bring as they were.
# dpkg-query, apt-get and id are stubs here, so nothing is installed; a run
# as root happens in a private mount namespace (fake_host), where what it
# writes to /usr/sbin and /etc/systemd never reaches the machine.

load helpers/common

setup() {
        stub=$BATS_TEST_TMPDIR/stub
        mkdir -p "$stub"
        # dpkg-query: every package is installed except those in $MISSING
        cat >"$stub/dpkg-query" <<'STUB'
#!/bin/sh
for p; do :; done
case " $MISSING " in
*" $p "*) echo "dpkg-query: no packages found matching $p" >&2; exit 1 ;;
esac
printf 'install ok installed'
STUB
        printf '#!/bin/sh\necho "apt-get $*" >>"%s/calls"\n' "$BATS_TEST_TMPDIR" >"$stub/apt-get"
        printf '#!/bin/sh\necho "${FAKE_UID:-0}"\n' >"$stub/id"
        chmod +x "$stub"/*
        export PATH="$stub:$PATH"
        export CALLS=$BATS_TEST_TMPDIR/calls
}

# fake_host CMD...: CMD in a private mount namespace where /usr/sbin,
# /usr/lib/systemd, /etc/systemd, /var/lib/systemd and /run/systemd are
# overlays of the machine's whose changes go to BATS_TEST_TMPDIR; first
# without the machine's policy-rc.d (a fresh Debian has none) and without
# systemd running, then FAKE_HOST_SETUP (shell code) runs there.
fake_host() {
        unshare -m --propagation private bash -c '
                set -e
                o=$BATS_TEST_TMPDIR/ovl
                for d in /usr/sbin /usr/lib/systemd /etc/systemd /var/lib/systemd /run/systemd; do
                        while [ ! -d "$d" ]; do d=$(dirname "$d"); done # (the nearest that exists)
                        mkdir -p "$o/u$d" "$o/w$d"
                        mount -t overlay ovl -o "lowerdir=$d,upperdir=$o/u$d,workdir=$o/w$d" "$d"
                done
                rm -f /usr/sbin/policy-rc.d
                rm -rf /run/systemd/system
                # the engines never installed (this machine'"'"'s may have them)
                find /etc/systemd /var/lib/systemd \( -name "docker*" -o -name "containerd*" -o -name "podman*" \) \
                        -exec rm -rf {} +
                eval "${FAKE_HOST_SETUP:-}"
                "$@"' fake_host "$@"
}

@test "deps: everything installed is a silent no-op that runs no apt-get" {
        MISSING="" run sh "$CTK_REPO/sim/deps.sh"
        [ "$status" -eq 0 ] || { echo "$output"; false; }
        [ -z "$output" ]
        [ ! -e "$BATS_TEST_TMPDIR/calls" ]
}

@test "deps: as root, installs exactly the missing packages" {
        MISSING="bats lcov" run fake_host sh "$CTK_REPO/sim/deps.sh"
        [ "$status" -eq 0 ] || { echo "$output"; false; }
        [ "${lines[0]}" = "installing: bats lcov" ]
        [ "$(sed -n 1p "$BATS_TEST_TMPDIR/calls")" = "apt-get update -qq" ]
        [ "$(sed -n 2p "$BATS_TEST_TMPDIR/calls")" = "apt-get install -y -qq --no-install-recommends bats lcov" ]
}

@test "deps: not root, prints the apt-get command and installs nothing" {
        FAKE_UID=1000 MISSING="lcov" run sh "$CTK_REPO/sim/deps.sh"
        [ "$status" -eq 0 ] || { echo "$output"; false; }
        [ "${lines[0]}" = "missing packages: lcov" ]
        [ "${lines[1]}" = "run as root: apt-get update && apt-get install -y lcov" ]
        [ ! -e "$BATS_TEST_TMPDIR/calls" ]
}

# make fuzz on a machine without clang: `fresh-clang` (FUZZ_CC) exists only
# once the stub apt-get has "installed" it, a moment after being called.
@test "make -j2 fuzz: the packages it needs are installed before anything is built with them" {
        local fuzzobj="$CTK_REPO/build/fuzz/obj"
        # the fuzzers' library objects, built once (make check has built them already)
        env -u MAKEFLAGS -u MAKELEVEL make -s -C "$CTK_REPO" -j2 build/fuzz/fuzz_numbers
        mkdir -p "$BATS_TEST_TMPDIR/build/fuzz"
        cp -a "$fuzzobj" "$BATS_TEST_TMPDIR/build/fuzz/obj"
        cat >"$stub/apt-get" <<STUB
#!/bin/sh
echo "apt-get \$*" >>"$BATS_TEST_TMPDIR/calls"
case "\$1" in
install)
        sleep 2
        printf '#!/bin/sh\nexec clang "\$@"\n' >"$stub/fresh-clang"
        chmod +x "$stub/fresh-clang"
        ;;
esac
STUB
        MISSING="clang libclang-rt-14-dev" run fake_host env -u MAKEFLAGS -u MAKELEVEL make -C "$CTK_REPO" --no-print-directory \
                -j2 fuzz BUILD="$BATS_TEST_TMPDIR/build" FUZZ_CC=fresh-clang FUZZ_SECONDS=1
        [ "$status" -eq 0 ] || {
                echo "$output" | tail -20
                return 1
        }
        [ "$(sed -n 2p "$BATS_TEST_TMPDIR/calls")" = "apt-get install -y -qq --no-install-recommends clang libclang-rt-14-dev" ]
        local n
        n=$(ls "$CTK_REPO"/fuzz/fuzz_*.c | wc -l)
        [ "$(echo "$output" | grep -c '^fuzz: fuzz_.*: ok$')" -eq "$n" ]
}

# The packages' side of an install, as dpkg runs it: apt-get install PKG...
# puts the units each engine package ships into /usr/lib/systemd/system
# (their [Install] sections as Debian 12's packages have them) and runs, for
# each, what dh_installsystemd writes into its postinst: deb-systemd-helper
# enables the unit on a first install (the real helper, which makes the
# symlinks below /etc/systemd), then it is started unless policy-rc.d says
# 101, as invoke-rc.d and deb-systemd-invoke ask it ("started UNIT" in
# CALLS; with systemd running, through systemctl).  podman's postinst also
# starts podman.socket with systemctl itself, past policy-rc.d, to show
# that deps.sh stops what was started anyway.
fake_packages() {
        cat >"$stub/apt-get" <<'STUB'
#!/bin/sh
echo "apt-get $*" >>"$CALLS"
[ "$1" = install ] || exit 0
for p; do
        case $p in
        docker.io) units="docker.service:multi-user.target docker.socket:sockets.target" ;;
        containerd) units="containerd.service:multi-user.target" ;;
        podman) units="podman.service:default.target podman.socket:sockets.target podman-restart.service:default.target
                       podman-auto-update.timer:timers.target" ;;
        *) continue ;;
        esac
        export DPKG_MAINTSCRIPT_PACKAGE="$p" DPKG_MAINTSCRIPT_NAME=postinst # (as dpkg runs it)
        for u in $units; do
                name=${u%%:*}
                printf '[Unit]\nDescription=%s\n\n[Install]\nWantedBy=%s\n' "$name" "${u#*:}" >"/usr/lib/systemd/system/$name"
                deb-systemd-helper unmask "$name" >/dev/null || true
                if deb-systemd-helper --quiet was-enabled "$name"; then
                        deb-systemd-helper enable "$name" >/dev/null || true
                else
                        deb-systemd-helper update-state "$name" >/dev/null || true
                fi
                rc=0
                [ ! -x /usr/sbin/policy-rc.d ] || { /usr/sbin/policy-rc.d "$name" start && rc=0 || rc=$?; }
                [ "$rc" = 101 ] && continue
                [ ! -d /run/systemd/system ] || systemctl start "$name"
                echo "started $name" >>"$CALLS"
        done
        [ "$p" != podman ] || [ ! -d /run/systemd/system ] || systemctl start podman.socket
done
STUB
        chmod +x "$stub/apt-get"
}

# systemd_links: the enablement state below /etc/systemd (inside fake_host)
systemd_links() { find /etc/systemd -printf '%p %y %l\n' | sort; }
export -f systemd_links

@test "deps: the engines' services stay as they were (no systemd running): none enabled or started, policy-rc.d gone" {
        fake_packages
        # containerd.service was enabled before (left from an earlier install): it stays so
        FAKE_HOST_SETUP='mkdir -p /etc/systemd/system/multi-user.target.wants &&
                ln -s /lib/systemd/system/containerd.service /etc/systemd/system/multi-user.target.wants/containerd.service'
        export FAKE_HOST_SETUP
        MISSING="docker.io containerd podman jq" run fake_host bash -c '
                systemd_links >"$BATS_TEST_TMPDIR/links.before"
                sh "$CTK_REPO/sim/deps.sh" || exit
                systemd_links >"$BATS_TEST_TMPDIR/links.after"
                for u in docker.service docker.socket containerd.service podman.service podman.socket \
                        podman-restart.service podman-auto-update.timer; do
                        echo "$u $(systemctl is-enabled "$u" 2>/dev/null)"
                done >"$BATS_TEST_TMPDIR/enabled"
                # an upgrade of the package does not enable it again
                DPKG_MAINTSCRIPT_PACKAGE=docker.io deb-systemd-helper --quiet was-enabled docker.service && echo "docker.service would be enabled again"
                [ ! -e /usr/sbin/policy-rc.d ] || echo "policy-rc.d left behind"'
        [ "$status" -eq 0 ] || { echo "$output"; false; }
        [ "$output" = "installing: docker.io containerd podman jq" ] || { echo "$output"; false; }
        diff -u "$BATS_TEST_TMPDIR/links.before" "$BATS_TEST_TMPDIR/links.after"
        [ "$(cat "$BATS_TEST_TMPDIR/enabled")" = "docker.service disabled
docker.socket disabled
containerd.service enabled
podman.service disabled
podman.socket disabled
podman-restart.service disabled
podman-auto-update.timer disabled" ]
        ! grep '^started' "$CALLS"
        grep -qx 'apt-get install -y -qq --no-install-recommends docker.io containerd podman jq' "$CALLS"
}

@test "deps: with systemd running, nothing is left started, and the machine's own policy-rc.d is put back" {
        fake_packages
        # systemctl: the units started (STATE/active), daemon-reload and stop recorded
        cat >"$stub/systemctl" <<'STUB'
#!/bin/sh
a=$BATS_TEST_TMPDIR/active
touch "$a"
case $1 in
list-units) sed 's/$/ loaded active running x/' "$a" ;;
start) echo "$2" >>"$a" ;;
stop) grep -vx "$2" "$a" >"$a.new"; mv "$a.new" "$a"; echo "systemctl stop $2" >>"$CALLS" ;;
daemon-reload) echo "systemctl daemon-reload" >>"$CALLS" ;;
*) exec /usr/bin/systemctl "$@" ;;
esac
STUB
        chmod +x "$stub/systemctl"
        echo cron.service >"$BATS_TEST_TMPDIR/active"
        # a policy that lets everything start
        FAKE_HOST_SETUP='mkdir /run/systemd/system && printf "#!/bin/sh\nexit 0\n" >/usr/sbin/policy-rc.d &&
                chmod 755 /usr/sbin/policy-rc.d'
        export FAKE_HOST_SETUP
        MISSING="docker.io podman" run fake_host bash -c '
                sh "$CTK_REPO/sim/deps.sh" || exit
                cat /usr/sbin/policy-rc.d; stat -c %a /usr/sbin/policy-rc.d'
        [ "$status" -eq 0 ] || { echo "$output"; false; }
        [ "${lines[0]}" = "installing: docker.io podman" ]
        [ "${lines[1]}" = "#!/bin/sh" ]
        [ "${lines[2]}" = "exit 0" ]
        [ "${lines[3]}" = 755 ]
        [ "${#lines[@]}" -eq 4 ]
        ! grep '^started' "$CALLS"
        # podman.socket, started past policy-rc.d, is stopped again
        [ "$(cat "$BATS_TEST_TMPDIR/active")" = cron.service ]
        grep -qx "systemctl daemon-reload" "$CALLS"
        grep -qx "systemctl stop podman.socket" "$CALLS"
}

@test "deps: every command the scripts run comes from a package it installs (jq, ip, python3, ...)" {
        local pkgs closure cmd pkg
        # the list, as deps.sh builds it
        pkgs=$(sed -n '/^PKGS=/,/"$/p' "$CTK_REPO/sim/deps.sh" | sed 's/^PKGS="\$PKGS//; s/^PKGS="//; s/"$//')
        # shellcheck disable=SC2086 # and what they depend on
        closure=" $(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces \
                --no-enhances $pkgs 2>/dev/null | grep '^[a-z0-9]' | tr '\n' ' ') "
        [[ "$closure" == *" jq "* ]]
        for cmd in jq file groff lexgrog git ip pgrep python3 dpkg-shlibdeps bats lcov genhtml busybox musl-gcc \
                debootstrap lintian cppcheck clang clang-tidy clang-format docker dockerd containerd ctr runc podman \
                fusermount3 pkg-config readelf unshare nsenter parallel mandoc rpmbuild rpm rpm2cpio rpmlint cpio; do
                pkg=$(PATH=/usr/bin:/bin dpkg -S "*bin/$cmd" 2>/dev/null | grep -v "^diversion by " | head -n 1 | cut -d: -f1) || true
                [ -n "$pkg" ] || { echo "$cmd: not installed"; return 1; }
                # (or part of every Debian system)
                [[ "$closure" == *" $pkg "* ]] || [ "$(/usr/bin/dpkg-query -W -f='${Priority}' "$pkg")" = required ] || {
                        echo "$cmd: from package $pkg, which sim/deps.sh does not install"
                        return 1
                }
        done
        python3 -c 'import jsonschema, tomllib'
}
