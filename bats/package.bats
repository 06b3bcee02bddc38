#!/usr/bin/env bats
# The Debian packages (make deb): contents, lintian, and install, upgrade,
# remove and purge with dpkg inside Debian 12 and Debian 13 roots (built
# once by sim/roots.sh; each test works on a copy-on-write overlay of one),
# on a host without amdgpu and on the simulated seed host; the CDI refresh
# service's unit and udev rule checked by systemd 257's own tools; the
# refresh command on a repartitioned host, and the unit's commands (the CDI
# spec and the Swarm entries of daemon.json) as systemd runs them.

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
        BOOKWORM=$(realpath "$(cd "$CTK_REPO" && sh sim/roots.sh bookworm-pkg bookworm)") || return 1
        TRIXIE=$(realpath "$(cd "$CTK_REPO" && sh sim/roots.sh trixie-pkg trixie systemd udev)") || return 1
}

setup() { T=$BATS_TEST_TMPDIR; }
teardown() { fakefs_teardown; }

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
        for f in ./usr/bin/amd-ctk ./usr/bin/amd-container-runtime \
                ./usr/libexec/amd-container-toolkit/amd-container-runtime-full \
                ./etc/amd-container-toolkit/config.json ./lib/systemd/system/amd-cdi-refresh.service \
                ./lib/udev/rules.d/60-amd-cdi-refresh.rules ./usr/share/man/man1/amd-ctk.1.gz \
                ./usr/share/man/man1/amd-container-runtime.1.gz ./usr/share/doc/amd-container-toolkit/copyright; do
                [[ "$got" == *" $f"* ]] || { echo "missing: $f"; false; }
        done
        ! grep -q fakefs <<<"$got"
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

@test "the programs the packages ship are stripped and hardened (checksec on the .debs' files)" {
        dpkg-deb -x "$(deb)" "$T/main"
        dpkg-deb -x "$(sim_deb)" "$T/sim"
        local p progs=("$T/main/usr/bin/amd-ctk" "$T/main/usr/libexec/amd-container-toolkit/amd-container-runtime-full"
                "$T/sim/usr/bin/amd-ctk-fakefs")
        for p in "${progs[@]}" "$T/main/usr/bin/amd-container-runtime"; do
                ! readelf -SW "$p" | grep -q ' \.symtab ' # stripped
        done
        run sh "$CTK_REPO/sim/checksec.sh" "${progs[@]}"
        [ "$status" -eq 0 ]
        for l in "${lines[@]}"; do [[ "$l" == *": PIE RELRO NX SSP FORTIFY" ]]; done
        run sh "$CTK_REPO/sim/checksec.sh" --skip FORTIFY "$T/main/usr/bin/amd-container-runtime"
        [ "$status" -eq 0 ]
        [ "$output" = "$T/main/usr/bin/amd-container-runtime: PIE RELRO NX SSP" ]
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

@test "the refresh service and the udev rule pass systemd 257's systemd-analyze verify and udevadm verify" {
        in_root "$TRIXIE" dpkg -i /debs/$(basename "$(deb)") >/dev/null
        run in_root "$TRIXIE" systemd-analyze verify /lib/systemd/system/amd-cdi-refresh.service
        [ "$status" -eq 0 ]
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
        before=$(stat -c %Y.%N "$T/cdi/amd.json")
        sleep 1
        run refresh
        [ "$output" = "CDI spec is up to date: $T/cdi/amd.json" ]
        [ "$(stat -c %Y.%N "$T/cdi/amd.json")" = "$before" ]
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

@test "the refresh unit's commands after a repartition: the CDI spec and the Swarm entries follow, a dockerd restart is asked for" {
        fakefs_require_fuse
        fakefs_mount "$PROFILES/mi300x-spx-x8.json"
        export HOST_MNT=$FAKEFS_MNT
        in_root "$TRIXIE" dpkg -i /debs/$(basename "$(deb)") >/dev/null
        in_root "$TRIXIE" amd-ctk runtime configure --set-as-default --swarm-resources >/dev/null
        [ "$(in_root "$TRIXIE" cat /etc/docker/daemon.json | jq '[.["node-generic-resources"][] | select(startswith("AMD_GPU="))] | length')" -eq 8 ]
        bdf=$("$CTK_BIN/amd-ctk" --root "$FAKEFS_MNT" gpu list --json | jq -r '.[0].pci')
        echo CPX >"$FAKEFS_MNT/sys/bus/pci/devices/$bdf/current_compute_partition"
        # what systemd runs, in order
        in_root "$TRIXIE" cat /lib/systemd/system/amd-cdi-refresh.service | sed -n 's/^ExecStart=//p' >"$T/exec"
        [ "$(wc -l <"$T/exec")" -eq 2 ]
        while read -r cmd; do
                # shellcheck disable=SC2086 # the unit's words
                in_root "$TRIXIE" $cmd
        done <"$T/exec" >"$T/out"
        grep -qx "Generated CDI spec: /etc/cdi/amd.json" "$T/out"
        grep -qx "Wrote 15 AMD_GPU entries to node-generic-resources (uuid ids; 8 before)" "$T/out"
        grep -qx "Please restart docker daemon: dockerd reads node-generic-resources only when it starts (a reload does not apply them)" "$T/out"
        [ "$(in_root "$TRIXIE" cat /etc/cdi/amd.json | jq '.devices | length')" -eq 16 ]
        [ "$(in_root "$TRIXIE" cat /etc/docker/daemon.json | jq -r '.["node-generic-resources"][0]')" = \
                "AMD_GPU=$("$CTK_BIN/amd-ctk" --root "$FAKEFS_MNT" gpu list --json | jq -r '.[0].uuid'):0" ]
        # purge removes the record with the state
        in_root "$TRIXIE" test -f /var/lib/amd-container-toolkit/swarm-resources.json
        in_root "$TRIXIE" dpkg -P amd-container-toolkit >/dev/null
        in_root "$TRIXIE" test ! -e /var/lib/amd-container-toolkit/swarm-resources.json
}
