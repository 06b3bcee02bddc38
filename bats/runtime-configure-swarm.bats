#!/usr/bin/env bats
# `amd-ctk runtime configure --swarm-resources` and `--swarm-refresh` on
# daemon.json files: Docker Swarm's node-generic-resources from the GPUs of
# a simulated host, other kinds kept, --dry-run, --remove, the errors; every
# id written is resolved back by the runtime itself (a bundle with
# DOCKER_RESOURCE_AMD_GPU=<id>, the runtime with /bin/true as its runc) to
# exactly the device `amd-ctk gpu list` has under that id; the refresh after
# a repartition of a FUSE-mounted host.  bats/docker-swarm-cluster.bats runs
# the entries in a three-node swarm.

load helpers/common
load helpers/fakefs

setup() {
        AMD_CTK="$CTK_BIN/amd-ctk"
        ctk_require_built "$AMD_CTK" "$CTK_BIN/amd-container-runtime" || return 1
        DIR="$BATS_TEST_TMPDIR/d"
        mkdir -p "$DIR"
        CFG="$DIR/daemon.json"
        TK="$DIR/toolkit.json"
        host root "$(ctk_host "$PROFILES/seed-4xmi210.json")"
}

teardown() { fakefs_teardown; }

# host KEY VALUE: the toolkit configuration (the simulated host: root and
# a materialized tree, as the runtime reads it; a private state directory,
# /bin/true as runc).
host() {
        jq -n --arg k "$1" --arg v "$2" --arg s "$DIR/state" \
                '{($k): $v, "state-dir": $s, "runtime-path": "/bin/true", "log-file": "/dev/null"}' >"$TK"
}

swarm() {
        run "$AMD_CTK" --config "$TK" runtime configure --config-path "$CFG" "$@"
}

refresh() {
        run "$AMD_CTK" --config "$TK" runtime configure --swarm-refresh "$@"
}

# The node-generic-resources entries, one a line.
entries() {
        jq -r '.["node-generic-resources"][]?' "$CFG"
}

# resolved ID: the DRM nodes the runtime gives a container whose
# DOCKER_RESOURCE_AMD_GPU is ID, sorted, on one line.
resolved() {
        local b=$DIR/bundle
        mkdir -p "$b"
        jq -n --arg e "DOCKER_RESOURCE_AMD_GPU=$1" \
                '{ociVersion: "1.0.2", process: {args: ["true"], env: [$e], cwd: "/"}, root: {path: "rootfs"}, linux: {}}' \
                >"$b/config.json"
        "$CTK_BIN/amd-container-runtime" --amd-config="$TK" create --bundle "$b" c1 || return 1
        jq -r '[.linux.devices[].path | select(startswith("/dev/dri/"))] | sort | join(" ")' "$b/config.json"
}

# every entry of the file resolves to the device with its index (the DRM
# nodes gpu list shows for it), and to it alone
assert_entries_resolve() {
        local i=0 id got want=()
        mapfile -t want < <("$AMD_CTK" --config "$TK" gpu list --json | jq -r '.[] | .devices | sort | join(" ")')
        for id in $(entries | sed -n 's/^AMD_GPU=//p'); do
                got=$(resolved "$id")
                [ "$got" = "${want[$i]}" ] || {
                        echo "AMD_GPU=$id resolves to '$got', but device $i has '${want[$i]}'"
                        return 1
                }
                i=$((i + 1))
        done
        [ "$i" -eq "${#want[@]}" ]
}

@test "seed host: one AMD_GPU=<uuid> entry per GPU, other kinds kept in place, the .bak, the record" {
        cat >"$CFG" <<'EOF'
{
  "node-generic-resources": ["NVIDIA_GPU=GPU-8e2c7b1a", "AMD_GPU=0x378041e1ada6015", "GPU_COMPUTE=0x583de6f2d99dc333"],
  "debug": true
}
EOF
        cp "$CFG" "$DIR/before"
        swarm --set-as-default --swarm-resources
        [ "$status" -eq 0 ]
        [ "$output" = "Loading configuration from: $CFG
Wrote 4 AMD_GPU entries to node-generic-resources (uuid ids; 1 before)
Updated the config file: $CFG
Please restart docker daemon: dockerd reads node-generic-resources only when it starts (a reload does not apply them)" ]
        [ "$(entries)" = "NVIDIA_GPU=GPU-8e2c7b1a
AMD_GPU=0xEA35F57CC80DEB35
AMD_GPU=0x89CAA15875FF5A43
AMD_GPU=0x6E32F10EFC982B4C
AMD_GPU=0x12FE4F7FDAF06B9
GPU_COMPUTE=0x583de6f2d99dc333" ]
        [ "$(jq -r '.["default-runtime"]' "$CFG")" = amd ]
        [ "$(jq -r '.debug' "$CFG")" = true ]
        cmp "$CFG.bak" "$DIR/before"
        [ "$(jq -c . "$DIR/state/swarm-resources.json")" = \
                "{\"config-path\":\"$CFG\",\"kind\":\"AMD_GPU\",\"ids\":\"uuid\",\"values\":[\"0xEA35F57CC80DEB35\",\"0x89CAA15875FF5A43\",\"0x6E32F10EFC982B4C\",\"0x12FE4F7FDAF06B9\"]}" ]
        assert_entries_resolve
        # the same again: nothing to change
        swarm --set-as-default --swarm-resources
        [ "$status" -eq 0 ]
        [[ "$output" == *"The AMD_GPU entries of node-generic-resources are up to date (4)"* ]]
        [[ "$output" != *Updated* ]]
}

@test "63 partitions: 0x<UUID>:<N> per partition, unique, each resolved by the runtime to that partition" {
        host root "$(ctk_host "$PROFILES/mi300x-cpx-x8.json")"
        swarm --set-as-default --swarm-resources
        [ "$status" -eq 0 ]
        [ "$(entries | wc -l)" -eq 63 ]
        [ "$(entries | sort -u | wc -l)" -eq 63 ]
        [ "$(entries | head -n 2)" = "AMD_GPU=0xE3AA140F9A5F9E31:0
AMD_GPU=0xE3AA140F9A5F9E31:1" ]
        # the GPU with 7 partitions ends at :6
        [ "$(entries | grep -c ':7$')" -eq 7 ]
        assert_entries_resolve
}

@test "--swarm-resource-ids index: gpu<N> entries (Swarm would count a plain number), resolved by the runtime" {
        host root "$(ctk_host "$PROFILES/mi300x-cpx-x8.json")"
        swarm --set-as-default --swarm-resources --swarm-resource-ids index
        [ "$status" -eq 0 ]
        [ "$(entries)" = "$(seq 0 62 | sed 's/^/AMD_GPU=gpu/')" ]
        assert_entries_resolve
        [ "$(jq -r .ids "$DIR/state/swarm-resources.json")" = index ]
        # the uuid form replaces them
        swarm --set-as-default --swarm-resources=AMD_GPU --swarm-resource-ids=uuid
        [ "$(entries | head -n 1)" = "AMD_GPU=0xE3AA140F9A5F9E31:0" ]
}

@test "another kind: only its entries are ours; a kind the runtime does not read is pointed out" {
        echo '{"node-generic-resources": ["AMD_GPU=0x1", "NVIDIA_GPU=GPU-1"]}' >"$CFG"
        swarm --set-as-default --swarm-resources=GPU
        [ "$status" -eq 0 ]
        [ "$(entries)" = "AMD_GPU=0x1
NVIDIA_GPU=GPU-1
GPU=0xEA35F57CC80DEB35
GPU=0x89CAA15875FF5A43
GPU=0x6E32F10EFC982B4C
GPU=0x12FE4F7FDAF06B9" ]
        [[ "$output" != *Note:* ]]
        swarm --set-as-default --swarm-resources=ACCEL
        [ "$status" -eq 0 ]
        [[ "$output" == *"Note: the runtime reads DOCKER_RESOURCE_<KIND> for the kinds of the resource-kinds setting only (AMD_GPU, GPU): add ACCEL there"* ]]
        # without --set-as-default, a default runtime other than amd is pointed out
        swarm --swarm-resources
        [[ "$output" != *"default runtime"* ]]
        echo '{}' >"$CFG"
        swarm --swarm-resources
        [[ "$output" == *"Note: Swarm tasks get GPUs through the default runtime only: add --set-as-default (default-runtime is not set)"* ]]
}

@test "--dry-run prints the file and writes nothing; --remove takes out our entries, the runtime and the record" {
        echo '{"node-generic-resources": ["NVIDIA_GPU=GPU-1"]}' >"$CFG"
        cp "$CFG" "$DIR/before"
        swarm --set-as-default --swarm-resources --dry-run
        [ "$status" -eq 0 ]
        [ "$(jq -c '.["node-generic-resources"]' <<<"$output")" = \
                '["NVIDIA_GPU=GPU-1","AMD_GPU=0xEA35F57CC80DEB35","AMD_GPU=0x89CAA15875FF5A43","AMD_GPU=0x6E32F10EFC982B4C","AMD_GPU=0x12FE4F7FDAF06B9"]' ]
        cmp "$CFG" "$DIR/before"
        [ ! -e "$DIR/state" ]
        [ ! -e "$CFG.bak" ]
        swarm --set-as-default --swarm-resources
        [ -e "$DIR/state/swarm-resources.json" ]
        swarm --remove --swarm-resources
        [ "$status" -eq 0 ]
        [[ "$output" == *"Removed the 4 AMD_GPU entries of node-generic-resources"* ]]
        [ "$(jq -c . "$CFG")" = '{"node-generic-resources":["NVIDIA_GPU=GPU-1"],"features":{"cdi":true}}' ]
        [ ! -e "$DIR/state/swarm-resources.json" ]
        # a refresh now finds nothing to do
        refresh
        [ "$status" -eq 0 ]
        [ "$output" = "No Swarm resources to refresh: amd-ctk runtime configure --swarm-resources has written none" ]
}

@test "a node without amdgpu: no entries of ours (and those there are removed), exit 0" {
        host root "$(ctk_host "$PROFILES/no-amdgpu.json")"
        echo '{"node-generic-resources": ["AMD_GPU=0x1", "X=1"]}' >"$CFG"
        swarm --set-as-default --swarm-resources
        [ "$status" -eq 0 ]
        [[ "$output" == *"No AMD GPU found (the amdgpu driver is not loaded): this node offers no AMD_GPU to Swarm"* ]]
        [ "$(entries)" = "X=1" ]
}

@test "errors: one line, exit 1 or 2, the file byte-identical" {
        printf '{\n  "node-generic-resources": "AMD_GPU=0x1"\n}\n' >"$CFG"
        cp "$CFG" "$DIR/before"
        swarm --swarm-resources
        [ "$status" -eq 1 ]
        [ "$output" = "Loading configuration from: $CFG
amd-ctk: $CFG:2:3: \"node-generic-resources\" must be an array of \"KIND=VALUE\" strings, not a string; fix or remove it and try again" ]
        cmp "$CFG" "$DIR/before"
        [ ! -e "$DIR/state/swarm-resources.json" ]
        echo '{}' >"$CFG"
        cp "$CFG" "$DIR/before"
        # the arguments of each call, separated by ';'
        for args in "--swarm-resources=AMD GPU" "--swarm-resources=" "--swarm-resource-ids;index" \
                "--swarm-resources;--swarm-resource-ids=name" "--swarm-resources;--unset-as-default" \
                "--swarm-resources;--remove;--swarm-resource-ids=uuid" "--swarm-resources;--runtime=podman" \
                "--swarm-refresh;--set-as-default"; do
                IFS=';' read -r -a words <<<"$args"
                swarm "${words[@]}"
                [ "$status" -ne 0 ] || { echo "accepted: $args"; return 1; }
                [ "${#lines[@]}" -eq 1 ] || { echo "$args: $output"; return 1; }
                [[ "$output" == "amd-ctk runtime configure: "*swarm* ]] || { echo "$args: $output"; return 1; }
        done
        cmp "$CFG" "$DIR/before"
        # a GPU without a UUID: the uuid form cannot name it, the index form can
        jq 'del(.gpus[1].unique_id)' "$PROFILES/seed-4xmi210.json" >"$DIR/no-uuid.json"
        host root "$(ctk_host "$DIR/no-uuid.json")"
        swarm --swarm-resources
        [ "$status" -eq 1 ]
        [ "${lines[-1]}" = "amd-ctk: cannot name the GPUs for Swarm by UUID (--swarm-resource-ids index names them by index): GPU 1 reports no UUID" ]
        cmp "$CFG" "$DIR/before"
        swarm --swarm-resources --swarm-resource-ids index
        [ "$status" -eq 0 ]
        # the record (which names the file root rewrites) is refused in a
        # state directory another user may write to (its group, here); the
        # file stays as it was
        chmod 0770 "$DIR/state"
        cp "$CFG" "$DIR/before"
        why="GPU Tracker state directory $DIR/state is not trusted: it is writable by its group (mode 0770): refused (chown root:root $DIR/state; chmod 0700 $DIR/state)"
        swarm --swarm-resources --swarm-resource-ids index
        [ "$status" -eq 1 ]
        [ "${lines[-1]}" = "amd-ctk: cannot record the Swarm resources written: $why" ] || { echo "$output"; false; }
        cmp "$CFG" "$DIR/before"
        refresh
        [ "$status" -eq 1 ]
        [ "$output" = "amd-ctk: cannot read the Swarm resources' record: $why" ]
}

@test "--swarm-refresh after a repartition: entries rewritten and a restart asked for; up to date; edited entries left alone" {
        fakefs_require_fuse
        fakefs_mount "$PROFILES/mi300x-spx-x8.json"
        host root "$FAKEFS_MNT"
        echo '{"node-generic-resources": ["NVIDIA_GPU=GPU-1"]}' >"$CFG"
        swarm --set-as-default --swarm-resources
        [ "$(entries | grep -c '^AMD_GPU=')" -eq 8 ]
        uuid=$("$AMD_CTK" --root "$FAKEFS_MNT" gpu list --json | jq -r '.[0].uuid')
        [ "$(entries | sed -n 2p)" = "AMD_GPU=$uuid" ]
        bdf=$("$AMD_CTK" --root "$FAKEFS_MNT" gpu list --json | jq -r '.[0].pci')
        echo CPX >"$FAKEFS_MNT/sys/bus/pci/devices/$bdf/current_compute_partition"
        # the refresh finds the file and kind in the record, from any directory
        cd /
        refresh
        [ "$status" -eq 0 ]
        [ "$output" = "Loading configuration from: $CFG
Wrote 15 AMD_GPU entries to node-generic-resources (uuid ids; 8 before)
Updated the config file: $CFG
Please restart docker daemon: dockerd reads node-generic-resources only when it starts (a reload does not apply them)" ]
        [ "$(entries | sed -n '1,3p')" = "NVIDIA_GPU=GPU-1
AMD_GPU=$uuid:0
AMD_GPU=$uuid:1" ]
        assert_entries_resolve
        # nothing changed since: nothing written
        cp "$CFG" "$DIR/before"
        refresh
        [ "$status" -eq 0 ]
        [ "$output" = "Loading configuration from: $CFG
The AMD_GPU entries of node-generic-resources are up to date (15)" ]
        cmp "$CFG" "$DIR/before"
        # --dry-run shows what a refresh would write
        echo SPX >"$FAKEFS_MNT/sys/bus/pci/devices/$bdf/current_compute_partition"
        refresh --dry-run
        [ "$status" -eq 0 ]
        [ "$(jq '.["node-generic-resources"] | length' <<<"$output")" -eq 9 ]
        cmp "$CFG" "$DIR/before"
        # entries edited by hand are not ours any more: left alone
        jq '.["node-generic-resources"] |= .[:3]' "$DIR/before" >"$CFG"
        cp "$CFG" "$DIR/edited"
        refresh
        [ "$status" -eq 0 ]
        [[ "$output" == *"Left the AMD_GPU entries of node-generic-resources as they are: they are no longer those amd-ctk wrote (run amd-ctk runtime configure --swarm-resources=AMD_GPU to replace them)"* ]]
        cmp "$CFG" "$DIR/edited"
}
