# The container scenarios of bats/amd-tools-containers-*.bats: Debian's
# rocm-smi in a container (images_rocm_tar, tagged rocm/rocm-terminal) on a
# simulated host served over FUSE at /ctk-host (the toolkit's root): the
# runtime and `cdi generate` bind the host's sysfs into the container
# (core/cdi/simhost.h) and the simulator answers EPERM for the GPUs the
# container's device cgroup denies, as amdkfd does.

# amd_containers_start RELEASE CGROUP: engines, the rocm-smi image in docker
# and podman, seed-4xmi210 at /ctk-host, the amd runtime registered
amd_containers_start() {
        engines_start --release "$1" --cgroup "$2" || return 1
        # this machine's settings for podman, where a machine has them: no
        # network namespace, no pids limit (the unified hierarchy here has no
        # pids controller); the commands stay the documents'
        printf '[containers]\nnetns = "none"\npids_limit = 0\n' >"$ENGINES_DIR/containers.conf.d/50-machine.conf"
        echo "# $(engines_versions)" >&3
        images_rocm_in "$ENGINES_DIR" || return 1
        engines_docker import --change "ENV $IMAGE_PATH_ENV" --change 'CMD ["bash"]' /ctk/rocm-rootfs.tar \
                rocm/rocm-terminal >/dev/null || return 1
        engines_podman import --change "ENV $IMAGE_PATH_ENV" /ctk/rocm-rootfs.tar localhost/rocm/rocm-terminal >/dev/null ||
                return 1
        engines_fakefs_mount "$PROFILES/seed-4xmi210.json" || return 1
        engines_in /ctk-build/bin/amd-ctk runtime configure --runtime=docker --config-path /ctk/daemon.json \
                --runtime-path /ctk-build/bin/amd-container-runtime >/dev/null || return 1
        engines_dockerd_restart
}

# uuids_of: the "Unique ID" values of rocm-smi --showuniqueid in $output, in order
uuids_of() {
        printf '%s\n' "$output" | awk '/Unique ID:/ { print tolower($NF) }'
}

# host_uuids: GPU i's unique id, from rocm-smi --showuniqueid on the host
# (the same profile served here, helpers/amd_tools.bash)
host_uuids() {
        fakefs_mount "$PROFILES/seed-4xmi210.json" >&2 || return 1
        amd_tool "$FAKEFS_MNT" rocm-smi --showuniqueid | awk '/Unique ID:/ { print tolower($NF) }'
        fakefs_unmount "$FAKEFS_MNT" >&2
}

# The scenarios (each bats file runs them on its engines).

# docker --runtime=amd AMD_VISIBLE_DEVICES=0,1: rocm-smi --showuniqueid lists exactly GPUs 0 and 1
scenario_visible_0_1() {
        local want
        want=$(host_uuids | sed -n 1,2p)
        [ "$(printf '%s\n' "$want" | wc -l)" -eq 2 ]
        run engines_docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=0,1 rocm/rocm-terminal rocm-smi --showuniqueid
        [ "$status" -eq 0 ] || { printf '%s\n' "$output"; return 1; }
        [ "$(uuids_of)" = "$want" ] || { printf '%s\n' "$output"; return 1; }
}

# the README's UUID workflow, AMD's tool at both ends: a UUID from the host's rocm-smi gives that GPU
scenario_uuid_workflow() {
        local uuid
        uuid=$(host_uuids | sed -n 3p)
        [ -n "$uuid" ]
        run engines_docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES="$uuid" rocm/rocm-terminal \
                rocm-smi --showuniqueid
        [ "$status" -eq 0 ] || { printf '%s\n' "$output"; return 1; }
        [ "$(uuids_of)" = "$uuid" ] || { printf '%s\n' "$output"; return 1; }
}

# podman --device amd.com/gpu=1 (our CDI spec): rocm-smi lists GPU 1 only
scenario_podman_gpu1() {
        local want
        want=$(host_uuids | sed -n 2p)
        engines_in /ctk-build/bin/amd-ctk cdi generate >/dev/null
        run engines_podman run --rm --device amd.com/gpu=1 rocm/rocm-terminal rocm-smi --showuniqueid
        [ "$status" -eq 0 ] || { printf '%s\n' "$output"; return 1; }
        [ "$(uuids_of)" = "$want" ] || { printf '%s\n' "$output"; return 1; }
        run engines_podman run --rm --device amd.com/gpu=1 rocm/rocm-terminal rocm-smi
        [ "$status" -eq 0 ]
        [ "$(printf '%s\n' "$output" | grep -cE '^[0-9]+ ')" -eq 1 ] || { printf '%s\n' "$output"; return 1; }
}

# a container given no GPU lists none, as rocm-smi does on a real host (not 'driver not loaded')
scenario_no_gpu() {
        run engines_docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=none rocm/rocm-terminal rocm-smi
        printf '%s\n' "$output"
        [[ "$output" != *"not found in modules"* ]] && [[ "$output" != *"Driver not initialized"* ]]
        [ "$(printf '%s\n' "$output" | grep -cE '^[0-9]+ +[0-9]+ ')" -eq 0 ]
}

# mi300x-cpx-x8: podman --device amd.com/gpu=9 lists one partition, the one asked for
scenario_cpx_partition() {
        engines_fakefs_mount "$PROFILES/mi300x-cpx-x8.json"
        local want
        want=$(engines_in /ctk-build/bin/amd-ctk --root /ctk-host gpu list --json | jq -r '.[9] | .uuid | ascii_downcase')
        engines_in /ctk-build/bin/amd-ctk cdi generate >/dev/null
        run engines_podman run --rm --device amd.com/gpu=9 rocm/rocm-terminal rocm-smi --showuniqueid --showbus
        [ "$status" -eq 0 ] || { printf '%s\n' "$output"; return 1; }
        [ "$(uuids_of)" = "$want" ] || { printf '%s\n' "$output"; return 1; }
        [[ "$output" == *"PCI Bus: 0000:27:00.1"* ]] || { printf '%s\n' "$output"; return 1; }
        engines_fakefs_mount "$PROFILES/seed-4xmi210.json"
        engines_in /ctk-build/bin/amd-ctk cdi generate >/dev/null
}
