#!/usr/bin/env bats
# Host profiles and amd-ctk-fakefs materialize / import-kfd.

bats_require_minimum_version 1.5.0

load helpers/common

setup() {
        FAKEFS="$CTK_BIN/amd-ctk-fakefs"
        TMP="$(mktemp -d "${BATS_TMPDIR:-/tmp}/fakefs-profiles.XXXXXX")"
}

teardown() {
        rm -rf "$TMP"
}

# Regenerates an imported profile exactly as sim/profiles/README.md says.
regenerate() { # NAME CAPTURE DESCRIPTION
        "$FAKEFS" import-kfd "$CTK_REPO/sim/captures/$2" --name "$1" --description "$3" -o "$TMP/$1.json"
}

@test "imported profiles are up to date with the captures" {
        regenerate mi210-xgmi-x8 topo-mi210-xgmi-pcie \
                "8x MI210 (XGMI hive + PCIe), imported from sim/captures/topo-mi210-xgmi-pcie"
        regenerate mi300x-cpx-x8 topo-mi300-cpx \
                "8x MI300X in CPX/NPS1 (63 partitions: the capture lacks one of 0000:e5:00.0), imported from sim/captures/topo-mi300-cpx"
        regenerate mi308-x8 topology-parsing-mi308 \
                "8x MI308X with 4 partitions each (domains 0 and 1), imported from sim/captures/topology-parsing-mi308"
        for p in mi210-xgmi-x8 mi300x-cpx-x8 mi308-x8; do
                diff -u "$PROFILES/$p.json" "$TMP/$p.json"
        done
}

@test "import-kfd writes to stdout and is deterministic" {
        run "$FAKEFS" import-kfd "$CTK_REPO/sim/captures/topo-mi300-cpx"
        [ "$status" -eq 0 ]
        first="$output"
        run "$FAKEFS" import-kfd "$CTK_REPO/sim/captures/topo-mi300-cpx/"
        [ "$status" -eq 0 ]
        [ "$output" = "$first" ]
        [[ "$output" == *'"name": "topo-mi300-cpx"'* ]]
}

@test "materialized imported profiles reproduce the captured topology files" {
        local counts='^\./nodes/[0-9]+/properties:(caches|mem_banks|io_links|p2p_links)_count '
        for c in topo-mi210-xgmi-pcie:mi210-xgmi-x8 topo-mi300-cpx:mi300x-cpx-x8 topology-parsing-mi308:mi308-x8; do
                cap="$CTK_REPO/sim/captures/${c%%:*}"
                "$FAKEFS" materialize "$PROFILES/${c##*:}.json" "$TMP/${c##*:}"
                topo="$TMP/${c##*:}/sys/class/kfd/kfd/topology"
                # every line of every captured file, as the tree has it; but a
                # node's counts of links, banks and caches follow the
                # directories the tree has (a capture may keep fewer than its
                # counts say; amd-tools.bats checks counts and directories)
                (cd "$cap" && find . -type f | LC_ALL=C sort >"$TMP/files")
                ctk_file_lines "$cap" "$TMP/files" | grep -Ev "$counts" >"$TMP/want"
                ctk_file_lines "$topo" "$TMP/files" | grep -Ev "$counts" | diff "$TMP/want" -
        done
}

@test "every profile materializes" {
        for p in "$PROFILES"/*.json; do
                name=$(basename "$p" .json)
                "$FAKEFS" materialize "$p" "$TMP/$name"
                [ -d "$TMP/$name/sys" ]
                [ -d "$TMP/$name/dev" ]
        done
}

@test "seed profile: device nodes, by-path links and the KFD nodes of the tracker document" {
        "$FAKEFS" materialize "$PROFILES/seed-4xmi210.json" "$TMP/h"
        [ "$(stat -c '%F %t %T %a %u %g' "$TMP/h/dev/dri/renderD130")" = "character special file e2 82 660 0 109" ]
        [ "$(stat -c '%t %T %a %g' "$TMP/h/dev/dri/card2")" = "e2 2 660 44" ]
        [ "$(stat -c '%t %T %a %g' "$TMP/h/dev/kfd")" = "eb 0 660 109" ]
        [ "$(readlink "$TMP/h/dev/dri/by-path/pci-0000:03:00.0-render")" = "../renderD130" ]
        [ "$(stat -L -c '%T' "$TMP/h/dev/dri/by-path/pci-0000:63:00.0-card")" = "0" ]
        # GPUs 0-3 in PCI order are KFD nodes 4, 5, 3, 2
        nodes="$TMP/h/sys/class/kfd/kfd/topology/nodes"
        i=0
        for n in 4 5 3 2; do
                bdf=$(ls "$TMP/h/sys/module/amdgpu/drivers/pci:amdgpu/" | sed -n "$((i + 1))p")
                loc=$(awk '$1 == "location_id" { print $2 }' "$nodes/$n/properties")
                [ "$(printf '0000:%02x:%02x.0' $((loc >> 8)) $(((loc >> 3) & 31)))" = "$bdf" ]
                i=$((i + 1))
        done
        grep -qx 'unique_id 16876665094921906997' "$nodes/4/properties" # 0xEA35F57CC80DEB35
        grep -qx 'unique_id 85538671707489977' "$nodes/2/properties"    # 0x12FE4F7FDAF06B9
        [ "$(cat "$nodes/4/gpu_id")" = "12261" ]
}

@test "no-amdgpu profile has no driver, no KFD and no DRM nodes" {
        "$FAKEFS" materialize "$PROFILES/no-amdgpu.json" "$TMP/h"
        [ ! -e "$TMP/h/sys/module/amdgpu" ]
        [ ! -e "$TMP/h/sys/class/kfd" ]
        [ ! -e "$TMP/h/dev/kfd" ]
        [ ! -e "$TMP/h/dev/dri" ]
        [ "$(cat "$TMP/h/sys/bus/pci/devices/0000:03:00.0/vendor")" = "0x1002" ]
}

@test "mixed-vendor profile: every GPU has its own DRM nodes, only AMD ones have KFD nodes" {
        "$FAKEFS" materialize "$PROFILES/mixed-vendor.json" "$TMP/h"
        [ "$(readlink "$TMP/h/sys/bus/pci/devices/0000:00:02.0/driver")" = "../../../bus/pci/drivers/i915" ]
        [ "$(readlink "$TMP/h/dev/dri/by-path/pci-0000:01:00.0-card")" = "../card1" ]
        [ "$(cat "$TMP/h/sys/bus/pci/devices/0000:01:00.0/vendor")" = "0x10de" ]
        [ "$(ls "$TMP/h/sys/module/amdgpu/drivers/pci:amdgpu/")" = "$(printf '0000:43:00.0\n0000:63:00.0')" ]
        [ "$(ls "$TMP/h/sys/class/kfd/kfd/topology/nodes" | wc -l)" -eq 3 ]
}

@test "a malformed profile is reported as file:line:column" {
        printf '{\n  "gpus": [\n    {"pci": "0000:03:00.0",,}\n  ]\n}\n' >"$TMP/bad.json"
        run "$FAKEFS" materialize "$TMP/bad.json" "$TMP/h"
        [ "$status" -eq 1 ]
        [[ "$output" == "amd-ctk-fakefs: $TMP/bad.json:3:28: "* ]]
        [ "${#lines[@]}" -eq 1 ]
        [ ! -e "$TMP/h/sys" ]
}

@test "an unknown key is rejected with its location" {
        printf '{"gpus": [{"pci": "0000:03:00.0", "device_id": "0x740f", "card_minor": 0, "render_minor": 128, "xcd": 8}]}' >"$TMP/bad.json"
        run "$FAKEFS" materialize "$TMP/bad.json" "$TMP/h"
        [ "$status" -eq 1 ]
        [[ "$output" == *"$TMP/bad.json: gpus[0]: unknown key \"xcd\""* ]]
}

@test "materialize refuses an existing tree and import-kfd a non-capture" {
        "$FAKEFS" materialize "$PROFILES/seed-4xmi210.json" "$TMP/h"
        run "$FAKEFS" materialize "$PROFILES/seed-4xmi210.json" "$TMP/h"
        [ "$status" -eq 1 ]
        [[ "$output" == *"exists already"* ]]
        run "$FAKEFS" import-kfd "$TMP"
        [ "$status" -eq 1 ]
        [[ "$output" == *"is not a KFD topology capture"* ]]
}

@test "import-kfd -o leaves the old file untouched on failure" {
        echo keep >"$TMP/out.json"
        run "$FAKEFS" import-kfd "$TMP/missing" -o "$TMP/out.json"
        [ "$status" -eq 1 ]
        [ "$(cat "$TMP/out.json")" = keep ]
        [ "$(ls -A "$TMP")" = out.json ]
}

@test "help on every command, usage errors exit 2" {
        for args in "" "--help" "-h" "help" "materialize --help" "import-kfd -h" "help materialize"; do
                run "$FAKEFS" $args
                [ "$status" -eq 0 ]
                [[ "$output" == *USAGE:* ]]
        done
        for args in "frobnicate" "materialize" "materialize a" "materialize a b c" "materialize --bogus a b" \
                "import-kfd" "import-kfd a b" "import-kfd -o" "import-kfd --bogus a"; do
                run --separate-stderr "$FAKEFS" $args
                [ "$status" -eq 2 ]
                [ "${#stderr_lines[@]}" -eq 1 ]
                [[ "$stderr" == "amd-ctk-fakefs"*" (see 'amd-ctk-fakefs"*" --help')" ]]
        done
}
