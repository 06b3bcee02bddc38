#!/usr/bin/env bats
# `amd-ctk runtime configure --runtime containerd|podman|crio`: drop-in files
# of ours, containerd's imports line, checked by the real containerd (Debian
# 12's 1.6 here, Debian 13's 1.7 in the engine root: `containerd config dump`
# must show our settings, and a containerd started on the configuration must
# load its CRI plugin, which before 2.1 takes the drop-in's CRI section in
# place of config.toml's) and, for CRI-O (not packaged for Debian), by a TOML
# parser against the keys crio.conf(5) documents.

bats_require_minimum_version 1.5.0

load helpers/common

setup() {
        CTK="$CTK_BIN/amd-ctk"
        ctk_require_built "$CTK" || return 1
        T=$BATS_TEST_TMPDIR
}

configure() { run --separate-stderr "$CTK" runtime configure "$@"; }

# cri_status CONFIG [ROOT]: starts containerd (Debian 12's of this host, or
# that of the root ROOT through chroot, CONFIG then a path inside it) on
# CONFIG in a mount and network namespace of its own, lists its plugins and
# stops it; prints the status of its CRI plugin (ok, error; none: no answer)
# and, unless ok, what containerd's log says about it.  /opt, /var/lib and
# /run are fresh tmpfs there: what a configuration names (Debian's puts the
# opt plugin in /var/lib/containerd/opt) never reaches the host.
cri_status() {
        local config=$1 root=${2:-} dir st
        dir=$(mktemp -d "$root/tmp/ctk-cri.XXXXXX") || return 1
        timeout 120 unshare -m -n --propagation private sh -c '
                root=$1 in=$2 config=$3
                if [ -n "$root" ]; then
                        mount -t proc proc "$root/proc" && mount --rbind /dev "$root/dev" &&
                                mount --rbind /sys "$root/sys" || exit 1
                fi
                for d in opt var/lib run; do mount -t tmpfs tmpfs "$root/$d" || exit 1; done
                ip link set lo up
                ${root:+chroot "$root"} containerd --config "$config" --root "$in/root" --state "$in/state" \
                        --address "$in/c.sock" </dev/null >"$root$in/log" 2>&1 3>&- &
                pid=$!
                for i in $(seq 150); do
                        ${root:+chroot "$root"} ctr --address "$in/c.sock" plugins ls >"$root$in/plugins" 2>/dev/null && break
                        kill -0 $pid 2>/dev/null || break
                        sleep 0.2
                done
                kill $pid 2>/dev/null
                for i in $(seq 100); do kill -0 $pid 2>/dev/null || exit 0; sleep 0.1; done
                kill -9 $pid
                exit 0' sh "$root" "${dir#"$root"}" "$config"
        st=$(awk '$1 == "io.containerd.grpc.v1" && $2 == "cri" { print $4 }' "$dir/plugins" 2>/dev/null)
        echo "${st:-none}"
        [ "$st" = ok ] || grep -i 'level=\(error\|fatal\)\|failed to load plugin io.containerd.grpc.v1.cri' "$dir/log" |
                head -n 3
        rm -rf "$dir"
}
containerd_cfg() { configure --runtime containerd --config-path "$T/conf.d/99-amd.toml" --containerd-config "$T/config.toml" "$@"; }

@test "containerd 1.6: the drop-in is imported, config dump shows the amd runtime as the default; --remove restores config.toml" {
        containerd config default >"$T/config.toml"
        cp "$T/config.toml" "$T/orig.toml"
        containerd_cfg --runtime-path /usr/bin/amd-container-runtime --set-as-default
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = "Wrote $T/conf.d/99-amd.toml" ]
        [ "${lines[1]}" = "Added $T/conf.d/99-amd.toml to the imports of $T/config.toml" ]
        [ "${lines[2]}" = "It holds a copy of the CRI plugin's section of $T/config.toml (containerd before 2.1 replaces that whole section with an imported one): after editing that section, run this command again" ]
        [ "${lines[3]}" = "Please restart containerd" ]
        # as the default runtime it runs every pod: what a shared cluster should set
        [ "${lines[4]}" = "As the default runtime, amd runs every pod: any pod that sets AMD_VISIBLE_DEVICES would get GPUs around the device plugin's accounting." ]
        [ "${lines[5]}" = "On a shared cluster, give GPUs through the device plugin (device specs or CDI) and set \"accept-visible-devices-envvar-when-unprivileged\": false in /etc/amd-container-toolkit/config.json" ]
        [ "${#lines[@]}" -eq 6 ]
        run containerd --config "$T/config.toml" config dump
        [ "$status" -eq 0 ]
        [[ "$output" == *'default_runtime_name = "amd"'* ]]
        [[ "$output" == *'[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.amd.options]'*'BinaryName = "/usr/bin/amd-container-runtime"'* ]]
        # the user's settings are still there
        [[ "$output" == *'sandbox_image = "registry.k8s.io/pause'* ]]
        # one line of theirs changed, the rest byte for byte; the old file kept
        [ "$(diff "$T/orig.toml" "$T/config.toml" | grep -c '^[<>]')" -eq 2 ]
        cmp "$T/orig.toml" "$T/config.toml.bak"
        containerd_cfg --runtime-path /usr/bin/amd-container-runtime --set-as-default
        [ "${lines[0]}" = "The drop-in is already up to date: $T/conf.d/99-amd.toml" ]
        [[ "${lines[1]}" == "As the default runtime, amd runs every pod: "* ]]
        [ "${#lines[@]}" -eq 3 ]
        # without --set-as-default, no advice
        containerd_cfg --runtime-path /usr/bin/amd-container-runtime
        [[ "$output" != *"As the default runtime"* ]]
        containerd_cfg --runtime-path /usr/bin/amd-container-runtime --set-as-default
        [[ "$output" == *"accept-visible-devices-envvar-when-unprivileged"* ]]
        # an edit of config.toml's CRI section: the drop-in's copy follows on the next run
        sed -i 's|^\( *sandbox_image = \).*|\1"registry.example/pause:9"|' "$T/config.toml" "$T/orig.toml"
        run containerd --config "$T/config.toml" config dump
        [[ "$output" != *'sandbox_image = "registry.example/pause:9"'* ]]
        containerd_cfg --runtime-path /usr/bin/amd-container-runtime --set-as-default
        [ "${lines[0]}" = "Wrote $T/conf.d/99-amd.toml" ]
        run containerd --config "$T/config.toml" config dump
        [[ "$output" == *'sandbox_image = "registry.example/pause:9"'* ]]
        containerd_cfg --remove
        [ "$status" -eq 0 ]
        [ ! -e "$T/conf.d/99-amd.toml" ]
        cmp "$T/orig.toml" "$T/config.toml"
}

# cri_loads DIR [ROOT]: for containerd's default configuration and the
# config.toml Debian ships (ROOT's, or the copy the unit tests hold), without
# and with --set-as-default, the CRI plugin of containerd (this host's, or
# ROOT's, running DIR/amd-ctk) loads with our drop-in, in DIR
cri_loads() {
        local d=$1 root=${2:-} in=${1#"${2:-}"} src flag st
        local debian=${root:+$root/etc/containerd/config.toml} ctk=${root:+$in/amd-ctk}
        for src in default debian; do
                for flag in "" --set-as-default; do
                        rm -rf "$d/conf.d" "$d/config.toml"*
                        if [ "$src" = debian ]; then
                                cp "${debian:-$CTK_REPO/core/engines/tests/fixtures/containerd-debian-config.toml}" \
                                        "$d/config.toml"
                        else
                                ${root:+chroot "$root"} containerd config default >"$d/config.toml"
                        fi
                        ${root:+chroot "$root"} "${ctk:-$CTK}" runtime configure --runtime containerd \
                                --config-path "$in/conf.d/99-amd.toml" --containerd-config "$in/config.toml" \
                                --runtime-path /usr/bin/amd-container-runtime $flag >/dev/null || return 1
                        st=$(cri_status "$in/config.toml" "$root")
                        [ "$st" = ok ] || {
                                echo "the CRI plugin of containerd on $src's config.toml ${flag:-(no flag)}: $st" >&2
                                return 1
                        }
                done
        done
}

@test "containerd 1.6: its CRI plugin loads with the drop-in (containerd's default config.toml and Debian's, with and without --set-as-default)" {
        d=$(ctk_tmpdir cri16)
        cri_loads "$d" || {
                rm -rf "$d"
                false
        }
        rm -rf "$d"
}

@test "containerd 1.7 (Debian 13): its CRI plugin loads with the drop-in (containerd's default config.toml and Debian's, with and without --set-as-default)" {
        root=$(realpath "$(sh "$CTK_REPO/sim/engines.sh")")
        d=$(mktemp -d "$root/tmp/ctk-cri17.XXXXXX")
        cp "$(ctk_static_build)/bin/amd-ctk" "$d/amd-ctk"
        cri_loads "$d" "$root" || {
                rm -rf "$d"
                false
        }
        rm -rf "$d"
}

@test "containerd 1.7 (Debian 13): config dump shows CDI enabled with our spec dirs and the amd runtime; schema 3 by flag" {
        root=$(sh "$CTK_REPO/sim/engines.sh")
        d=$(mktemp -d "$root/tmp/ctk-dropin.XXXXXX")
        in=${d#"$root"} # the same directory, seen from inside the root
        cp "$(ctk_static_build)/bin/amd-ctk" "$d/amd-ctk"
        chroot "$root" "$in/amd-ctk" runtime configure --runtime containerd --config-path "$in/99-amd.toml" \
                --containerd-config "$in/config.toml" --runtime-path /usr/bin/amd-container-runtime >/dev/null
        run chroot "$root" containerd --config "$in/config.toml" config dump
        rc=$status
        dump=$output
        "$CTK" runtime configure --runtime containerd --config-path "$d/v3.toml" --containerd-config "$d/v3-config.toml" \
                --containerd-version 3 >/dev/null
        v3=$(cat "$d/v3.toml")
        rm -rf "$d"
        [ "$rc" -eq 0 ]
        [[ "$dump" == *"enable_cdi = true"* ]]
        [[ "$dump" == *'cdi_spec_dirs = ["/etc/cdi", "/var/run/cdi"]'* ]]
        [[ "$dump" == *'BinaryName = "/usr/bin/amd-container-runtime"'* ]]
        [[ "$v3" == *'version = 3'*'[plugins."io.containerd.cri.v1.runtime"]'*'enable_cdi = true'* ]]
}

@test "containerd: a broken config.toml is refused at its line and column and left untouched; a foreign drop-in is not replaced" {
        printf 'version = 2\nimports = ["/x.toml"\n[plugins]\n' >"$T/config.toml"
        cp "$T/config.toml" "$T/orig.toml"
        containerd_cfg
        [ "$status" -eq 1 ]
        [ "$stderr" = "amd-ctk: $T/config.toml:3:1: expected ',' or ']' in an array" ]
        cmp "$T/config.toml" "$T/orig.toml"
        [ ! -e "$T/conf.d/99-amd.toml" ]
        mkdir -p "$T/conf.d"
        printf 'version = 2\n' >"$T/conf.d/99-amd.toml"
        printf 'version = 2\n' >"$T/config.toml"
        for flag in "" --remove; do
                containerd_cfg $flag
                [ "$status" -eq 1 ]
                [[ "$stderr" == "amd-ctk: $T/conf.d/99-amd.toml exists and was not written by amd-ctk: not "* ]]
                [ "$(cat "$T/conf.d/99-amd.toml")" = "version = 2" ]
        done
        [ "$(cat "$T/config.toml")" = "version = 2" ]
}

@test "--dry-run prints the drop-in and writes nothing; options of one engine are refused for another" {
        T=$T/empty
        mkdir "$T"
        containerd_cfg --dry-run
        [ "$status" -eq 0 ]
        [[ "$output" == "# Written by amd-ctk runtime configure"*"Would add $T/conf.d/99-amd.toml to the imports of $T/config.toml" ]]
        [ -z "$(ls -A "$T")" ]
        configure --runtime podman --runtime-arg=--x
        [ "$status" -eq 1 ]
        [[ "$stderr" == "amd-ctk runtime configure: --runtime-arg, --cdi and --no-cdi apply to docker only"* ]]
        configure --runtime crio --containerd-version 3
        [ "$status" -eq 1 ]
        configure --runtime containerd --containerd-version 4
        [ "$stderr" = "amd-ctk runtime configure: invalid value '4' for --containerd-version (2 for containerd 1.x, 3 for containerd 2.x)" ]
        configure --runtime cri-o
        [ "$stderr" = "amd-ctk runtime configure: invalid value 'cri-o' for --runtime (docker, containerd, podman or crio)" ]
}

@test "podman: [engine.runtimes] amd, and [engine] runtime with --set-as-default" {
        configure --runtime podman --config-path "$T/99-amd.conf" --runtime-path /usr/bin/amd-container-runtime --set-as-default
        [ "$status" -eq 0 ]
        [ "${lines[-1]}" = "Podman reads it on its next command: nothing to restart" ]
        python3 - "$T/99-amd.conf" <<'PY'
import sys, tomllib
c = tomllib.load(open(sys.argv[1], "rb"))
assert c["engine"]["runtimes"]["amd"] == ["/usr/bin/amd-container-runtime"], c
assert c["engine"]["runtime"] == "amd", c
PY
}

@test "crio: the keys crio.conf(5) documents, parsed by a TOML parser" {
        configure --runtime crio --config-path "$T/99-amd.conf" --runtime-path /usr/bin/amd-container-runtime --set-as-default
        [ "$status" -eq 0 ]
        [ "${lines[-1]}" = "Please restart crio" ]
        python3 - "$T/99-amd.conf" <<'PY'
import sys, tomllib
c = tomllib.load(open(sys.argv[1], "rb"))
rt = c["crio"]["runtime"]
assert rt["default_runtime"] == "amd", c
assert rt["runtimes"]["amd"] == {"runtime_path": "/usr/bin/amd-container-runtime", "runtime_type": "oci"}, c
PY
        configure --runtime crio --config-path "$T/99-amd.conf" --remove
        [ "$status" -eq 0 ]
        [ ! -e "$T/99-amd.conf" ]
}

@test "podman and crio without --runtime-path: the runtime by its absolute path (PATH, then beside amd-ctk); none found is one line" {
        # on PATH
        mkdir -p "$T/bin" "$T/alone"
        printf '#!/bin/sh\n' >"$T/bin/amd-container-runtime"
        chmod 755 "$T/bin/amd-container-runtime"
        PATH=$T/bin:/usr/bin:/bin configure --runtime podman --config-path "$T/99-amd.conf"
        [ "$status" -eq 0 ]
        grep -qx "\"amd\" = \[\"$T/bin/amd-container-runtime\"\]" "$T/99-amd.conf"
        PATH=$T/bin:/usr/bin:/bin configure --runtime crio --config-path "$T/crio.conf"
        [ "$status" -eq 0 ]
        grep -qx "runtime_path = \"$T/bin/amd-container-runtime\"" "$T/crio.conf"
        # not on PATH: the one installed beside amd-ctk
        PATH=/usr/bin:/bin configure --runtime podman --config-path "$T/99-amd.conf"
        [ "$status" -eq 0 ]
        grep -qx "\"amd\" = \[\"$(realpath "$CTK_BIN")/amd-container-runtime\"\]" "$T/99-amd.conf"
        # neither: one line naming --runtime-path, the drop-in as it was
        cp "$T/99-amd.conf" "$T/before"
        cp "$CTK" "$T/alone/amd-ctk"
        CTK=$T/alone/amd-ctk PATH=/usr/bin:/bin configure --runtime podman --config-path "$T/99-amd.conf"
        [ "$status" -eq 1 ]
        [ "$stderr" = "amd-ctk: amd-container-runtime is not on PATH (/usr/bin:/bin) nor beside amd-ctk in $T/alone: Podman needs the runtime's absolute path; give it with --runtime-path" ]
        cmp "$T/before" "$T/99-amd.conf"
}
