#!/usr/bin/env bats
# podman as a real CDI client of the specs amd-ctk generates: rootful podman
# with private storage and a private /etc/cdi (helpers/podman.bash), busybox
# containers requesting amd.com/gpu devices by index, UUID and "all".

bats_require_minimum_version 1.5.0

load helpers/common
load helpers/dockerd # _ctk_kill_pidfile, used by podman_stop
load helpers/images
load helpers/podman

setup_file() {
        export CTK="$CTK_BIN/amd-ctk"
        export FAKEFS="$CTK_BIN/amd-ctk-fakefs"
        export IMAGES_CACHE=$BATS_FILE_TMPDIR
        podman_start
        podman_import_images
        # the simulated seed host (4 MI210), as the sysfs backend sees it
        export HOST_ROOT="$BATS_FILE_TMPDIR/host"
        "$FAKEFS" materialize "$PROFILES/seed-4xmi210.json" "$HOST_ROOT"
        "$CTK" --root "$HOST_ROOT" cdi generate --output "$PODMAN_CDI_DIR/amd.json" --device-name-strategy index,uuid
}

teardown_file() {
        podman_stop
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
