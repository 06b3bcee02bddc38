#!/usr/bin/env bats
# `docker run --gpus` for AMD GPUs, and the CDI names newer engines' --gpus
# ask for, on Debian sid's engines with the toolkit installed from `make
# deb` with dpkg (cgroup v2 view; one root and one dockerd for the file).
#
# Docker 28.3 and later register an AMD --gpus driver when an executable
# named amd-container-runtime is on dockerd's PATH (the package puts it in
# /usr/bin): --gpus only sets AMD_VISIBLE_DEVICES in the container
# (all -> all, a count N -> 0,...,N-1, "device=1,2" -> 1,2, 0 -> void), and
# our runtime gives the GPUs, with --runtime=amd or as the default runtime.
# Under the default runc a container gets the variable and no GPU.
#
# Docker 29.3+, containerd 2.3's ctr and nerdctl 2.3 resolve --gpus through
# CDI instead: amd.com/gpu=all, amd.com/gpu=0 .. N-1 for a count,
# amd.com/gpu=X for device=X.  Podman 5.8 (a CDI client with the same
# library) must resolve every such name of our spec, on every profile.
# (Podman 6's --gpus, device names only: engines-podman6.bats.)
#
# Every GPU container runs dev-probe with the simulated host's nodes bound
# in at /host-dev (engines_proven): the kernel lets it open its own nodes
# (ENXIO: no driver) and refuses every other GPU's (EPERM).

bats_require_minimum_version 1.5.0

load helpers/common
load helpers/images
load helpers/engines

export BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-600}

SEED=$PROFILES/seed-4xmi210.json
SEED_GPU3_UUID=0x12FE4F7FDAF06B9 # the GPU tracker document's GPU 3
BIND=(-v "$ENGINES_HOSTDEV_BIND:/host-dev")

setup_file() {
        engines_start --release sid --cgroup v2 --deb
        echo "# $(engines_versions)" >&3
        engines_fakefs_mount "$SEED"
        engines_hostdev "$SEED"
        engines_in amd-ctk cdi generate >/dev/null
}

teardown_file() { engines_stop; }

# proven VISIBLE INDEX... -- COMMAND...: engines_proven, and the container's
# AMD_VISIBLE_DEVICES was VISIBLE ("unset": it had none)
proven() {
        local visible=$1
        shift
        ENGINES_CHECK="echo \"AMD_VISIBLE_DEVICES=\${AMD_VISIBLE_DEVICES-unset}\"; $ENGINES_CHECK" engines_proven "$@" ||
                return 1
        [ "$(grep -m1 '^AMD_VISIBLE_DEVICES=' <<<"$output")" = "AMD_VISIBLE_DEVICES=$visible" ]
}

@test "--gpus under the default runc: the variable is set, no GPU, no error (what a user sees)" {
        proven all -- engines_in docker run --rm --gpus all "${BIND[@]}" rocm/rocm-terminal
        proven 0,1 -- engines_in docker run --rm --gpus 2 "${BIND[@]}" rocm/rocm-terminal
}

@test "--runtime=amd --gpus: all, a count, device= indices, a UUID, 0; a count past the GPUs is one line" {
        run engines_in amd-ctk runtime configure --runtime=docker
        [ "$status" -eq 0 ]
        engines_dockerd_restart
        proven all 0 1 2 3 -- engines_in docker run --rm --runtime=amd --gpus all "${BIND[@]}" rocm/rocm-terminal
        proven 0,1 0 1 -- engines_in docker run --rm --runtime=amd --gpus 2 "${BIND[@]}" rocm/rocm-terminal
        proven 1,2 1 2 -- engines_in docker run --rm --runtime=amd --gpus '"device=1,2"' "${BIND[@]}" rocm/rocm-terminal
        proven "$SEED_GPU3_UUID" 3 -- engines_in docker run --rm --runtime=amd --gpus "device=$SEED_GPU3_UUID" "${BIND[@]}" \
                rocm/rocm-terminal
        proven void -- engines_in docker run --rm --runtime=amd --gpus 0 "${BIND[@]}" rocm/rocm-terminal
        run engines_in docker run --rm --runtime=amd --gpus 5 rocm/rocm-terminal true
        printf '%s\n' "$output"
        [ "$status" -ne 0 ]
        [[ "$output" == *"amd-container-runtime: AMD_VISIBLE_DEVICES: GPU 4 does not exist (this host has GPUs 0-3)"* ]]
}

# seq_from0 N: 0 .. N-1, one a line
seq_from0() { [ "$1" -eq 0 ] || seq 0 $(($1 - 1)); }

@test "every CDI name newer engines' --gpus ask for resolves in a CDI client (Podman), on every profile: all, 0..N-1 (a count's first names, and the others), UUIDs" {
        engines_in podman import --change "ENV $IMAGE_PATH_ENV" --change 'CMD ["bash"]' /ctk/rootfs.tar \
                rocm/rocm-terminal >/dev/null
        local p n k names tested=0
        for p in "$PROFILES"/*.json; do
                n=$("$CTK_BIN/amd-ctk" --profile "$p" gpu list --json 2>/dev/null | jq length)
                if [ "${n:-0}" -eq 0 ]; then
                        # no GPU: no spec to ask (cdi generate refuses; cdi-differential.bats)
                        echo "# $(basename "$p"): no GPU" >&3
                        continue
                fi
                engines_fakefs_mount "$p"
                engines_hostdev "$p"
                engines_in amd-ctk cdi generate >/dev/null
                # the names the spec offers: all and the indices (the default naming)
                names=$(engines_in amd-ctk cdi list --spec-dirs | sed -n 's/^amd\.com\/gpu=\([^ ]*\) .*/\1/p' | sort)
                [ "$names" = "$({ seq_from0 "$n"; echo all; } | sort)" ]
                # --gpus all (Docker 29.3, nerdctl, Podman 6)
                proven unset $(seq_from0 "$n") -- engines_in podman run --rm --device amd.com/gpu=all "${BIND[@]}" \
                        rocm/rocm-terminal
                # the indices, each resolved, in two halves: the first k (what
                # --gpus k asks for) and the others, each exactly its GPUs
                k=$(((n + 1) / 2))
                proven unset $(seq_from0 "$k") -- engines_in podman run --rm \
                        $(seq_from0 "$k" | sed 's|^|--device=amd.com/gpu=|') "${BIND[@]}" rocm/rocm-terminal
                [ "$k" -eq "$n" ] || proven unset $(seq "$k" $((n - 1))) -- engines_in podman run --rm \
                        $(seq "$k" $((n - 1)) | sed 's|^|--device=amd.com/gpu=|') "${BIND[@]}" rocm/rocm-terminal
                # device=UUID names: with UUID naming, every GPU's UUID (a
                # partitioned GPU's partitions share it)
                engines_in amd-ctk cdi generate --device-name-strategy index,uuid >/dev/null
                proven unset $(seq_from0 "$n") -- engines_in podman run --rm \
                        $("$CTK_BIN/amd-ctk" --profile "$p" gpu list --json | jq -r '[.[].uuid] | unique | .[]' |
                                sed 's|^|--device=amd.com/gpu=|') "${BIND[@]}" rocm/rocm-terminal
                tested=$((tested + 1))
                echo "# $(basename "$p"): $n GPUs, ${SECONDS}s" >&3
        done
        [ "$tested" -ge 6 ]
        engines_fakefs_mount "$SEED"
        engines_hostdev "$SEED"
        engines_in amd-ctk cdi generate >/dev/null
}

# the amd runtime in daemon.json, as the README configures it (once)
docker_runtime_configured() {
        engines_docker info --format '{{json .Runtimes}}' | jq -e 'has("amd")' >/dev/null && return 0
        engines_in amd-ctk runtime configure --runtime=docker >/dev/null && engines_dockerd_restart
}

@test "an nvidia.com spec beside ours: listed with the spec dirs, and amd.com names resolve as before (our runtime, Docker's and Podman's CDI, --gpus)" {
        docker_runtime_configured
        printf '%s\n' 'cdiVersion: 0.5.0' 'kind: nvidia.com/gpu' 'devices:' '  - name: "0"' '    containerEdits:' \
                '      deviceNodes:' '        - path: /dev/nvidia0' '  - name: all' '    containerEdits:' \
                '      deviceNodes:' '        - path: /dev/nvidia0' 'containerEdits:' '  deviceNodes:' \
                '    - path: /dev/nvidiactl' | engines_in tee /etc/cdi/nvidia.yaml >/dev/null
        run engines_in amd-ctk cdi list --spec-dirs
        printf '%s\n' "$output"
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = "Found 7 CDI devices in /etc/cdi, /var/run/cdi" ]
        [ "$(grep -c '^amd\.com/gpu=.* (/etc/cdi/amd.json)$' <<<"$output")" -eq 5 ]
        [ "$(grep -c '^nvidia\.com/gpu=.* (/etc/cdi/nvidia.yaml)$' <<<"$output")" -eq 2 ]
        run engines_in amd-ctk cdi list --all-vendors
        [ "$status" -eq 0 ]
        [[ "$output" == *"nvidia.com/gpu=all (/etc/cdi/nvidia.yaml)"* ]]
        # our spec is still this host's
        run engines_in amd-ctk cdi validate
        printf '%s\n' "$output"
        [ "$status" -eq 0 ]
        proven amd.com/gpu=1 1 -- engines_in docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=amd.com/gpu=1 "${BIND[@]}" \
                rocm/rocm-terminal
        proven unset 2 -- engines_in docker run --rm --device amd.com/gpu=2 "${BIND[@]}" rocm/rocm-terminal
        proven 0,1 0 1 -- engines_in docker run --rm --runtime=amd --gpus 2 "${BIND[@]}" rocm/rocm-terminal
        engines_in podman image exists rocm/rocm-terminal ||
                engines_in podman import --change "ENV $IMAGE_PATH_ENV" --change 'CMD ["bash"]' /ctk/rootfs.tar \
                        rocm/rocm-terminal >/dev/null
        proven unset 3 -- engines_in podman run --rm --device amd.com/gpu=3 "${BIND[@]}" rocm/rocm-terminal
        engines_in rm /etc/cdi/nvidia.yaml
}

# compose FILE-TEXT: the compose file /ctk/compose/compose.yaml
compose_file() {
        mkdir -p "$ENGINES_DIR/compose"
        cat >"$ENGINES_DIR/compose/compose.yaml"
}

@test "docker compose (2.40): a CDI reservation needs capabilities beside driver: cdi; gpus: with runtime: amd" {
        docker_runtime_configured
        echo "# $(engines_in docker compose version)" >&3
        local service='    image: rocm/rocm-terminal
    network_mode: none
    volumes: ["/ctk/hostdev/dev:/host-dev"]'
        compose_file <<YAML
services:
  rocm:
$service
    deploy:
      resources:
        reservations:
          devices:
            - driver: cdi
              device_ids: ["amd.com/gpu=1"]
              capabilities: [gpu]
YAML
        # (proven runs the service with CHECK as its command)
        proven unset 1 -- engines_in docker compose --project-directory /ctk/compose run --rm rocm
        # without capabilities: refused
        sed -i '/capabilities: \[gpu\]/d' "$ENGINES_DIR/compose/compose.yaml"
        run engines_in docker compose --project-directory /ctk/compose run --rm rocm
        printf '%s\n' "$output"
        [ "$status" -ne 0 ]
        [[ "$output" == *"validating "*"compose.yaml: services.rocm.deploy.resources.reservations.devices.0 missing property 'capabilities'"* ]]
        # Docker's --gpus from compose (gpus:), through our runtime
        compose_file <<YAML
services:
  rocm:
$service
    runtime: amd
    gpus:
      - driver: amd
        device_ids: ["0", "3"]
YAML
        proven 0,3 0 3 -- engines_in docker compose --project-directory /ctk/compose run --rm rocm
        engines_in docker compose --project-directory /ctk/compose down >/dev/null 2>&1 || true
}

@test "amd as the default runtime (--set-as-default): --gpus without --runtime; a container without GPUs stays without" {
        run engines_in amd-ctk runtime configure --runtime=docker --set-as-default
        [ "$status" -eq 0 ]
        engines_dockerd_restart
        [ "$(engines_docker info --format '{{.DefaultRuntime}}')" = amd ]
        proven 2 2 -- engines_in docker run --rm --gpus '"device=2"' "${BIND[@]}" rocm/rocm-terminal
        proven 0,1,2 0 1 2 -- engines_in docker run --rm --gpus 3 "${BIND[@]}" rocm/rocm-terminal
        proven unset -- engines_in docker run --rm "${BIND[@]}" rocm/rocm-terminal
}

@test "--gpus on a host without our runtime (the package removed): Docker refuses with its own line; installed again, --gpus works" {
        run engines_in dpkg -r amd-container-toolkit
        printf '%s\n' "$output"
        [ "$status" -eq 0 ]
        engines_dockerd_restart
        run engines_in docker run --rm --gpus all rocm/rocm-terminal true
        printf '%s\n' "$output"
        [ "$status" -ne 0 ]
        [[ "$output" == *'could not select device driver "" with capabilities: [[gpu]]'* ]]
        # the fix: the package (amd-container-runtime on dockerd's PATH), then dockerd restarted
        run engines_in dpkg -i "/ctk/$(basename "$ENGINES_DEB")"
        [ "$status" -eq 0 ]
        engines_in amd-ctk runtime configure --runtime=docker --set-as-default >/dev/null
        engines_dockerd_restart
        proven all 0 1 2 3 -- engines_in docker run --rm --gpus all "${BIND[@]}" rocm/rocm-terminal
}
