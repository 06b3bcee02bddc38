#!/usr/bin/env bats
# The four-way differential: one GPU selection, four roads into a container,
# one result.  For every profile in sim/profiles, served over FUSE, and the
# selections 0, all, 1-2 (hosts with 3+ devices) and a UUID, the container's
# device nodes under /dev/dri and /dev/kfd (name, type, major:minor, mode,
# uid, gid) and the device cgroup rules runc applied (devices.list of the
# container's own cgroup, read inside it, as the rules it adds to those of
# the same engine's container without GPUs) must be identical across:
#   (a) our runtime in mode legacy, AMD_VISIBLE_DEVICES=<selection> (sysfs);
#   (b) our runtime in mode auto with the selection as CDI names, in
#       AMD_VISIBLE_DEVICES and as a cdi.k8s.io/ annotation, and in mode cdi
#       with the plain tokens (the spec, no sysfs);
#   (c) Podman 4.3's own CDI injection (Debian 12) of the same spec;
#   (d) Docker 26's CDI injection (Debian 13's engine root).
# (a) and (b) are runc bundles run through the runtime; (c) and (d) one
# container per selection.  A repartition through the FUSE mount: legacy
# follows the host, mode cdi refuses the stale spec with the command to run,
# and after that command all four agree again.  A spec edited by hand shows
# that a difference fails the comparison.

bats_require_minimum_version 1.5.0

load helpers/common
load helpers/images
load helpers/podman
load helpers/engines
load helpers/fakefs
load helpers/runtime_bundle

export BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-300}

# Inside every container: one "node" line per entry of /dev/dri and /dev/kfd
# (name, type, major:minor in decimal, mode, uid, gid), then "rule" lines,
# the container's devices.list.  (One line: a bundle's arguments are made
# line by line.)
PROBE='for f in $(find /dev/dri /dev/kfd 2>/dev/null); do set -- $(stat -c "%n %A %a %u %g %t %T" "$f");'
PROBE+=' printf "node %s %.1s %d:%d %s %s %s\n" "$1" "$2" "0x$6" "0x$7" "$3" "$4" "$5"; done;'
PROBE+=' sed "s/^/rule /" /sys/fs/cgroup/devices/devices.list'

# The roads; (b) is three of them.
ROADS="legacy names annotation cdi-mode podman docker"

setup_file() {
        ctk_require_built "$RT_SHIM" "$CTK_BIN/amd-ctk" "$CTK_BIN/amd-ctk-fakefs" || return 1
        if ! command -v runc >/dev/null || ! command -v podman >/dev/null; then
                echo "runc and podman are required" >&2
                return 1
        fi
        fakefs_require_fuse
        export IMAGES_CACHE=$BATS_FILE_TMPDIR
        podman_start
        podman_import_images
        engines_start
        # the bundle of roads (a) and (b): busybox with the probe's applets
        export TEMPLATE=$BATS_FILE_TMPDIR/bundle
        rt_bundle "$TEMPLATE" sh -c "$PROBE"
        local a
        for a in find stat sed printf; do
                ln -sf busybox "$TEMPLATE/rootfs/bin/$a"
        done
        rt_spec_edit "$TEMPLATE" '.root.path = $r' --arg r "$TEMPLATE/rootfs"
        # each engine's rules without GPUs
        export BASE=$BATS_FILE_TMPDIR/base
        mkdir -p "$BASE"
        runc --root "$BATS_FILE_TMPDIR/runc" run --bundle "$TEMPLATE" "ctk-diff-base-$$" </dev/null |
                grep '^rule ' | LC_ALL=C sort >"$BASE/runc"
        ctk_podman run --rm --network=none busybox sh -c "$PROBE" | grep '^rule ' | LC_ALL=C sort >"$BASE/podman"
        engines_docker run --rm --network none busybox sh -c "$PROBE" | grep '^rule ' | LC_ALL=C sort >"$BASE/docker"
        [ -s "$BASE/runc" ] && [ -s "$BASE/podman" ] && [ -s "$BASE/docker" ]
}

teardown_file() {
        local rc=0
        podman_stop || rc=1
        engines_stop || rc=1
        return $rc
}

setup() {
        T=$BATS_TEST_TMPDIR
        CDI=$T/cdi
        mkdir -p "$CDI" "$T/obs"
        N=0
}

teardown() {
        local id
        for id in $(runc --root "$T/runc" list -q 2>/dev/null); do
                runc --root "$T/runc" delete -f "$id" >/dev/null 2>&1 || true
        done
        rm -f "$PODMAN_CDI_DIR"/*.json "$ENGINES_DIR"/cdi/*.json
        fakefs_teardown
}

ctk() { "$CTK_BIN/amd-ctk" --root "$MNT" "$@"; }

# host PROFILE: the profile served over FUSE at $MNT; the runtime's configs
# for the three modes (the spec directory $CDI)
host() {
        fakefs_mount "$PROFILES/$1.json"
        MNT=$FAKEFS_MNT
        local mode
        for mode in legacy auto cdi; do
                jq -n --arg root "$MNT" --arg mode "$mode" --arg cdi "$CDI" --arg t "$T" \
                        '{root: $root, mode: $mode, "cdi-spec-dirs": [$cdi], "state-dir": ($t + "/state"),
                          "log-file": ($t + "/runtime.log"), "log-level": "debug"}' >"$T/config-$mode.json"
        done
}

# spec_generate: our spec of the host (names by index and UUID), and the same
# file where podman and docker 26 read specs; what gpu list says
spec_generate() {
        gpus_update
        ctk cdi generate --device-name-strategy index,uuid --output "$CDI/amd.json" >/dev/null
        spec_share
}
spec_share() {
        # without the simulated host's sysfs mounts (simulation.md): podman's and
        # docker 26's namespaces were made before this FUSE mount and do not see
        # its path; this file compares device nodes and rules
        jq 'del(.containerEdits)' "$CDI/amd.json" >"$PODMAN_CDI_DIR/amd.json"
        jq 'del(.containerEdits)' "$CDI/amd.json" >"$ENGINES_DIR/cdi/amd.json"
}

# gpus_update: what gpu list says of the host now (in $T/gpus.json)
gpus_update() { ctk gpu list --json >"$T/gpus.json"; }

# uuid INDEX: the UUID of that device, as gpu list prints it
uuid() { jq -r --argjson i "$1" '.[] | select(.index == $i) | .uuid' "$T/gpus.json"; }

# names SELECTION: the CDI names of a plain selection (0, all, a-b, a UUID)
names() {
        case $1 in
        0x*) echo "amd.com/gpu=$(tr a-f A-F <<<"${1#0x}" | sed 's/^/0x/')" ;;
        *-*) seq -f 'amd.com/gpu=%g' -s , "${1%-*}" "${1#*-}" ;;
        *) echo "amd.com/gpu=$1" ;;
        esac
}

# runtime MODE JQ-FILTER VALUE: the probe bundle, edited by the filter ($v
# is VALUE), run by our runtime with runc in MODE
runtime() {
        N=$((N + 1))
        mkdir -p "$T/b"
        jq --arg v "$3" "$2" "$TEMPLATE/config.json" >"$T/b/config.json"
        "$RT_SHIM" --amd-config="$T/config-$1.json" --root "$T/runc" run --bundle "$T/b" "ctk-diff-$$-$N" </dev/null
}

# devices SELECTION: --device NAME for each of its CDI names
devices() { names "$1" | tr , '\n' | sed 's/^/--device\n/'; }

# road ROAD SELECTION: the probe's output on that road
road() {
        local env='.process.env += ["AMD_VISIBLE_DEVICES=" + $v]'
        case $1 in
        legacy) runtime legacy "$env" "$2" ;;
        names) runtime auto "$env" "$(names "$2")" ;;
        annotation) runtime auto '.annotations["cdi.k8s.io/differential"] = $v' "$(names "$2")" ;;
        cdi-mode) runtime cdi "$env" "$2" ;;
        podman) mapfile -t d < <(devices "$2") && ctk_podman run --rm --network=none "${d[@]}" busybox sh -c "$PROBE" ;;
        docker) mapfile -t d < <(devices "$2") && engines_docker run --rm --network none "${d[@]}" busybox sh -c "$PROBE" ;;
        esac
}

# observe ROAD SELECTION: what the container got: its nodes, sorted, and the
# cgroup rules it has beyond (+) or without (-) the engine's container
# without GPUs.  Fails when the container could not run.
observe() {
        local raw base
        raw=$(road "$1" "$2" 2>"$T/obs/$1.err") || {
                echo "$1 $2: failed: $(cat "$T/obs/$1.err")"
                return 1
        }
        case $1 in podman | docker) base=$BASE/$1 ;; *) base=$BASE/runc ;; esac
        grep '^node ' <<<"$raw" | LC_ALL=C sort
        LC_ALL=C comm -13 "$base" <(grep '^rule ' <<<"$raw" | LC_ALL=C sort) | sed 's/^rule /rule +/'
        LC_ALL=C comm -23 "$base" <(grep '^rule ' <<<"$raw" | LC_ALL=C sort) | sed 's/^rule /rule -/'
}

# expected SELECTION: the nodes the host's GPUs of the selection have (by
# gpu list), /dev/kfd and the directory /dev/dri, as names
expected() {
        local filter
        case $1 in
        all) filter='.[]' ;;
        0x*) filter='.[] | select(.uuid | ascii_downcase == ($s | ascii_downcase))' ;;
        *-*) filter='.[] | select(.index >= ($s | split("-")[0] | tonumber) and .index <= ($s | split("-")[1] | tonumber))' ;;
        *) filter='.[] | select(.index == ($s | tonumber))' ;;
        esac
        { jq -r --arg s "$1" "$filter | .devices[]" "$T/gpus.json"; printf '%s\n' /dev/dri /dev/kfd; } |
                LC_ALL=C sort -u
}

# observe_into DIR ROAD SELECTION: observe's lines in DIR/ROAD, and
# DIR/ROAD.failed when the container did not run
observe_into() {
        observe "$2" "$3" >"$1/$2" || touch "$1/$2.failed"
}

# differential SELECTION...: every road for every selection; each must give
# what legacy gives, and legacy what gpu list says.  Prints every difference
# (diff -u of legacy against the road) and fails if there is one.  Podman's
# and docker's containers run beside the runtime's.
differential() {
        local sel r rc=0 obs
        for sel; do
                obs=$T/obs/$(tr -c 'a-zA-Z0-9-\n' _ <<<"$sel")
                mkdir -p "$obs"
                observe_into "$obs" podman "$sel" &
                observe_into "$obs" docker "$sel" &
                for r in $ROADS; do
                        case $r in podman | docker) ;; *) observe_into "$obs" "$r" "$sel" ;; esac
                done
                wait
                for r in $ROADS; do
                        [ ! -e "$obs/$r.failed" ] || {
                                cat "$obs/$r"
                                rc=1
                        }
                done
                expected "$sel" >"$obs/expected"
                [ "$(awk '$1 == "node" { print $2 }' "$obs/legacy")" = "$(cat "$obs/expected")" ] || {
                        echo "legacy $sel: the nodes are not those of gpu list:"
                        diff "$obs/expected" <(awk '$1 == "node" { print $2 }' "$obs/legacy")
                        rc=1
                }
                [ "$(grep -c '^rule +c' "$obs/legacy")" -eq "$(grep -c '^node .* c ' "$obs/legacy")" ] || {
                        echo "legacy $sel: not one cgroup rule per node"
                        rc=1
                }
                for r in $ROADS; do
                        [ "$r" = legacy ] || diff -u --label "legacy $sel" --label "$r $sel" "$obs/legacy" "$obs/$r" || rc=1
                done
        done
        return $rc
}

# the selections of a host: 0, all, 1-2 with 3+ devices, the UUID of device U
selections() {
        local n
        n=$(jq length "$T/gpus.json")
        printf '%s\n' 0 all
        [ "$n" -lt 3 ] || echo 1-2
        uuid "$1" | tr A-F a-f
}

profile_differential() { # PROFILE UUID-INDEX
        host "$1"
        spec_generate
        mapfile -t sels < <(selections "$2")
        run differential "${sels[@]}"
        echo "$output"
        [ "$status" -eq 0 ]
}

@test "every profile in sim/profiles has a test here" {
        got=$(cd "$PROFILES" && ls -- *.json | sed 's/\.json$//' | LC_ALL=C sort)
        want=$(grep -o '^@test "[a-z0-9-]*:' "$BATS_TEST_FILENAME" | sed 's/^@test "//; s/:$//' | LC_ALL=C sort)
        [ "$got" = "$want" ]
}

@test "seed-4xmi210: 0, all, 1-2 and GPU 3's UUID give the same nodes and rules on all four roads" {
        profile_differential seed-4xmi210 3
}

@test "mi210-xgmi-x8: 0, all, 1-2 and GPU 7's UUID, the same on all four roads" {
        profile_differential mi210-xgmi-x8 7
}

@test "mi300x-cpx-x8: 0, all (63 partitions), 1-2 and the last GPU's UUID (its 8 partitions), the same on all four roads" {
        profile_differential mi300x-cpx-x8 62
}

@test "mi308-x8: 0, all (32 partitions), 1-2 and a GPU's UUID (its partitions), the same on all four roads" {
        profile_differential mi308-x8 31
}

@test "mixed-vendor: 0, all and GPU 1's UUID, the same on all four roads; the other vendor's GPU on none" {
        profile_differential mixed-vendor 1
        # the host has DRM nodes of another vendor: no road gives them
        [ "$(ls "$MNT/dev/dri" | wc -l)" -gt "$(grep -c '^node /dev/dri/' "$T/obs/all/legacy")" ]
}

@test "no-amdgpu: no spec, and every road refuses the GPU with one line" {
        host no-amdgpu
        run ctk cdi generate --output "$CDI/amd.json"
        [ "$status" -eq 1 ]
        [[ "$output" == *"amdgpu driver is not loaded"* ]]
        [ ! -e "$CDI/amd.json" ]
        for r in $ROADS; do
                for sel in 0 all; do
                        run --separate-stderr road "$r" "$sel"
                        echo "$r $sel: $status: $stderr"
                        [ "$status" -ne 0 ]
                        [ -z "$output" ] # no container ran
                done
        done
        run --separate-stderr road legacy 0
        [ "$stderr" = "amd-container-runtime: cannot provide the requested GPUs: amdgpu driver is not loaded (no /sys/module/amdgpu/drivers): load it with 'modprobe amdgpu' and check 'dmesg | grep -i amdgpu' for errors" ]
        run --separate-stderr road names 0
        [ "$stderr" = "amd-container-runtime: AMD_VISIBLE_DEVICES: amd.com/gpu=0: no CDI spec in $CDI has kind amd.com/gpu (run 'amd-ctk cdi generate')" ]
        run --separate-stderr road cdi-mode 0
        [ "$stderr" = "amd-container-runtime: mode cdi: no CDI spec in $CDI has kind amd.com/gpu; run 'amd-ctk cdi generate --output $CDI/amd.json' (or set cdi-refresh-on-stale to regenerate it)" ]
        run --separate-stderr road podman 0
        [[ "$stderr" == *"unresolvable CDI devices amd.com/gpu=0"* ]]
        run --separate-stderr road docker 0
        [[ "$stderr" == *"unresolvable CDI devices amd.com/gpu=0"* ]]
}

@test "mi300x-spx-x8: the same on all four roads; repartitioned, legacy follows, mode cdi refuses, after its command all agree" {
        profile_differential mi300x-spx-x8 7
        before=$(awk '$1 == "node" { print $2 }' "$T/obs/all/legacy")

        # GPU 0 from SPX to CPX through the FUSE mount: 8 GPUs become 15 devices
        bdf=$(jq -r '.[0].pci' "$T/gpus.json")
        echo CPX >"$MNT/sys/bus/pci/devices/$bdf/current_compute_partition"
        gpus_update
        [ "$(jq length "$T/gpus.json")" -eq 15 ]

        # legacy follows the host
        observe legacy all >"$T/legacy-all"
        [ "$(awk '$1 == "node" { print $2 }' "$T/legacy-all")" = "$(expected all)" ]
        [ "$(awk '$1 == "node" { print $2 }' "$T/legacy-all")" != "$before" ]
        # CDI names still give the stale spec's nodes
        observe names all >"$T/names-all"
        run ! cmp -s "$T/legacy-all" "$T/names-all"

        # mode cdi refuses it: one line with the command that writes it again as it was
        run --separate-stderr road cdi-mode 0
        echo "$stderr"
        [ "$status" -ne 0 ]
        [ -z "$output" ]
        [ "${#stderr_lines[@]}" -eq 1 ]
        [[ "$stderr" == "amd-container-runtime: mode cdi: the CDI spec $CDI/amd.json does not match this host: "* ]]
        cmd=$(sed -n "s/.*; run '\([^']*\)'.*/\1/p" <<<"$stderr")
        [ "$cmd" = "amd-ctk cdi generate --device-name-strategy index,uuid --output $CDI/amd.json" ]

        # run as it says (on this host: AMD_CTK_ROOT), then all four agree again
        AMD_CTK_ROOT=$MNT PATH=$CTK_BIN:$PATH sh -c "$cmd" >/dev/null
        spec_share
        rm -rf "$T/obs"
        mkdir -p "$T/obs"
        run differential 0 all 1-2 "$(uuid 0)"
        echo "$output"
        [ "$status" -eq 0 ]
        [ "$(grep -c '^node /dev/dri/renderD' "$T/obs/all/podman")" -eq 15 ]
        # GPU 0's UUID now names its 8 partitions
        [ "$(grep -c '^node /dev/dri/renderD' "$T/obs/$(uuid 0 | tr -c 'a-zA-Z0-9-\n' _)/docker")" -eq 8 ]
}

@test "the differential can fail: a spec edited by hand (one node's minor, another's mode) differs from legacy" {
        host seed-4xmi210
        spec_generate
        # device 1: renderD131 given minor 135, card3 mode 0666
        jq '(.devices[] | select(.name == "1") | .containerEdits.deviceNodes[]
              | select(.path == "/dev/dri/renderD131")).minor = 135
            | (.devices[] | select(.name == "1") | .containerEdits.deviceNodes[]
              | select(.path == "/dev/dri/card3")).fileMode = 438' "$CDI/amd.json" >"$T/edited.json"
        mv "$T/edited.json" "$CDI/amd.json"
        spec_share
        run differential 1
        echo "$output"
        [ "$status" -eq 1 ]
        # every CDI road shows both edits, against legacy's host nodes
        for r in names annotation podman docker; do
                diff=$(sed -n "/^+++ $r 1\$/,/^--- /p" <<<"$output")
                [[ "$diff" == *"-node /dev/dri/card3 c 226:3 660 0 44"* ]]
                [[ "$diff" == *"+node /dev/dri/card3 c 226:3 666 0 44"* ]]
                [[ "$diff" == *"-node /dev/dri/renderD131 c 226:131 660 0 109"* ]]
                [[ "$diff" == *"+node /dev/dri/renderD131 c 226:135 660 0 109"* ]]
                [[ "$diff" == *"-rule +c 226:131 rwm"* ]]
                [[ "$diff" == *"+rule +c 226:135 rwm"* ]]
        done
        # mode cdi does not take the spec: the nodes are not the host's
        line=$(grep '^cdi-mode 1: failed: ' <<<"$output")
        [[ "$line" == "cdi-mode 1: failed: amd-container-runtime: mode cdi: the CDI spec $CDI/amd.json does not match this host: device card3: /dev/dri/card3 has mode 0660 on this host, 0666 in the spec (and 1 more difference); run "* ]]
}
