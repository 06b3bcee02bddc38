#!/usr/bin/env bats
# AMD's own tools are the judges of the simulated hosts: Debian's rocm-smi
# and amd-smi (never rebuilt, patched or wrapped; the root of
# `sh sim/engines.sh --tools`) run with a simulated host as their /sys and
# /dev (helpers/amd_tools.bash), as a FUSE mount and as a materialized tree,
# and agree with `amd-ctk gpu list --json`.

bats_require_minimum_version 1.5.0

load helpers/common
load helpers/fakefs
load helpers/amd_tools

# the profiles with AMD GPUs (no-amdgpu has none: its driver is not loaded)
AMD_PROFILES="seed-4xmi210 mi210-xgmi-x8 mi300x-cpx-x8 mi300x-spx-x8 mi308-x8 mixed-vendor"
ROCM_OPTS="--showuniqueid --showbus --showhw --showproductname --showcomputepartition --showmemorypartition --showtopo"

setup_file() {
        ctk_require_built "$CTK_BIN/amd-ctk" "$CTK_BIN/amd-ctk-fakefs" || return 1
        amd_tools_root || return 1
        export AMD_TOOLS_ROOT
        local p
        for p in $AMD_PROFILES; do
                "$CTK_BIN/amd-ctk-fakefs" materialize "$PROFILES/$p.json" "$BATS_FILE_TMPDIR/$p" || return 1
        done
}

setup() { fakefs_require_fuse; }
teardown() { fakefs_teardown; }

# host_of PROFILE KIND: the host's directory (KIND fuse: a new mount, its
# server's scheduler group weighted as amd_tool's)
host_of() {
        if [ "$2" = fuse ]; then
                fakefs_mount "$PROFILES/$1.json" >&2 || return 1
                echo -10 >"/proc/$FAKEFS_PID/autogroup" 2>/dev/null
                echo "$FAKEFS_MNT"
        else
                echo "$BATS_FILE_TMPDIR/$1"
        fi
}

# tool_ok HOST COMMAND...: the tool exits 0 and says nothing of a crash
tool_ok() {
        run amd_tool "$@"
        if [ "$status" -ne 0 ] || [[ "$output" == *Assertion* ]] || [[ "$output" == *Traceback* ]] ||
                [[ "$output" == *Aborted* ]] || [[ "$output" == *"not found in modules"* ]]; then
                echo "FAILED (exit $status): ${*:2}"
                printf '%s\n' "$output" | tail -n 30
                return 1
        fi
}

# every option runs on every profile; no "Not supported" where a real host
# of that kind has the answer (unique id, bus, hardware, topology), amd-smi
# list lists every GPU and partition
runs_everywhere() {
        local p host n section
        for p in $AMD_PROFILES; do
                host=$(host_of "$p" "$1") || return 1
                n=$("$CTK_BIN/amd-ctk" --root "$host" gpu list --json | jq length)
                tool_ok "$host" rocm-smi
                [ "$(printf '%s\n' "$output" | grep -cE '^[0-9]+ ')" -eq "$n" ] || {
                        echo "$p: rocm-smi lists $(printf '%s\n' "$output" | grep -cE '^[0-9]+ ') GPUs, amd-ctk $n"
                        return 1
                }
                # shellcheck disable=SC2086
                tool_ok "$host" rocm-smi $ROCM_OPTS
                for section in "Unique ID" "PCI Bus ID" "Concise Hardware Info" "Weight between two GPUs"; do
                        printf '%s\n' "$output" | awk -v s="$section" '
                                index($0, s) { on = 1; next } on && /^=+/ { exit } on && /Not supported/ { bad = 1 }
                                END { exit bad }' || {
                                echo "$p: rocm-smi says 'Not supported' under $section"
                                return 1
                        }
                done
                tool_ok "$host" amd-smi list
                [ "$(printf '%s\n' "$output" | grep -c '^GPU: ')" -eq "$n" ] || {
                        echo "$p: amd-smi list lists $(printf '%s\n' "$output" | grep -c '^GPU: ') GPUs, amd-ctk $n"
                        return 1
                }
                if [ "$1" = fuse ]; then fakefs_unmount "$host"; fi
        done
}

@test "rocm-smi (every option) and amd-smi list run on every profile, materialized" {
        runs_everywhere tree
}

@test "rocm-smi (every option) and amd-smi list run on every profile, over FUSE" {
        runs_everywhere fuse
}

# rows "INDEX UUID BUS NODE GUID" of rocm-smi and "INDEX BDF NODE GUID" of amd-smi list
rocm_rows() {
        amd_tool "$1" rocm-smi --showuniqueid --showbus --showhw | awk '
                /Unique ID:/ { i = $1; gsub(/[^0-9]/, "", i); u[i] = tolower($NF) }
                /PCI Bus:/ { i = $1; gsub(/[^0-9]/, "", i); b[i] = tolower($NF) }
                /^[0-9]+ +[0-9]+ +(0x|N\/A)/ { n[$1] = $2; g[$1] = $4 }
                END { for (i in u) print i, u[i], b[i], n[i], g[i] }' | sort -n
}
amdsmi_rows() {
        amd_tool "$1" amd-smi list | awk '
                /^GPU:/ { i = $2 } /BDF:/ { b[i] = tolower($2) } /NODE_ID:/ { n[i] = $2 } /KFD_ID:/ { k[i] = $2 }
                END { for (i in b) print i, b[i], n[i], k[i] }' | sort -n
}

@test "GPU[i] of rocm-smi and of amd-smi list is index i of amd-ctk gpu list --json: UUID, bus, KFD node, GUID" {
        # A partition k of the GPU at dddd:bb:dd.0 is the KFD node whose
        # location_id has function bits k: both tools show its bus as
        # dddd:bb:dd.k; amd-ctk shows the GPU's PCI address (the device the
        # partition belongs to) and the partition's own KFD node and gpu_id.
        local p host want
        for p in $AMD_PROFILES; do
                host=$BATS_FILE_TMPDIR/$p
                want=$("$CTK_BIN/amd-ctk" --root "$host" gpu list --json | jq -r '
                        reduce .[] as $g ({rows: [], k: {}};
                                .k[$g.pci] = ((.k[$g.pci] // -1) + 1)
                                | .rows += [[$g.index, ($g.uuid | ascii_downcase),
                                             ($g.pci[0:-1] + (.k[$g.pci] | tostring)), $g.kfd_node, $g.gpu_id]])
                        | .rows[] | map(tostring) | join(" ")')
                run rocm_rows "$host"
                [ "$output" = "$want" ] || {
                        echo "$p: rocm-smi (+) and amd-ctk (-) disagree:"
                        diff <(echo "$want") <(echo "$output")
                        return 1
                }
                run amdsmi_rows "$host"
                [ "$output" = "$(echo "$want" | awk '{ print $1, $3, $4, $5 }')" ] || {
                        echo "$p: amd-smi list (+) and amd-ctk (-) disagree:"
                        diff <(echo "$want" | awk '{ print $1, $3, $4, $5 }') <(echo "$output")
                        return 1
                }
        done
}

@test "the GPU tracker document's rocm-smi table, by Debian's rocm-smi on seed-4xmi210 over FUSE" {
        fakefs_mount "$PROFILES/seed-4xmi210.json"
        tool_ok "$FAKEFS_MNT" rocm-smi
        diff -u - <(printf '%s\n' "$output" | grep -E '^[0-9]+ ' | sed 's/ *$//') <<'EOF_ROWS'
0       4     0x740f,   12261  33.0°C  42.0W  N/A, N/A, 0         800Mhz  1600Mhz  0%   auto  300.0W  0%     0%
1       5     0x740f,   13566  38.0°C  40.0W  N/A, N/A, 0         800Mhz  1600Mhz  0%   auto  300.0W  0%     0%
2       3     0x740f,   57300  34.0°C  42.0W  N/A, N/A, 0         800Mhz  1600Mhz  0%   auto  300.0W  0%     0%
3       2     0x740f,   1997   38.0°C  41.0W  N/A, N/A, 0         800Mhz  1600Mhz  0%   auto  300.0W  0%     0%
EOF_ROWS
        # without sensors in the profile: what rocm-smi shows when the files are absent
        tool_ok "$BATS_FILE_TMPDIR/mi210-xgmi-x8" rocm-smi
        printf '%s\n' "$output" | grep -E '^0 ' | grep -q 'N/A     N/A    N/A, N/A, 0         N/A'
}

# kfd_files DIR: the files of DIR's links' and caches' properties and of its
# memory banks, one a line, relative to DIR
kfd_files() {
        (cd "$1" && find . \( -path '*_links/*/properties' -o -path '*/mem_banks/*' -o -path '*/caches/*/properties' \) \
                -type f | LC_ALL=C sort)
}

# kfd_counts DIR: "NODE KIND N" for every node of DIR and KIND io_links,
# p2p_links, mem_banks, caches: as its properties says (_count) and, with
# --dirs, as its directories hold
kfd_counts() {
        if [ "${2:-}" = --dirs ]; then
                (cd "$1" && { ls; find . -mindepth 3 -maxdepth 3 | cut -d/ -f2,3; } | awk -F/ '
                        NF == 1 { node[$1] } NF == 2 { n[$1 " " $2]++ }
                        END { split("io_links p2p_links mem_banks caches", k, " ")
                              for (i in node) for (j in k) print i, k[j], n[i " " k[j]] + 0 }')
        else
                (cd "$1" && awk '$1 ~ /^(io_links|p2p_links|mem_banks|caches)_count$/ {
                        n = FILENAME; sub(/\/properties$/, "", n); k = $1; sub(/_count$/, "", k); print n, k, $2 }' */properties)
        fi | LC_ALL=C sort
}

@test "the KFD topology of the captures, byte for byte; counts agree with the directories" {
        local c p cap host
        for c in topo-mi210-xgmi-pcie:mi210-xgmi-x8 topo-mi300-cpx:mi300x-cpx-x8 topology-parsing-mi308:mi308-x8; do
                cap=$CTK_REPO/sim/captures/${c%%:*}/nodes
                host=$BATS_FILE_TMPDIR/${c##*:}/sys/class/kfd/kfd/topology/nodes
                kfd_files "$cap" >"$BATS_TEST_TMPDIR/files"
                [ -s "$BATS_TEST_TMPDIR/files" ]
                # the capture's files, as the host has them
                ctk_file_lines "$cap" "$BATS_TEST_TMPDIR/files" >"$BATS_TEST_TMPDIR/want"
                ctk_file_lines "$host" "$BATS_TEST_TMPDIR/files" | diff "$BATS_TEST_TMPDIR/want" -
        done
        for p in $AMD_PROFILES; do
                counts_agree "$BATS_FILE_TMPDIR/$p" "$p"
        done
}

# counts_agree HOST WHAT: every KFD node of HOST has the four counts, and
# they agree with the node's directories
counts_agree() {
        local nodes=$1/sys/class/kfd/kfd/topology/nodes
        kfd_counts "$nodes" >"$BATS_TEST_TMPDIR/counts"
        [ "$(wc -l <"$BATS_TEST_TMPDIR/counts")" -eq $(($(ls "$nodes" | wc -l) * 4)) ]
        kfd_counts "$nodes" --dirs | diff "$BATS_TEST_TMPDIR/counts" - || {
                echo "$2: the counts of a node's properties (<) and its directories (>) differ"
                return 1
        }
}

@test "rocm-smi --showtopo on mi210-xgmi-x8: the capture's XGMI hives, weights and hops" {
        tool_ok "$BATS_FILE_TMPDIR/mi210-xgmi-x8" rocm-smi --showtopo
        printf '%s\n' "$output" | sed -n '/Weight between/,/^$/p' | grep -E '^GPU0 ' | grep -qE '^GPU0 +0 +15 +15 +15 +72 +72 +72 +72'
        printf '%s\n' "$output" | sed -n '/Hops between/,/^$/p' | grep -qE '^GPU4 +3 +3 +3 +3 +0 +1 +1 +1'
        printf '%s\n' "$output" | sed -n '/Link Type/,/^$/p' | grep -qE '^GPU0 +0 +XGMI +XGMI +XGMI +PCIE +PCIE +PCIE +PCIE'
}

# rocm-smi's "UUID BUS" rows and amd-ctk's "UUID GPU-BUS.k" rows of a host
same_devices() {
        local want got
        want=$("$CTK_BIN/amd-ctk" --root "$1" gpu list --json | jq -r '
                reduce .[] as $g ({rows: [], k: {}}; .k[$g.pci] = ((.k[$g.pci] // -1) + 1)
                        | .rows += [($g.uuid | ascii_downcase) + " " + $g.pci[0:-1] + (.k[$g.pci] | tostring)])
                | .rows[]')
        got=$(rocm_rows "$1" | awk '{ print $2, $3 }')
        [ "$want" = "$got" ] || {
                echo "after $2: rocm-smi (+) and amd-ctk gpu list (-) disagree"
                diff <(echo "$want") <(echo "$got")
                return 1
        }
}

@test "live: mi300x SPX -> CPX -> SPX through current_compute_partition, rocm-smi and amd-ctk agree at every step" {
        fakefs_mount "$PROFILES/mi300x-spx-x8.json"
        local part=$FAKEFS_MNT/sys/bus/pci/devices/0000:05:00.0/current_compute_partition
        same_devices "$FAKEFS_MNT" SPX
        [ "$(rocm_rows "$FAKEFS_MNT" | wc -l)" -eq 8 ]
        echo CPX >"$part"
        same_devices "$FAKEFS_MNT" CPX
        [ "$(rocm_rows "$FAKEFS_MNT" | wc -l)" -eq 15 ]
        tool_ok "$FAKEFS_MNT" rocm-smi --showcomputepartition
        [[ "$output" == *"GPU[0]		: Compute Partition: CPX"* ]]
        # the partitions' KFD nodes have their links, banks and caches, as the driver makes them
        [ "$(ls "$FAKEFS_MNT/sys/class/kfd/kfd/topology/nodes" | wc -l)" -eq 17 ]
        counts_agree "$FAKEFS_MNT" CPX
        tool_ok "$FAKEFS_MNT" rocm-smi --showtopo
        printf '%s\n' "$output" | sed -n '/Hops between/,/^$/p' | grep -qE '^GPU14 ' || {
                echo "rocm-smi --showtopo after the repartition has no row for GPU14"
                printf '%s\n' "$output" | sed -n '/Hops between/,/^$/p'
                return 1
        }
        echo SPX >"$part"
        same_devices "$FAKEFS_MNT" "SPX again"
        [ "$(rocm_rows "$FAKEFS_MNT" | wc -l)" -eq 8 ]
        [ "$(ls "$FAKEFS_MNT/sys/class/kfd/kfd/topology/nodes" | wc -l)" -eq 10 ]
        counts_agree "$FAKEFS_MNT" "SPX again"
}

@test "limits: what needs the driver's ioctls is N/A, with the tools' own words, not a crash" {
        local host=$BATS_FILE_TMPDIR/seed-4xmi210
        # amd-smi static's ASIC block comes from amdgpu ioctls on the render node
        tool_ok "$host" amd-smi static --asic -g 0
        [[ "$output" == *"ASIC_SERIAL: N/A"* ]] && [[ "$output" == *"MARKET_NAME: N/A"* ]]
        # rocm-smi's marketing name: libdrm_amdgpu on an opened render node
        tool_ok "$host" rocm-smi --showproductname
        [[ "$output" == *"Card Series: 		N/A"* ]]
        [[ "$output" == *"GFX Version: 		gfx90a"* ]]
        # rocminfo: the HSA runtime opens /dev/kfd for its ioctls; the driver is found, the node cannot serve
        run amd_tool "$host" rocminfo
        [ "$status" -eq 1 ] && [[ "$output" == *"ROCk module is loaded"* ]] &&
                [[ "$output" == *"Unable to open /dev/kfd read-write: No such device or address"* ]] &&
                [[ "$output" != *Segmentation* ]] && [[ "$output" != *Aborted* ]] || {
                echo "rocminfo (exit $status) did not stop at /dev/kfd in its own words:"
                printf '%s\n' "$output"
                return 1
        }
}

# bad_profile NAME JQ-EDIT WANT: the edited seed profile fails to mount with
# one line naming the profile and WANT; nothing is mounted
bad_profile() {
        local f=$BATS_TEST_TMPDIR/$1.json mnt=$BATS_TEST_TMPDIR/mnt
        jq "$2" "$PROFILES/seed-4xmi210.json" >"$f"
        mkdir -p "$mnt"
        run "$CTK_BIN/amd-ctk-fakefs" mount "$f" "$mnt"
        [ "$status" -ne 0 ]
        [ "${#lines[@]}" -eq 1 ] || {
                printf '%s\n' "$output"
                return 1
        }
        [[ "$output" == *"$f"* ]] && [[ "$output" == *"$3"* ]] || {
                echo "expected a line naming $f and saying: $3"
                printf '%s\n' "$output"
                return 1
        }
        ! fakefs_is_mounted "$mnt"
}

@test "bad profiles: an io_link to a missing node, a sensor that is not a number, a mode the GPU does not list" {
        bad_profile link '.gpus[0].io_links = {"gpu-cpu": "0", "xgmi": "9"}' \
                "gpu 0000:03:00.0: io_links names KFD node 9, which the profile does not have"
        bad_profile sensor '.gpus[1].sensors.temperature.edge = "hot"' \
                'gpus[1].sensors.temperature.edge: expected a number (degrees Celsius)'
        bad_profile mode '.gpus[2].device_id = "0x74a1" | .gpus[2].partition = {"xcds": 8, "compute": "CPX",
                "available_compute": ["SPX", "DPX"]}' "gpu 0000:43:00.0: compute mode CPX is not in available_compute"
}
