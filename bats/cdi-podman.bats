#!/usr/bin/env bats
# podman as a real CDI client of the specs amd-ctk generates: rootful podman
# with private storage and a private /etc/cdi (helpers/podman.bash), busybox
# containers requesting amd.com/gpu devices by index, UUID and "all", from a
# spec generated on the simulated seed host served over FUSE.

bats_require_minimum_version 1.5.0

load helpers/common
load helpers/images
load helpers/podman
load helpers/fakefs

setup_file() {
        export CTK="$CTK_BIN/amd-ctk"
        export IMAGES_CACHE=$BATS_FILE_TMPDIR
        fakefs_require_fuse
        # the seed host (4 MI210) and an MI300X host as live /sys and /dev,
        # mounted before podman's private mount namespace is made, which
        # copies them (a spec generated on a simulated host binds its sysfs)
        # (their mount list in this file's directory, not in a shared /tmp file)
        BATS_TEST_TMPDIR=$BATS_FILE_TMPDIR fakefs_mount "$PROFILES/seed-4xmi210.json"
        export SEED_MNT=$FAKEFS_MNT
        BATS_TEST_TMPDIR=$BATS_FILE_TMPDIR fakefs_mount "$PROFILES/mi300x-spx-x8.json"
        export MI300X_MNT=$FAKEFS_MNT
        podman_start
        podman_import_images
        "$CTK" --root "$SEED_MNT" cdi generate --output "$PODMAN_CDI_DIR/amd.json" --device-name-strategy index,uuid
}

teardown_file() {
        local rc=0
        podman_stop || rc=1
        [ -z "${SEED_MNT:-}" ] || fakefs_unmount "$SEED_MNT" || rc=1
        [ -z "${MI300X_MNT:-}" ] || fakefs_unmount "$MI300X_MNT" || rc=1
        return $rc
}

teardown() {
        fakefs_teardown
}

# The device nodes a container sees: `ls -ln /dev/dri /dev/kfd` inside it,
# with the date columns dropped ("mode uid gid major,minor name").
container_nodes() {
        ctk_podman run --rm --network=none --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 "$@" \
                busybox ls -ln /dev/dri /dev/kfd |
                awk '{ if (NF >= 9) print $1, $3, $4, $5 $6, $NF; else print }'
}

@test "podman: --device amd.com/gpu=1 gives GPU 1's card and render nodes and /dev/kfd" {
        run container_nodes --device amd.com/gpu=1
        [ "$status" -eq 0 ]
        [ "$output" = "crw-rw---- 0 109 235,0 /dev/kfd

/dev/dri:
total 0
crw-rw---- 0 44 226,3 card3
crw-rw---- 0 109 226,131 renderD131" ]
}

@test "podman: a UUID name gives the same GPU as its index" {
        run container_nodes --device amd.com/gpu=0x89CAA15875FF5A43
        [ "$status" -eq 0 ]
        uuid_output=$output
        run container_nodes --device amd.com/gpu=1
        [ "$output" = "$uuid_output" ]
}

@test "podman: --device amd.com/gpu=all gives every GPU" {
        run container_nodes --device amd.com/gpu=all
        [ "$status" -eq 0 ]
        [ "$output" = "crw-rw---- 0 109 235,0 /dev/kfd

/dev/dri:
total 0
crw-rw---- 0 44 226,0 card0
crw-rw---- 0 44 226,1 card1
crw-rw---- 0 44 226,2 card2
crw-rw---- 0 44 226,3 card3
crw-rw---- 0 109 226,128 renderD128
crw-rw---- 0 109 226,129 renderD129
crw-rw---- 0 109 226,130 renderD130
crw-rw---- 0 109 226,131 renderD131" ]
}

@test "podman: two devices, as in the README (amd.com/gpu=0 and amd.com/gpu=1)" {
        run container_nodes --device amd.com/gpu=0 --device amd.com/gpu=1
        [ "$status" -eq 0 ]
        [ "$(grep -c '^c' <<<"$output")" -eq 5 ]
        [[ "$output" == *"226,130 renderD130"* ]]
        [[ "$output" == *"226,131 renderD131"* ]]
}

@test "podman: a device the spec does not have is refused" {
        run ctk_podman run --rm --network=none --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 \
                --device amd.com/gpu=7 busybox true
        [ "$status" -ne 0 ]
        [[ "$output" == *"amd.com/gpu=7"* ]]
}

@test "podman: after repartitioning a GPU and regenerating, its partitions are separate devices" {
        FAKEFS_MNT=$MI300X_MNT
        # its own kind, so the seed spec's amd.com/gpu devices do not conflict
        f="$PODMAN_CDI_DIR/mi300x.json"
        "$CTK" --root "$FAKEFS_MNT" cdi generate --output "$f" --class mi300x
        run container_nodes --device amd.com/mi300x=1
        [ "$status" -eq 0 ]
        [[ "$output" == *"226,136 renderD136"* ]] # GPU 1
        bdf=$("$CTK" --root "$FAKEFS_MNT" gpu list --json | jq -r '.[0].pci')
        echo CPX >"$FAKEFS_MNT/sys/bus/pci/devices/$bdf/current_compute_partition"
        run "$CTK" --root "$FAKEFS_MNT" cdi validate --path "$f"
        [ "$status" -eq 1 ]
        "$CTK" --root "$FAKEFS_MNT" cdi generate --output "$f" --class mi300x
        run container_nodes --device amd.com/mi300x=1
        [ "$status" -eq 0 ]
        [ "$(grep -c '^c' <<<"$output")" -eq 3 ]
        [[ "$output" == *"226,129 renderD129"* ]] # the second partition of GPU 0
        rm "$f"
}
