#!/usr/bin/env bats
# CDI specs against a live simulated host (amd-ctk-fakefs mount): a spec
# generated over FUSE matches the in-memory profile's, and a repartitioned
# host makes the spec stale, which cdi validate explains.

bats_require_minimum_version 1.5.0

load helpers/common
load helpers/fakefs

setup() {
        fakefs_require_fuse
        CTK="$CTK_BIN/amd-ctk"
        OUT="$BATS_TEST_TMPDIR"
        export AMD_CTK_CONFIG="$BATS_TEST_TMPDIR/absent-config.json"
}

teardown() {
        fakefs_teardown
}

@test "fuse: the spec generated over the FUSE mount equals the one from the profile, and binds the host's sysfs" {
        for name in seed-4xmi210 mi300x-cpx-x8 mi308-x8; do
                fakefs_mount "$PROFILES/$name.json"
                "$CTK" --root "$FAKEFS_MNT" cdi generate --output "$OUT/fuse.json" --device-name-strategy index,uuid
                "$CTK" --profile "$PROFILES/$name.json" cdi generate --output "$OUT/mem.json" \
                        --device-name-strategy index,uuid
                # the devices are the same; a simulated host's sysfs reaches the containers (simulation.md)
                cmp <(jq 'del(.containerEdits)' "$OUT/fuse.json") <(jq . "$OUT/mem.json")
                [ "$(jq -r '.containerEdits.mounts | map(.hostPath + " " + .containerPath) | join(",")' "$OUT/fuse.json")" = \
                        "$FAKEFS_MNT/sys/class /sys/class,$FAKEFS_MNT/sys/devices /sys/devices,$FAKEFS_MNT/sys/bus /sys/bus,$FAKEFS_MNT/sys/module /sys/module" ]
                ! jq -e 'has("containerEdits")' "$OUT/mem.json"
        done
}

@test "fuse: repartitioning GPU 0 of mi300x-spx-x8 to CPX makes the spec stale; regenerating fixes it" {
        fakefs_mount "$PROFILES/mi300x-spx-x8.json"
        f="$OUT/amd.json"
        "$CTK" --root "$FAKEFS_MNT" cdi generate --output "$f" --device-name-strategy index,uuid
        run "$CTK" --root "$FAKEFS_MNT" cdi validate --path "$f"
        [ "$status" -eq 0 ]
        [ "$output" = "$(printf 'Validating CDI spec: %s\nCDI spec is valid' "$f")" ]

        bdf=$("$CTK" --root "$FAKEFS_MNT" gpu list --json | jq -r '.[0].pci')
        echo CPX >"$FAKEFS_MNT/sys/bus/pci/devices/$bdf/current_compute_partition"
        run "$CTK" --root "$FAKEFS_MNT" cdi validate --path "$f"
        [ "$status" -eq 1 ]
        # GPU 0 is now devices 0-7: the old devices 1-7 (GPUs 1-7) are other nodes now ...
        [ "${lines[1]}" = "device 1: in the spec but not on this host: /dev/dri/card8, /dev/dri/renderD136; on this host but not in the spec: /dev/dri/card1, /dev/dri/renderD129" ]
        [ "${lines[7]}" = "device 7: in the spec but not on this host: /dev/dri/card56, /dev/dri/renderD184; on this host but not in the spec: /dev/dri/card7, /dev/dri/renderD135" ]
        # ... GPU 0's UUID device and "all" gained 7 partitions ...
        [[ "${lines[8]}" == "device 0xE3AA140F9A5F9E31: on this host but not in the spec: /dev/dri/card1, /dev/dri/renderD129, "*" and 6 more" ]]
        [[ "${lines[9]}" == "device all: on this host but not in the spec: /dev/dri/card1, "* ]]
        # ... and devices 8-14 are new
        [ "${lines[10]}" = "device 8 is on this host (/dev/dri/card8, /dev/dri/renderD136, /dev/kfd), but not in the spec" ]
        [ "${lines[16]}" = "device 14 is on this host (/dev/dri/card56, /dev/dri/renderD184, /dev/kfd), but not in the spec" ]
        [ "${lines[17]}" = "CDI spec is invalid" ]
        [ "${lines[18]}" = "Please regenerate CDI spec" ]
        [ "${#lines[@]}" -eq 19 ]

        "$CTK" --root "$FAKEFS_MNT" cdi generate --output "$f" --device-name-strategy index,uuid
        run "$CTK" --root "$FAKEFS_MNT" cdi validate --path "$f"
        [ "$status" -eq 0 ]
        [ "$(jq '[.devices[].name] | length' "$f")" -eq 24 ] # 15 indices, 8 UUIDs, all

        # back to SPX: stale again (devices 8-14 are gone)
        echo SPX >"$FAKEFS_MNT/sys/bus/pci/devices/$bdf/current_compute_partition"
        run "$CTK" --root "$FAKEFS_MNT" cdi validate --path "$f"
        [ "$status" -eq 1 ]
        [[ "$output" == *"device 14 is in the spec, but this host has GPUs 0-7 only"* ]]
}

@test "fuse: a memory partition change (NPS4) leaves the device nodes, and the spec, as they were" {
        fakefs_mount "$PROFILES/mi300x-spx-x8.json"
        "$CTK" --root "$FAKEFS_MNT" cdi generate --output "$OUT/amd.json"
        bdf=$("$CTK" --root "$FAKEFS_MNT" gpu list --json | jq -r '.[0].pci')
        echo NPS4 >"$FAKEFS_MNT/sys/bus/pci/devices/$bdf/current_memory_partition"
        [ "$("$CTK" --root "$FAKEFS_MNT" gpu list --json | jq -r '.[0].partition')" = spx_nps4 ]
        run "$CTK" --root "$FAKEFS_MNT" cdi validate --path "$OUT/amd.json"
        [ "$status" -eq 0 ]
}

@test "fuse: a hot-unplugged GPU is named as missing" {
        fakefs_mount "$PROFILES/seed-4xmi210.json"
        "$CTK" --root "$FAKEFS_MNT" cdi generate --output "$OUT/amd.json"
        echo "unplug 0000:63:00.0" >"$FAKEFS_MNT/.fakefs/ctl"
        run "$CTK" --root "$FAKEFS_MNT" cdi validate --path "$OUT/amd.json"
        [ "$status" -eq 1 ]
        [[ "$output" == *"device 3 is in the spec, but this host has GPUs 0-2 only"* ]]
        [[ "$output" == *"device all: in the spec but not on this host: /dev/dri/card0, /dev/dri/renderD128"* ]]
}
