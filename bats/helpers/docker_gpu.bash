# AMD's toolkit README's docker sessions against amd-container-runtime (bats/docker-*.bats).
#
#   load helpers/common; load helpers/dockerd; load helpers/images
#   load helpers/amd_tools; load helpers/fakefs; load helpers/docker_gpu
#   setup_file()    { gpu_docker_start seed-4xmi210; }
#   teardown_file() { gpu_docker_stop; }
#   setup()         { gpu_docker_baseline; }
#   teardown()      { gpu_docker_after_test; }
#
# One private dockerd per file (helpers/dockerd.bash), whose "amd" runtime is
# registered by `amd-ctk runtime configure --config-path <its daemon.json>`
# with the runtime argument --amd-config=TOOLKIT_CONFIG. The toolkit
# configuration tells the runtime which simulated host it runs on: its root,
# GPU_HOST, the profile served over FUSE below DOCKERD_MNT (gpu_host_mount),
# so that the runtime gives containers the host's sysfs and the simulator
# answers EPERM for the GPUs a container's device cgroup denies, as amdkfd
# does (docs/simulation.md). The runtime reads that file on every call, so a
# test switches hosts by rewriting it, without touching dockerd. It logs at
# the level users have (info): a test that needs the debug lines says so and
# sets log-level itself.
#
# Images: rocm/rocm-terminal is Debian's rocm-smi with busybox and our
# helper programs (images_rocm_tar), also tagged rocm/dev-ubuntu-24.04 so
# the README's UUID examples run as written; busybox (helpers/images.bash).
# The docker commands of the tests are the README's, literally: containers
# need no --network none (the private dockerd has no bridge network).
#
# Inside a container rocm-smi lists the GPUs the container may use: one row
# each, with the GPU's KFD node and GUID (gpu_id). assert_gpus checks them
# for the GPU indices a test names, through a per-file function gpu_minors
# INDEX that prints "CARD_MINOR RENDER_MINOR" (written out from the profile
# in the test file: an independent oracle) and the KFD node and gpu_id that
# `amd-ctk gpu list` shows for that render minor.

# gpu_docker_start PROFILE_NAME: starts dockerd, imports the images, writes
# the toolkit configuration for sim/profiles/PROFILE_NAME.json (served over
# FUSE: GPU_HOST), runs the README's `amd-ctk runtime configure` against the
# private daemon.json and restarts dockerd ("sudo systemctl restart docker").
gpu_docker_start() {
        export PATH=$CTK_BIN:$PATH # amd-ctk as the README types it
        export IMAGES_CACHE=$BATS_FILE_TMPDIR
        export GPU_PROFILE=$PROFILES/$1.json
        [ -f "$GPU_PROFILE" ] || {
                echo "no profile $GPU_PROFILE" >&2
                return 1
        }
        ctk_require_built "$CTK_BIN/amd-ctk" "$CTK_BIN/amd-container-runtime" || return 1
        dockerd_start || return 1
        images_docker_import --rocm || return 1
        docker tag rocm/rocm-terminal rocm/dev-ubuntu-24.04 || return 1
        export TOOLKIT_CONFIG=$DOCKERD_DIR/toolkit.json
        export TOOLKIT_CDI=$DOCKERD_DIR/cdi
        export RUNTIME_LOG=$DOCKERD_DIR/amd-container-runtime.log
        BATS_TEST_TMPDIR=$BATS_FILE_TMPDIR gpu_host_mount "$GPU_PROFILE" || return 1
        export GPU_HOST
        toolkit_config root "$GPU_HOST" || return 1
        # the spec of the host (with its sysfs mounts), for CDI names: in a private
        # spec directory (TOOLKIT_CDI)
        amd-ctk --root "$GPU_HOST" cdi generate --output "$TOOLKIT_CDI/amd.json" >/dev/null || return 1
        amd-ctk runtime configure --runtime=docker --config-path "$DOCKERD_CONFIG" \
                --runtime-arg="--amd-config=$TOOLKIT_CONFIG" >"$DOCKERD_DIR/configure.out" 2>&1 || {
                cat "$DOCKERD_DIR/configure.out" >&2
                return 1
        }
        cp "$DOCKERD_CONFIG" "$DOCKERD_DIR/daemon.json.baseline"
        dockerd_restart
}

# gpu_docker_stop: unmounts the file's host (the daemons see the unmount),
# stops the daemons.
gpu_docker_stop() {
        local rc=0
        BATS_TEST_TMPDIR=$BATS_FILE_TMPDIR fakefs_teardown || rc=1
        dockerd_stop || rc=1
        return $rc
}

# gpu_host_mount PROFILE: serves PROFILE over FUSE (amd-ctk-fakefs mount) in
# a fresh directory below DOCKERD_MNT, where the daemons, and so the runtime,
# see it; sets GPU_HOST to it. Unmounted by fakefs_teardown: the test's
# (gpu_docker_after_test), or the file's for a mount of setup_file
# (gpu_docker_stop, BATS_TEST_TMPDIR=$BATS_FILE_TMPDIR).
gpu_host_mount() {
        TMPDIR=$DOCKERD_MNT fakefs_mount "$1" >/dev/null || return 1
        GPU_HOST=$FAKEFS_MNT
}

# toolkit_config KEY VALUE [JSON]: the runtime's configuration: KEY VALUE
# (the simulated host: root DIR), a private log file, tracker state
# directory and CDI spec directory (TOOLKIT_CDI, when set), and the members
# of JSON (an object).
toolkit_config() {
        local more=${3:-}
        [ -n "$more" ] || more='{}'
        jq -n --arg k "$1" --arg v "$2" --arg log "$RUNTIME_LOG" --arg state "$DOCKERD_DIR/state" \
                --arg cdi "${TOOLKIT_CDI:-}" --argjson more "$more" \
                '{($k): $v, "log-file": $log, "state-dir": $state}
                 + (if $cdi == "" then {} else {"cdi-spec-dirs": [$cdi]} end) + $more' >"$TOOLKIT_CONFIG"
}

# gpu_docker_baseline: before each test: the file's host, and the daemon
# configuration as gpu_docker_start left it (amd registered, runc the
# default), reloaded if a previous test changed it.
gpu_docker_baseline() {
        toolkit_config root "$GPU_HOST"
        RUNTIME_LOG_START=$( (cat "$RUNTIME_LOG" 2>/dev/null || true) | wc -l)
        if ! cmp -s "$DOCKERD_DIR/daemon.json.baseline" "$DOCKERD_CONFIG"; then
                cp "$DOCKERD_DIR/daemon.json.baseline" "$DOCKERD_CONFIG"
                dockerd_restart
        fi
}

# gpu_docker_after_test: after a failed test, prints what the runtime and
# dockerd said; after any test, removes the containers it left behind and
# unmounts the hosts it mounted (gpu_host_mount).
gpu_docker_after_test() {
        if [ -z "${BATS_TEST_COMPLETED:-}" ]; then
                echo "--- output of the last command run:"
                printf '%s\n' "${output:-}"
                echo "--- amd-container-runtime log of this test ($RUNTIME_LOG):"
                runtime_log_since_setup | tail -n 30
                echo "--- dockerd log (last 15 lines):"
                tail -n 15 "$DOCKERD_DIR/dockerd.log" 2>/dev/null
                echo "--- daemon.json:"
                cat "$DOCKERD_CONFIG"
        fi
        local ids
        ids=$(docker ps -aq) || return 1
        # shellcheck disable=SC2086 # one id per word
        [ -z "$ids" ] || docker rm -f $ids >/dev/null
        fakefs_teardown
}

# ok COMMAND...: `run` that must succeed; otherwise prints the command, its
# status and output.
ok() {
        run "$@"
        [ "$status" -eq 0 ] || {
                echo "FAILED (exit $status): $*"
                printf '%s\n' "$output"
                return 1
        }
}

# fails_with TEXT COMMAND...: `run` that must fail with TEXT in its output.
fails_with() {
        local want=$1
        shift
        run "$@"
        [ "$status" -ne 0 ] && [[ "$output" == *"$want"* ]] || {
                echo "expected a failure saying: $want"
                echo "got (exit $status) from: $*"
                printf '%s\n' "$output"
                return 1
        }
}

# gpu_nodes_expected INDEX...: the nodes `ls -ln` shows for these GPUs:
# /dev/kfd, the card nodes, the render nodes, each once, as "PATH
# MAJOR:MINOR MODE UID GID". Device numbers, modes and owners are the
# profiles' defaults (kfd 235:0, DRM major 226, mode 0660, card group 44,
# kfd and render group 109).
gpu_nodes_expected() {
        local i card render cards="" renders=""
        [ "$#" -gt 0 ] || return 0
        for i in "$@"; do
                read -r card render <<<"$(gpu_minors "$i")"
                cards+="$card"$'\n'
                renders+="$render"$'\n'
        done
        echo "/dev/kfd 235:0 crw-rw---- 0 109"
        printf '%s' "$cards" | sort -nu | awk '{ printf "/dev/dri/card%d 226:%d crw-rw---- 0 44\n", $1, $1 }'
        printf '%s' "$renders" | sort -nu | awk '{ printf "/dev/dri/renderD%d 226:%d crw-rw---- 0 109\n", $1, $1 }'
}

# gpu_rows_expected INDEX...: rocm-smi's "NODE GUID" for these GPUs, sorted,
# each once: their KFD node and gpu_id as `amd-ctk gpu list --json` reads
# them on GPU_HOST, for the GPUs whose render minor is the one gpu_minors
# gives (an index amd-ctk numbers differently fails here).
gpu_rows_expected() {
        local i card render list rows=""
        [ "$#" -gt 0 ] || return 0
        list=$(amd-ctk --root "$GPU_HOST" gpu list --json) || return 1
        for i in "$@"; do
                read -r card render <<<"$(gpu_minors "$i")"
                rows+=$(jq -er --argjson i "$i" --argjson r "$render" \
                        '.[$i] | select(.render_minor == $r) | "\(.kfd_node) \(.gpu_id)"' <<<"$list")$'\n' || {
                        echo "amd-ctk gpu list: GPU $i is not render minor $render" >&2
                        return 1
                }
        done
        printf '%s' "$rows" | sort -u
}

# gpu_rows: the device rows of rocm-smi's table in $output (ROCM_SMI_ROW)
# as "NODE GUID", sorted
gpu_rows() {
        printf '%s\n' "$output" | awk -v row="$ROCM_SMI_ROW" '$0 ~ row { print $2, $4 }' | sort
}

# assert_gpus INDEX...: $output is rocm-smi's table (exit 0) showing exactly
# these GPUs, identified by KFD node and GUID. No INDEX: the simulated
# host's sysfs with no GPU the container may use, which rocm-smi reports as
# on a real host whose GPUs are all out of reach (a warning, an empty table).
assert_gpus() {
        local want got
        want=$(gpu_rows_expected "$@") || return 1
        got=$(gpu_rows)
        if [ "${status:-0}" -ne 0 ] || [ "$want" != "$got" ] ||
                [[ "$output" != *"=== ROCm System Management Interface ==="* ]] ||
                [[ "$output" != *"=== End of ROCm SMI Log ==="* ]] ||
                { [ "$#" -eq 0 ] && [[ "$output" != "WARNING: No AMD GPUs specified"* ]]; }; then
                echo "rocm-smi (exit ${status:-0}) does not show exactly GPUs [$*] (- expected, + seen: KFD node, GUID):"
                diff -u <(printf '%s\n' "$want") <(printf '%s\n' "$got") | tail -n +3 || true
                echo "--- container output:"
                printf '%s\n' "$output"
                return 1
        fi
}

# assert_no_amdgpu: $output is rocm-smi's in a container that the runtime
# left alone (no GPU asked for, or another runtime): its sysfs is this
# machine's, which has no amdgpu driver, and rocm-smi says so.
assert_no_amdgpu() {
        if [ "${status:-0}" -ne 0 ] ||
                [ "$output" != "ERROR:root:Driver not initialized (amdgpu not found in modules)" ]; then
                echo "rocm-smi (exit ${status:-0}) does not say that this machine has no amdgpu driver:"
                printf '%s\n' "$output"
                return 1
        fi
}

# assert_ls_gpus INDEX...: $output of `ls -ln /dev/dri /dev/kfd` (busybox)
# shows exactly these GPUs' nodes (and nothing else in /dev/dri).
assert_ls_gpus() {
        local want got
        want=$(gpu_nodes_expected "$@" | awk '{ split($2, mm, ":"); n = split($1, p, "/"); print p[n], mm[1] ":" mm[2], $3, $4, $5 }' | sort)
        got=$(printf '%s\n' "$output" | awk '/^c/ { n = split($NF, p, "/"); sub(",", "", $5); print p[n], $5 ":" $6, $1, $3, $4 }' | sort)
        [ "$want" = "$got" ] || {
                echo "ls -ln shows other nodes than those of GPUs [$*] (- expected, + seen):"
                diff -u <(printf '%s\n' "$want") <(printf '%s\n' "$got") | tail -n +3 || true
                echo "--- container output:"
                printf '%s\n' "$output"
                return 1
        }
}

# runtime_log_since_setup: what the runtime logged during this test.
runtime_log_since_setup() {
        tail -n +"$((${RUNTIME_LOG_START:-0} + 1))" "$RUNTIME_LOG" 2>/dev/null
}
