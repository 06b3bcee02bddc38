#!/usr/bin/env bats
# The GPU tracker document replayed with a private dockerd: the documented
# `docker run --runtime=amd -itd -e AMD_VISIBLE_DEVICES=... rocm/rocm-terminal
# bash` and `amd-ctk gpu-tracker ...` commands, literally, on the documented
# 4-GPU host (sim/profiles/seed-4xmi210.json) served over FUSE
# (`amd-ctk-fakefs mount`; amd-ctk and the runtime use it as their root), so
# section 7's change of partitioning scheme is a real repartition: GPU 3's
# current_compute_partition is written on the mount, as on an amdgpu host, and
# the FUSE server rebuilds its partitions, DRM nodes and KFD topology.  Every
# amd-ctk output is compared with the document's, with the real container ids
# in place of the document's.  The tests run in order and share the daemon,
# the mount and the tracker state, like the document's session.

bats_require_minimum_version 1.5.0

load helpers/common
load helpers/dockerd
load helpers/images

setup_file() {
        [ "$(id -u)" -eq 0 ] && [ -c /dev/fuse ] || skip "needs root and /dev/fuse (FUSE host)"
        export IMAGES_CACHE=$BATS_FILE_TMPDIR
        # the host: the seed profile served over FUSE, mounted in a short
        # private directory (ctk_tmpdir)
        export FUSE_HOST
        FUSE_HOST=$(ctk_tmpdir fuse)
        # GPU 3 can be partitioned (SPX or DPX, 2 XCDs); like amdgpu, the
        # server reserves 8 DRM minors for such a GPU, so its nodes move from
        # card0/renderD128 to card8/renderD136, clear of the other GPUs'.
        jq '.name = "seed-4xmi210-gpu3-dpx" | .gpus[3].card_minor = 8 | .gpus[3].render_minor = 136
                | .gpus[3].partition = {"xcds": 2, "available_compute": ["SPX", "DPX"], "available_memory": ["NPS1"]}' \
                "$PROFILES/seed-4xmi210.json" >"$BATS_FILE_TMPDIR/host.json"
        "$CTK_BIN/amd-ctk-fakefs" mount "$BATS_FILE_TMPDIR/host.json" "$FUSE_HOST" --pidfile "$FUSE_HOST.pid"
        dockerd_start
        images_docker_import
        local d=$DOCKERD_DIR
        export AMD_CTK_CONFIG=$d/amd-config.json
        jq -n --arg r "$FUSE_HOST" --arg d "$d" \
                '{"root": $r, "state-dir": "\($d)/amd-state", "log-file": "\($d)/amd-runtime.log"}' \
                >"$AMD_CTK_CONFIG"
        dockerd_write_config "$(jq -n --arg c "$AMD_CTK_CONFIG" \
                '{"runtimes": {"amd": {"path": "amd-container-runtime", "runtimeArgs": ["--amd-config=\($c)"]}}}')"
        dockerd_reload
}

teardown_file() {
        dockerd_stop
        [ -n "${FUSE_HOST:-}" ] || return 0
        "$CTK_BIN/amd-ctk-fakefs" umount "$FUSE_HOST" 2>/dev/null || true
        ctk_rm_tmpdir "$FUSE_HOST"
        if [ -e "$FUSE_HOST.pid" ]; then # the server ends when unmounted; make sure
                kill "$(cat "$FUSE_HOST.pid")" 2>/dev/null || true
                rm -f "$FUSE_HOST.pid"
        fi
}

setup() {
        # the document's commands, literally: amd-ctk from the build, the
        # config (state directory, host) from AMD_CTK_CONFIG
        export PATH=$CTK_BIN:$PATH
}

# partition_gpu3 MODE: switches GPU 3 of the document (0x12FE4F7FDAF06B9,
# last in PCI order) to compute partition MODE, as an administrator does on
# an amdgpu host.
partition_gpu3() {
        echo "$1" >"$FUSE_HOST/sys/bus/pci/devices/0000:63:00.0/current_compute_partition"
        [ "$(cat "$FUSE_HOST/sys/bus/pci/devices/0000:63:00.0/current_compute_partition")" = "$1" ]
}
RESET_MSG='GPU Tracker has been reset
Since GPU Tracker was enabled, it is recommended to stop and restart running containers to get the most accurate GPU Tracker status'

RULE=--------------------------------------------------------------------
U0="0         0xEA35F57CC80DEB35       "
U1="1         0x89CAA15875FF5A43       "
U2="2         0x6E32F10EFC982B4C       "
U3="3         0x12FE4F7FDAF06B9        "
MORE="                                                       "

# assert_table ROW...: $output is the status table with these rows: the
# document's columns and words within 100 columns, Docker's ids by their
# first 12 characters, no line ending in a blank.
assert_table() {
        local want
        want=$(printf '%s\n' "$RULE" "GPU Id    UUID                     Accessibility       Container Ids" "$RULE" "$@" |
                sed -E 's/([0-9a-f]{12})[0-9a-f]{52}$/\1/')
        [ "$output" = "$want" ] || {
                diff <(echo "$want") <(echo "$output") || true
                return 1
        }
        [ -z "$(printf '%s\n' "$output" | awk 'length($0) > 100')" ]
}

# run_gpu_container DEVICES: the document's docker run; the id in $CID.
run_gpu_container() {
        run docker run --runtime=amd -itd -e AMD_VISIBLE_DEVICES="$1" rocm/rocm-terminal bash
        [ "$status" -eq 0 ]
        CID=${lines[-1]}
        [[ "$CID" =~ ^[0-9a-f]{64}$ ]]
}

@test "1-3: status, enable, disable" {
        run amd-ctk gpu-tracker status
        [ "$status" -eq 0 ]
        [ "$output" = "GPU Tracker is disabled" ]
        run amd-ctk gpu-tracker enable
        [ "$output" = "GPU Tracker has been enabled" ]
        run amd-ctk gpu-tracker enable
        [ "$output" = "GPU Tracker is already enabled" ]
        run amd-ctk gpu-tracker status
        assert_table "${U0}Shared              -" "${U1}Shared              -" "${U2}Shared              -" \
                "${U3}Shared              -"
        run amd-ctk gpu-tracker disable
        [ "$output" = "GPU Tracker has been disabled" ]
        run amd-ctk gpu-tracker status
        [ "$output" = "GPU Tracker is disabled" ]
        # containers while disabled are not tracked
        run_gpu_container 0-3
        docker rm -f "$CID"
        amd-ctk gpu-tracker enable
}

@test "4: containers are tracked, docker rm -f releases" {
        run_gpu_container 0-2
        A=$CID
        run_gpu_container 1,3
        B=$CID
        echo "$B" >"$BATS_FILE_TMPDIR/B"
        run amd-ctk gpu-tracker status
        assert_table "${U0}Shared              $A" "${U1}Shared              $A" "${MORE}$B" \
                "${U2}Shared              $A" "${U3}Shared              $B"
        run docker rm -f "$A"
        [ "$output" = "$A" ]
        run amd-ctk gpu-tracker status
        assert_table "${U0}Shared              -" "${U1}Shared              $B" "${U2}Shared              -" \
                "${U3}Shared              $B"
}

@test "5: exclusive GPUs; a conflicting container is refused as a whole" {
        B=$(cat "$BATS_FILE_TMPDIR/B")
        run amd-ctk gpu-tracker 1-3 exclusive
        [ "$output" = "GPUs [1 2 3] have been made exclusive" ]
        run amd-ctk gpu-tracker status
        exclusive_table=$output
        assert_table "${U0}Shared              -" "${U1}Exclusive           $B" "${U2}Exclusive           -" \
                "${U3}Exclusive           $B"

        run docker run --runtime=amd -itd -e AMD_VISIBLE_DEVICES=0-2 rocm/rocm-terminal bash
        [ "$status" -ne 0 ]
        [[ "$output" == *"amd-container-runtime: GPU 1 is exclusive and in use by container ${B:0:12}"* ]]
        # docker created it: `docker ps -a` shows it Created
        C=$(docker ps -a --filter status=created --no-trunc -q)
        [[ "$C" =~ ^[0-9a-f]{64}$ ]]
        [ "$(docker ps -a --filter id="$C" --format '{{.Status}}')" = Created ]
        # nothing was allocated, not even for a moment
        run amd-ctk gpu-tracker status
        [ "$output" = "$exclusive_table" ]
        docker rm -f "$C"

        # only GPUs used by at most one container can be made exclusive
        amd-ctk gpu-tracker 1 shared
        run_gpu_container 0-2
        D=$CID
        run amd-ctk gpu-tracker status
        assert_table "${U0}Shared              $D" "${U1}Shared              $B" "${MORE}$D" \
                "${U2}Exclusive           $D" "${U3}Exclusive           $B"
        run amd-ctk gpu-tracker 1 exclusive
        [ "$status" -eq 0 ]
        [ "$output" = "GPUs [1] have not been made exclusive because more than one container is currently using it" ]
        docker rm -f "$D"
        amd-ctk gpu-tracker 1 exclusive
}

@test "6: shared GPUs" {
        B=$(cat "$BATS_FILE_TMPDIR/B")
        run amd-ctk gpu-tracker status
        assert_table "${U0}Shared              -" "${U1}Exclusive           $B" "${U2}Exclusive           -" \
                "${U3}Exclusive           $B"
        run amd-ctk gpu-tracker 1 shared
        [ "$output" = "GPUs [1] have been made shared" ]
        run_gpu_container 0-2
        E=$CID
        run amd-ctk gpu-tracker status
        assert_table "${U0}Shared              $E" "${U1}Shared              $B" "${MORE}$E" \
                "${U2}Exclusive           $E" "${U3}Exclusive           $B"
}

@test "7: after a repartition the state is invalid until reset" {
        docker rm -f $(docker ps -aq)
        local cdi=$DOCKERD_DIR/cdi/amd.json
        run amd-ctk cdi generate --output "$cdi"
        [ "$output" = "Generated CDI spec: $cdi" ]

        # GPU 3 is switched from SPX to DPX: it becomes GPUs 3 and 4
        partition_gpu3 DPX
        run amd-ctk gpu-tracker status
        [ "$status" -eq 1 ]
        [ "$output" = "GPUs info is invalid. Please reset GPU Tracker." ]
        # containers asking for GPUs are refused with the same line
        run docker run --runtime=amd -itd -e AMD_VISIBLE_DEVICES=0 rocm/rocm-terminal bash
        [ "$status" -ne 0 ]
        [[ "$output" == *"amd-container-runtime: GPUs info is invalid. Please reset GPU Tracker."* ]]
        docker rm -f $(docker ps -aq)
        # and the CDI spec no longer describes the host
        run amd-ctk cdi validate --path "$cdi"
        [ "$status" -eq 1 ]
        [ "${lines[-2]}" = "CDI spec is invalid" ]
        [ "${lines[-1]}" = "Please regenerate CDI spec" ]
        run amd-ctk gpu-tracker reset
        [ "$status" -eq 0 ]
        [ "$output" = "$RESET_MSG" ]
        run amd-ctk gpu-tracker status
        assert_table "${U0}Shared              -" "${U1}Shared              -" "${U2}Shared              -" \
                "${U3}Shared              -" "4         0x12FE4F7FDAF06B9        Shared              -"

        # back to SPX: the five recorded GPUs are no longer the host's
        partition_gpu3 SPX
        # the document's session from here
        run amd-ctk gpu-tracker status
        [ "$status" -eq 1 ]
        [ "$output" = "GPUs info is invalid. Please reset GPU Tracker." ]
        run amd-ctk gpu-tracker reset
        [ "$status" -eq 0 ]
        [ "$output" = "$RESET_MSG" ]
        run amd-ctk cdi generate --output "$cdi"
        # (back to the partitioning it was generated for: left as it is)
        [[ "$output" == "Generated CDI spec: $cdi" || "$output" == "CDI spec is up to date: $cdi" ]]
        run amd-ctk cdi validate --path "$cdi"
        [ "$status" -eq 0 ]
        [ "${lines[-1]}" = "CDI spec is valid" ]
        run_gpu_container 0-2
        F=$CID
        run amd-ctk gpu-tracker status
        assert_table "${U0}Shared              $F" "${U1}Shared              $F" "${U2}Shared              $F" \
                "${U3}Shared              -"
        docker rm -f "$F"
        run amd-ctk gpu-tracker status
        assert_table "${U0}Shared              -" "${U1}Shared              -" "${U2}Shared              -" \
                "${U3}Shared              -"
}
