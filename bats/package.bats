#!/usr/bin/env bats
# The Debian packages (make deb): contents, lintian, and install, upgrade,
# remove and purge with dpkg inside Debian 12 and Debian 13 roots (built
# once by sim/engines.sh --pkg; each test works on a copy-on-write overlay of one),
# on a host without amdgpu and on the simulated seed host; the programs they
# ship (stripped) checked for hardening; the CDI refresh service's unit and
# udev rule checked by systemd 257's own tools (and its sandbox rated); the
# refresh command on a repartitioned host, and the unit started by systemd
# 257 itself, booted in namespaces, with its sandbox (the CDI spec and the
# Swarm entries of daemon.json follow the host).

bats_require_minimum_version 1.5.0

load helpers/common
load helpers/fakefs

export BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-300}

setup_file() {
        ctk_require_built "$CTK_BIN/amd-ctk" || return 1
        export DEBS=$BATS_FILE_TMPDIR/debs
        DEB_DIR=$DEBS sh "$CTK_REPO/sim/deb.sh" >/dev/null || return 1
        DEB_DIR=$DEBS/old DEB_VERSION=0.0~old1 sh "$CTK_REPO/sim/deb.sh" >/dev/null || return 1
        export BOOKWORM TRIXIE
        BOOKWORM=$(realpath "$(sh "$CTK_REPO/sim/engines.sh" --pkg bookworm)") || return 1
        TRIXIE=$(realpath "$(sh "$CTK_REPO/sim/engines.sh" --pkg trixie)") || return 1
}

setup() {
        T=$BATS_TEST_TMPDIR
        BOOT_CGROUP=""
}
teardown() {
        boot_cgroup_remove
        fakefs_teardown
}

deb() { ls "$DEBS"/amd-container-toolkit_*.deb; }
sim_deb() { ls "$DEBS"/amd-container-toolkit-sim_*.deb; }
old_deb() { ls "$DEBS"/old/amd-container-toolkit_*.deb; }

# in_root ROOT CMD...: CMD inside an overlay of ROOT whose changes live in
# $T/upper (kept between calls of one test), with /proc, the packages in
# /debs and, when HOST_MNT is set, a simulated host's sys/ and dev/.
in_root() {
        local root=$1
        shift
        mkdir -p "$T/upper" "$T/work" "$T/merged"
        unshare -m --propagation private sh -c '
                set -e
                mount -t overlay overlay -o "lowerdir=$1,upperdir=$2/upper,workdir=$2/work" "$2/merged"
                mount -t proc proc "$2/merged/proc"
                mkdir -p "$2/merged/debs"
                mount --bind "$3" "$2/merged/debs"
                if [ -n "$4" ]; then
                        mount --bind "$4/sys" "$2/merged/sys"
                        mount --bind "$4/dev" "$2/merged/dev"
                fi
                shift 4
                exec chroot "$0" "$@"' "$T/merged" "$root" "$T" "$DEBS" "${HOST_MNT:-}" "$@"
}

# the files of the root as it is in the overlay, without dpkg's bookkeeping
files() { # ROOT
        in_root "$1" sh -c 'find / -xdev \( -path /proc -o -path /debs -o -path /var/lib/dpkg -o -path /var/log \
                -o -path /var/cache \) -prune -o -print | sort'
}

@test "make deb: two packages, their files, lintian finds nothing" {
        run dpkg-deb -c "$(deb)"
        got=$(printf '%s\n' "${lines[@]}" | awk '{print $1, $6}' | grep -v '/$' | sort)
        for f in ./usr/bin/amd-ctk ./usr/bin/amd-container-runtime ./etc/amd-container-toolkit/config.json \
                ./lib/systemd/system/amd-cdi-refresh.service \
                ./lib/udev/rules.d/60-amd-cdi-refresh.rules ./usr/share/man/man1/amd-ctk.1.gz \
                ./usr/share/man/man1/amd-container-runtime.1.gz ./usr/share/doc/amd-container-toolkit/copyright; do
                [[ "$got" == *" $f"* ]] || { echo "missing: $f"; false; }
        done
        ! grep -q -e fakefs -e libexec <<<"$got"
        [[ "$got" == *"-rwxr-xr-x ./usr/bin/amd-ctk"* ]]
        [[ "$got" == *"-rw-r--r-- ./etc/amd-container-toolkit/config.json"* ]]
        run dpkg-deb -c "$(sim_deb)"
        [[ "$output" == *" ./usr/bin/amd-ctk-fakefs"* ]]
        # Depends come from the binaries: the simulator needs libfuse3, the static toolkit nothing
        [[ "$(dpkg-deb -f "$(sim_deb)" Depends)" == *libfuse3-3* ]]
        [ -z "$(dpkg-deb -f "$(deb)" Depends)" ]
        [ "$(dpkg-deb --ctrl-tarfile "$(deb)" | tar -xO ./conffiles)" = /etc/amd-container-toolkit/config.json ]
        run lintian --tag-display-limit 0 "$(deb)" "$(sim_deb)"
        [ "$status" -eq 0 ]
        [ -z "$(grep -v 'root privileges' <<<"$output")" ]
}

@test "the programs the packages ship are stripped and hardened (checksec on the .debs' files), the toolkit's static" {
        dpkg-deb -x "$(deb)" "$T/main"
        dpkg-deb -x "$(sim_deb)" "$T/sim"
        local p progs=("$T/main/usr/bin/amd-ctk" "$T/main/usr/bin/amd-container-runtime" "$T/sim/usr/bin/amd-ctk-fakefs")
        for p in "${progs[@]}"; do
                ! readelf -SW "$p" | grep -q ' \.symtab ' # stripped
        done
        run sh "$CTK_REPO/sim/checksec.sh" "${progs[@]}"
        [ "$status" -eq 0 ]
        [ "${#lines[@]}" -eq 3 ]
        for l in "${lines[@]}"; do [[ "$l" == *": PIE RELRO NX SSP FORTIFY" ]]; done
        # the toolkit's programs are static PIEs (make deb builds with STATIC=1):
        # no loader, no library; they run in an empty root
        for p in amd-ctk amd-container-runtime; do
                [[ "$(file -b "$T/main/usr/bin/$p")" == *"static-pie linked"* ]]
                ! readelf -lW "$T/main/usr/bin/$p" | grep -q interpreter
        done
        readelf -lW "$T/sim/usr/bin/amd-ctk-fakefs" | grep -q interpreter
        mkdir "$T/empty"
        cp "$T/main/usr/bin/amd-container-runtime" "$T/empty/"
        run chroot "$T/empty" /amd-container-runtime state x
        [ "$status" -eq 1 ]
        # (an empty root has no /var/log: the log is skipped with a warning)
        [ "${lines[0]}" = "amd-container-runtime: warning: cannot open /var/log/amd-container-runtime.log: No such file or directory (config key log-file); going on without the log" ]
        [ "${lines[1]}" = "amd-container-runtime: no low-level runtime found: neither runc nor crun is on PATH nor in /usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin; set runtime-path in the configuration file" ]
}

# install_remove_purge ROOT: install on a host without amdgpu, remove keeps
# the state, purge leaves nothing
install_remove_purge() {
        local root=$1
        files "$root" >"$T/before"
        run in_root "$root" dpkg -i "/debs/$(basename "$(deb)")"
        [ "$status" -eq 0 ]
        [[ "$output" == *"amd-container-toolkit: the amdgpu driver is not loaded: /etc/cdi/amd.json is generated when it is"* ]]
        [[ "$output" == *"amd-ctk runtime configure --runtime=docker"* ]]
        in_root "$root" amd-ctk version >/dev/null
        in_root "$root" test -f /var/lib/amd-container-toolkit/gpu-tracker.json
        [ "$(in_root "$root" stat -c "%a %U" /usr/bin/amd-ctk /etc/amd-container-toolkit/config.json)" = "$(printf '755 root\n644 root')" ]
        in_root "$root" test ! -e /etc/cdi/amd.json
        in_root "$root" dpkg -r amd-container-toolkit >/dev/null
        in_root "$root" test -f /var/lib/amd-container-toolkit/gpu-tracker.json
        in_root "$root" dpkg -P amd-container-toolkit >/dev/null
        files "$root" >"$T/after"
        diff "$T/before" "$T/after"
}

@test "Debian 12: install on a host without amdgpu, remove keeps the state, purge leaves nothing" {
        install_remove_purge "$BOOKWORM"
}

@test "Debian 13: install on a host without amdgpu, remove keeps the state, purge leaves nothing" {
        install_remove_purge "$TRIXIE"
}

@test "upgrade from an earlier version keeps a locally edited config.json" {
        in_root "$TRIXIE" dpkg -i /debs/old/$(basename "$(old_deb)") >/dev/null
        in_root "$TRIXIE" sh -c 'sed -i "s/\"info\"/\"debug\"/" /etc/amd-container-toolkit/config.json'
        run in_root "$TRIXIE" dpkg -i /debs/$(basename "$(deb)")
        [ "$status" -eq 0 ]
        [ "$(in_root "$TRIXIE" dpkg-query -W -f '${Version}' amd-container-toolkit)" = "$(dpkg-deb -f "$(deb)" Version)" ]
        in_root "$TRIXIE" grep -q '"log-level": "debug"' /etc/amd-container-toolkit/config.json
}

@test "install on the simulated seed host: the CDI spec is generated and valid; purge removes it only while it is ours" {
        fakefs_require_fuse
        fakefs_mount "$PROFILES/seed-4xmi210.json"
        export HOST_MNT=$FAKEFS_MNT
        run in_root "$BOOKWORM" dpkg -i /debs/$(basename "$(deb)")
        [ "$status" -eq 0 ]
        [[ "$output" == *"Generated CDI spec: /etc/cdi/amd.json"* ]]
        run in_root "$BOOKWORM" amd-ctk cdi validate
        [ "$status" -eq 0 ]
        [ "${lines[-1]}" = "CDI spec is valid" ]
        in_root "$BOOKWORM" dpkg -P amd-container-toolkit >/dev/null
        in_root "$BOOKWORM" test ! -e /etc/cdi/amd.json
        # a spec someone else wrote over ours stays
        in_root "$BOOKWORM" dpkg -i /debs/$(basename "$(deb)") >/dev/null
        in_root "$BOOKWORM" sh -c 'echo "{\"cdiVersion\": \"0.5.0\", \"kind\": \"amd.com/gpu\", \"devices\": []}" >/etc/cdi/amd.json'
        in_root "$BOOKWORM" dpkg -P amd-container-toolkit >/dev/null
        in_root "$BOOKWORM" test -e /etc/cdi/amd.json
}

@test "the refresh service and the udev rule pass systemd 257's systemd-analyze verify and udevadm verify; the service is sandboxed (systemd-analyze security)" {
        in_root "$TRIXIE" dpkg -i /debs/$(basename "$(deb)") >/dev/null
        run in_root "$TRIXIE" systemd-analyze verify /lib/systemd/system/amd-cdi-refresh.service
        [ "$status" -eq 0 ]
        # sandboxed: an exposure of 5.0 at most ("OK"; 9.6 "UNSAFE" without)
        run in_root "$TRIXIE" systemd-analyze security --offline=true --threshold=50 --no-pager \
                /lib/systemd/system/amd-cdi-refresh.service
        [ "$status" -eq 0 ]
        exposure=$(sed -n 's/^→ Overall exposure level for amd-cdi-refresh.service: \([0-9.]*\) .*/\1/p' <<<"$output")
        echo "exposure: $exposure"
        awk -v e="$exposure" 'BEGIN { exit !(e != "" && e <= 5.0) }'
        # and a broken unit is noticed
        in_root "$TRIXIE" sh -c 'printf "[Service]\nType=oneshot\nExecStart=relative/path\n" >/tmp/bad.service'
        run in_root "$TRIXIE" systemd-analyze verify /tmp/bad.service
        [ "$status" -ne 0 ]
        run in_root "$TRIXIE" udevadm verify /lib/udev/rules.d/60-amd-cdi-refresh.rules
        [ "$status" -eq 0 ]
        # a broken rule is noticed
        in_root "$TRIXIE" sh -c 'echo "ACTION==\"add\", BOGUS" >/tmp/bad.rules'
        run in_root "$TRIXIE" udevadm verify /tmp/bad.rules
        [ "$status" -ne 0 ]
}

@test "refresh: a repartition is picked up, an unchanged host leaves the spec's mtime, 64 at once leave one valid spec" {
        fakefs_require_fuse
        fakefs_mount "$PROFILES/mi300x-spx-x8.json"
        printf '{"state-dir": "%s"}\n' "$T/state" >"$T/config.json"
        refresh() { "$CTK_BIN/amd-ctk" --config "$T/config.json" --root "$FAKEFS_MNT" cdi generate --refresh --output "$T/cdi/amd.json"; }
        refresh >/dev/null
        [ "$(jq '.devices | length' "$T/cdi/amd.json")" -eq 9 ]
        bdf=$("$CTK_BIN/amd-ctk" --root "$FAKEFS_MNT" gpu list --json | jq -r '.[0].pci')
        echo CPX >"$FAKEFS_MNT/sys/bus/pci/devices/$bdf/current_compute_partition"
        run refresh
        [ "$output" = "Generated CDI spec: $T/cdi/amd.json" ]
        "$CTK_BIN/amd-ctk" --root "$FAKEFS_MNT" cdi validate --path "$T/cdi/amd.json" >/dev/null
        [ "$(jq '.devices | length' "$T/cdi/amd.json")" -eq 16 ]
        cmp "$T/cdi/amd.json" "$T/state/cdi-generated.json"
        before=$(stat -c '%i %.9Y' "$T/cdi/amd.json") # a rewrite is a new file (renamed over it), and a later mtime
        run refresh
        [ "$output" = "CDI spec is up to date: $T/cdi/amd.json" ]
        [ "$(stat -c '%i %.9Y' "$T/cdi/amd.json")" = "$before" ]
        # 64 at once, after another repartition
        echo SPX >"$FAKEFS_MNT/sys/bus/pci/devices/$bdf/current_compute_partition"
        local pids=() pid
        for i in $(seq 64); do
                refresh >/dev/null 2>&1 &
                pids+=($!)
        done
        for pid in "${pids[@]}"; do wait "$pid"; done
        "$CTK_BIN/amd-ctk" --root "$FAKEFS_MNT" cdi validate --path "$T/cdi/amd.json" >/dev/null
        [ "$(ls -A "$T/cdi")" = amd.json ]
        # turned off by the configuration: nothing is written
        printf '{"state-dir": "%s", "cdi-refresh": false}\n' "$T/state" >"$T/config.json"
        echo CPX >"$FAKEFS_MNT/sys/bus/pci/devices/$bdf/current_compute_partition"
        run refresh
        [ "$output" = "CDI spec refresh is off (config key cdi-refresh): nothing done" ]
        [ "$(jq '.devices | length' "$T/cdi/amd.json")" -eq 9 ]
}

# The cgroup v2 hierarchy of this host (all of it on a v2 host; "unified"
# beside the v1 controllers on a hybrid one), or nothing.
cgroup2_root() {
        local d
        for d in /sys/fs/cgroup /sys/fs/cgroup/unified; do
                [ "$(stat -fc %T "$d" 2>/dev/null)" = cgroup2fs ] && echo "$d" && return 0
        done
        return 1
}

# boot_cgroup_remove: kills what is left in the cgroup boot_systemd made and
# removes it (and what systemd made below it)
boot_cgroup_remove() {
        [ -n "${BOOT_CGROUP:-}" ] && [ -d "$BOOT_CGROUP" ] || return 0
        [ ! -e "$BOOT_CGROUP/cgroup.kill" ] || echo 1 >"$BOOT_CGROUP/cgroup.kill" 2>/dev/null || true
        local i
        for i in $(seq 100); do
                find "$BOOT_CGROUP" -depth -type d -exec rmdir {} + 2>/dev/null
                [ -d "$BOOT_CGROUP" ] || return 0
                sleep 0.1
        done
        echo "cgroup $BOOT_CGROUP is still there" >&2
        return 1
}

# boot_systemd ROOT TARGET: boots ROOT's systemd (257 in Debian 13) as PID 1
# of new pid, mount, UTS, IPC, network and cgroup namespaces, on the overlay
# in_root uses ($T/upper), until a unit runs `systemctl exit` (at most 180 s):
# sysfs read-only, a /dev of its own (null, zero, full, random, urandom,
# tty), a cgroup2 hierarchy of its own (a new child of this process's
# cgroup, removed by teardown), and the simulated host (FAKEFS_MNT) at
# /srv/host.  Its console output goes to $T/boot.log.
boot_systemd() {
        local root=$1 target=$2 cg2
        cg2=$(cgroup2_root) || skip "no cgroup v2 hierarchy on this host (systemd 257 needs one)"
        BOOT_CGROUP=$cg2$(awk -F: '$1 == "0" { print $3 }' /proc/self/cgroup | sed 's|/$||')/ctk-boot-$$-$BATS_TEST_NUMBER
        mkdir "$BOOT_CGROUP"
        mkdir -p "$T/upper" "$T/work" "$T/merged"
        (
                echo "$BASHPID" >"$BOOT_CGROUP/cgroup.procs"
                exec timeout 180 unshare --pid --fork --mount --uts --ipc --net --cgroup --propagation private sh -c '
                        set -e
                        m=$1/merged
                        mount -t overlay overlay -o "lowerdir=$2,upperdir=$1/upper,workdir=$1/work" "$m"
                        mount -t proc proc "$m/proc"
                        mount -t sysfs -o ro sysfs "$m/sys"
                        mount -t cgroup2 cgroup2 "$m/sys/fs/cgroup"
                        mount -t tmpfs -o mode=0755 tmpfs "$m/dev"
                        for n in null zero full random urandom tty; do
                                : >"$m/dev/$n"
                                mount --bind "/dev/$n" "$m/dev/$n"
                        done
                        mkdir -p "$m/srv/host"
                        mount --rbind "$3" "$m/srv/host"
                        exec chroot "$m" env container=ctk-test /lib/systemd/systemd --unit="$4" --log-target=console
                ' sh "$T" "$root" "$FAKEFS_MNT" "$target"
        ) >"$T/boot.log" 2>&1
}

@test "the refresh unit, started by systemd 257 with its sandbox, after a repartition: the spec and the Swarm entries follow, a dockerd restart is asked for" {
        fakefs_require_fuse
        fakefs_mount "$PROFILES/mi300x-spx-x8.json"
        export HOST_MNT=$FAKEFS_MNT
        in_root "$TRIXIE" dpkg -i /debs/$(basename "$(deb)") >/dev/null
        in_root "$TRIXIE" amd-ctk runtime configure --set-as-default --swarm-resources >/dev/null
        [ "$(in_root "$TRIXIE" cat /etc/docker/daemon.json | jq '[.["node-generic-resources"][] | select(startswith("AMD_GPU="))] | length')" -eq 8 ]
        bdf=$("$CTK_BIN/amd-ctk" --root "$FAKEFS_MNT" gpu list --json | jq -r '.[0].pci')
        echo CPX >"$FAKEFS_MNT/sys/bus/pci/devices/$bdf/current_compute_partition"
        in_root "$TRIXIE" rm -r /etc/cdi # (postinst wrote the spec): the unit makes the directory

        # The unit as installed, on the simulated host at /srv/host: the toolkit
        # reads it there (config key root; a simulated host's state goes where
        # the configuration says, here where runtime configure kept its
        # record) and the unit's condition looks there.
        # After its commands, a probe (as sandboxed as they are) tells what it
        # may do; a second unit records the outcome and ends the boot.
        local u=$T/upper
        printf '{"root": "/srv/host", "state-dir": "/var/lib/amd-container-toolkit"}\n' \
                >"$u/etc/amd-container-toolkit/config.json"
        mkdir -p "$u/etc/systemd/system/amd-cdi-refresh.service.d" "$u/usr/local/bin"
        # (the unit's DeviceAllow=char-drm names the DRM driver's group in
        # /proc/devices, which this kernel, with no DRM driver, does not have:
        # the drop-in opens the device policy to the simulated host's nodes,
        # whose KFD files the host answers EPERM for as amdkfd does when the
        # reader's device cgroup denies them)
        printf '%s\n' '[Unit]' 'ConditionPathIsDirectory=' 'ConditionPathIsDirectory=/srv/host/sys/module/amdgpu' \
                '[Service]' 'ExecStartPost=/usr/local/bin/ctk-probe' 'DeviceAllow=' 'DevicePolicy=auto' \
                >"$u/etc/systemd/system/amd-cdi-refresh.service.d/simulated-host.conf"
        cat >"$u/usr/local/bin/ctk-probe" <<'EOS'
#!/bin/sh
for d in /usr /etc /etc/cdi /etc/docker /var/lib/amd-container-toolkit /root; do
        if touch "$d/.probe" 2>/dev/null; then rm "$d/.probe"; echo "probe: $d writable"; else echo "probe: $d read-only"; fi
done
grep -E '^(CapBnd|NoNewPrivs|Seccomp):' /proc/self/status | sed 's/^/probe: /; s/\t/ /g'
echo "probe: network $(awk -F: 'NR > 2 { gsub(/ /, "", $1); printf "%s", $1 }' /proc/net/dev)"
EOS
        chmod 0755 "$u/usr/local/bin/ctk-probe"
        printf '%s\n' '[Unit]' 'Wants=amd-cdi-refresh.service ctk-test-done.service' >"$u/etc/systemd/system/ctk-test.target"
        printf '%s\n' '[Unit]' 'After=amd-cdi-refresh.service' '[Service]' 'Type=oneshot' \
                'ExecStart=/bin/sh -c "systemctl show -p Result amd-cdi-refresh.service >/ctk-result; journalctl -b -u amd-cdi-refresh.service -o cat >>/ctk-result"' \
                'ExecStartPost=/bin/systemctl exit 0' >"$u/etc/systemd/system/ctk-test-done.service"
        boot_systemd "$TRIXIE" ctk-test.target || { cat "$T/boot.log"; false; }
        cat "$u/ctk-result"
        grep -qx "Result=success" "$u/ctk-result"
        grep -qx "Generated CDI spec: /etc/cdi/amd.json" "$u/ctk-result"
        grep -qx "Wrote 15 AMD_GPU entries to node-generic-resources (uuid ids; 8 before)" "$u/ctk-result"
        grep -qx "Please restart docker daemon: dockerd reads node-generic-resources only when it starts (a reload does not apply them)" "$u/ctk-result"
        [ "$(in_root "$TRIXIE" cat /etc/cdi/amd.json | jq '.devices | length')" -eq 16 ]
        [ "$(in_root "$TRIXIE" cat /etc/docker/daemon.json | jq -r '.["node-generic-resources"][0]')" = \
                "AMD_GPU=$("$CTK_BIN/amd-ctk" --root "$FAKEFS_MNT" gpu list --json | jq -r '.[0].uuid'):0" ]
        [ "$(in_root "$TRIXIE" ls -A /etc/docker)" = "$(printf 'daemon.json\ndaemon.json.bak')" ]
        # the sandbox: only what it writes is writable, no capability, no new
        # privileges, a system call filter, no network but loopback
        [ "$(grep '^probe: ' "$u/ctk-result")" = "$(printf 'probe: %s\n' '/usr read-only' '/etc read-only' \
                '/etc/cdi writable' '/etc/docker writable' '/var/lib/amd-container-toolkit writable' '/root read-only' \
                'CapBnd: 0000000000000000' 'NoNewPrivs: 1' 'Seccomp: 2' 'network lo')" ]
        # purge removes the record with the state
        in_root "$TRIXIE" test -f /var/lib/amd-container-toolkit/swarm-resources.json
        in_root "$TRIXIE" dpkg -P amd-container-toolkit >/dev/null
        in_root "$TRIXIE" test ! -e /var/lib/amd-container-toolkit/swarm-resources.json
}
