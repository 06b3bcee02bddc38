# AMD's toolkit README's docker sessions against amd-container-runtime (bats/docker-*.bats).
#
#   load helpers/common; load helpers/dockerd; load helpers/images; load helpers/docker_gpu
#   setup_file()    { gpu_docker_start seed-4xmi210; }
#   teardown_file() { gpu_docker_stop; }
#   setup()         { gpu_docker_baseline; }
#   teardown()      { gpu_docker_after_test; }
#
# One private dockerd per file (helpers/dockerd.bash), whose "amd" runtime is
# registered by `amd-ctk runtime configure --config-path <its daemon.json>`
# with the runtime argument --amd-config=TOOLKIT_CONFIG. The toolkit
# configuration tells the runtime which simulated host it runs on: a root
# directory (the profile materialized, GPU_HOST, or a FUSE mount). The
# runtime reads it on every call, so a test switches hosts by rewriting that
# file, without touching dockerd. It logs at the level users have (info): a
# test that needs the debug lines says so and sets log-level itself.
#
# Images: rocm/rocm-terminal (helpers/images.bash), also tagged
# rocm/dev-ubuntu-24.04 so the README's UUID examples run as written.
# The docker commands of the tests are the README's, literally: containers
# need no --network none (the private dockerd has no bridge network).
#
# Inside a container the rocm-smi stand-in lists the GPU nodes it sees:
#   /dev/kfd               235:0        crw-rw----  0     109
# gpu_nodes_expected prints what it must show for a set of GPU indices, from
# a per-file function gpu_minors INDEX that prints "CARD_MINOR RENDER_MINOR"
# (written out from the profile in the test file: an independent oracle).

# gpu_docker_start PROFILE_NAME: starts dockerd, imports the images, writes
# the toolkit configuration for sim/profiles/PROFILE_NAME.json (materialized:
# GPU_HOST), runs the
# README's `amd-ctk runtime configure` against the private daemon.json and
# restarts dockerd ("sudo systemctl restart docker").
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
        images_docker_import || return 1
        docker tag rocm/rocm-terminal rocm/dev-ubuntu-24.04 || return 1
        export TOOLKIT_CONFIG=$DOCKERD_DIR/toolkit.json
        export TOOLKIT_CDI=$DOCKERD_DIR/cdi
        export RUNTIME_LOG=$DOCKERD_DIR/amd-container-runtime.log
        GPU_HOST=$(ctk_host "$GPU_PROFILE") || return 1
        export GPU_HOST
        toolkit_config root "$GPU_HOST" || return 1
        # the spec of the host, for CDI names: in a private spec directory (TOOLKIT_CDI)
        amd-ctk --profile "$GPU_PROFILE" cdi generate --output "$TOOLKIT_CDI/amd.json" >/dev/null || return 1
        amd-ctk runtime configure --runtime=docker --config-path "$DOCKERD_CONFIG" \
                --runtime-arg="--amd-config=$TOOLKIT_CONFIG" >"$DOCKERD_DIR/configure.out" 2>&1 || {
                cat "$DOCKERD_DIR/configure.out" >&2
                return 1
        }
        cp "$DOCKERD_CONFIG" "$DOCKERD_DIR/daemon.json.baseline"
        dockerd_restart
}

gpu_docker_stop() {
        dockerd_stop
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
# dockerd said; after any test, removes the containers it left behind.
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

# gpu_nodes_expected INDEX...: the node lines rocm-smi prints for these GPUs:
# /dev/kfd, the card nodes, the render nodes (rocm-smi's order), each once.
# Device numbers, modes and owners are the profiles' defaults (kfd 235:0,
# DRM major 226, mode 0660, card group 44, kfd and render group 109).
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

# assert_gpus INDEX...: $output (rocm-smi's) shows exactly the nodes of these
# GPUs with their device numbers, modes and owners; no INDEX: no GPU node.
assert_gpus() {
        local want got n
        want=$(gpu_nodes_expected "$@")
        got=$(printf '%s\n' "$output" | awk '/^\/dev\// { print $1, $2, $3, $4, $5 }')
        n=$(printf '%s\n' "$want" | grep -c renderD || true)
        if [ "$want" != "$got" ]; then
                echo "the container does not see the nodes of GPUs [$*] (- expected, + seen):"
                diff -u <(printf '%s\n' "$want") <(printf '%s\n' "$got") | tail -n +3 || true
                echo "--- container output:"
                printf '%s\n' "$output"
                return 1
        fi
        local kfd=no
        [ "$n" -eq 0 ] || kfd=yes
        local summary="GPU render nodes: $n   card nodes: $n   /dev/kfd: $kfd"
        [[ "$output" == *"$summary"* ]] || {
                echo "rocm-smi summary is not: $summary"
                printf '%s\n' "$output"
                return 1
        }
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
