#!/usr/bin/env bats
# The docker sessions of AMD's toolkit README ("Configuring Docker", "Docker Runtime
# Integration", "GPU UUID Support") on the simulated 4 x MI210 host of the
# GPU tracker document, served over FUSE, with a real private dockerd,
# containerd and runc driving amd-container-runtime, and Debian's rocm-smi in
# the containers. See helpers/docker_gpu.bash.
#
# CDI through docker (`docker run --device amd.com/gpu=all ...`): this
# machine's dockerd is 20.10, which has no CDI support; a newer docker CLI
# turns the CDI name into a device request with driver "cdi", which the old
# daemon refuses (the last test shows it). Our CDI specs are consumed by a
# real CDI client in bats/cdi-podman.bats.

load helpers/common
load helpers/dockerd
load helpers/images
load helpers/amd_tools
load helpers/fakefs
load helpers/docker_gpu

setup_file() { gpu_docker_start seed-4xmi210; }
teardown_file() { gpu_docker_stop; }
setup() { gpu_docker_baseline; }
teardown() { gpu_docker_after_test; }

# seed-4xmi210.json: GPU index (PCI order) -> card and render minor.
gpu_minors() {
        case $1 in
        0) echo 2 130 ;; # 0000:03:00.0, UUID 0xEA35F57CC80DEB35
        1) echo 3 131 ;; # 0000:26:00.0, UUID 0x89CAA15875FF5A43
        2) echo 1 129 ;; # 0000:43:00.0, UUID 0x6E32F10EFC982B4C
        3) echo 0 128 ;; # 0000:63:00.0, UUID 0x12FE4F7FDAF06B9
        *) echo "no GPU $1 in seed-4xmi210" >&2 && return 1 ;;
        esac
}

# A copy of the seed profile whose GPUs 0 and 1 have the UUIDs of the
# README's examples, so those commands run exactly as written.
readme_uuid_profile() {
        local p=$BATS_FILE_TMPDIR/readme-uuids.json
        jq '.name = "readme-uuids" | .gpus[0].unique_id = "0xef2c1799a1f3e2ed"
                | .gpus[1].unique_id = "0x1234567890abcdef"' "$GPU_PROFILE" >"$p"
        echo "$p"
}

@test "Configuring Docker: amd-ctk runtime configure registers amd with our config; dockerd runs it" {
        run cat "$DOCKERD_DIR/configure.out"
        [ "${lines[0]}" = "Loading configuration from: $DOCKERD_CONFIG" ]
        [ "${lines[1]}" = "Updated the config file: $DOCKERD_CONFIG" ]
        [ "${lines[2]}" = "Please restart docker daemon" ]
        run jq -c '{runtimes, features, "default-runtime"}' "$DOCKERD_CONFIG"
        [ "$output" = '{"runtimes":{"amd":{"path":"amd-container-runtime","runtimeArgs":["--amd-config='"$TOOLKIT_CONFIG"'"]}},"features":{"cdi":true},"default-runtime":null}' ]
        ok docker info --format '{{.DefaultRuntime}} {{(index .Runtimes "amd").Path}}'
        [ "$output" = "runc amd-container-runtime" ]
        # the same command again: nothing to do
        ok amd-ctk runtime configure --runtime=docker --config-path "$DOCKERD_CONFIG" \
                --runtime-arg="--amd-config=$TOOLKIT_CONFIG"
        [ "${lines[1]}" = "The config file is already up to date: $DOCKERD_CONFIG" ]
}

@test "AMD_VISIBLE_DEVICES=all: all 4 GPUs, their card and render nodes and /dev/kfd" {
        ok docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=all rocm/rocm-terminal rocm-smi
        assert_gpus 0 1 2 3
}

@test "AMD_VISIBLE_DEVICES=0,1,2 and 0-1,3: those GPUs only (ls -ln /dev/dri /dev/kfd agrees with rocm-smi)" {
        ok docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=0,1,2 rocm/rocm-terminal rocm-smi
        assert_gpus 0 1 2
        ok docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=0,1,2 rocm/rocm-terminal ls -ln /dev/dri /dev/kfd
        assert_ls_gpus 0 1 2
        ok docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=0-1,3 rocm/rocm-terminal rocm-smi
        assert_gpus 0 1 3
}

@test "AMD_VISIBLE_DEVICES with CDI names (Docker 20.10 has no CDI): resolved through the spec directories" {
        ok docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=amd.com/gpu=1 rocm/rocm-terminal ls -ln /dev/dri /dev/kfd
        assert_ls_gpus 1
        ok docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=0,amd.com/gpu=2 rocm/rocm-terminal rocm-smi
        assert_gpus 0 2
        ok docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=amd.com/gpu=all rocm/rocm-terminal rocm-smi
        assert_gpus 0 1 2 3
        # a name the spec does not have: the names it has; no container is left
        fails_with "amd-container-runtime: AMD_VISIBLE_DEVICES: amd.com/gpu=9: no such device in $TOOLKIT_CDI/amd.json (0-3, all)" \
                docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=amd.com/gpu=9 rocm/rocm-terminal true
        [ -z "$(docker ps -aq)" ]
        # another vendor's kind: refused by default (config key cdi-kinds)
        fails_with "amd-container-runtime: AMD_VISIBLE_DEVICES: 'example.com/nic=eth0' is a CDI device of kind example.com/nic, which this runtime does not resolve (config key cdi-kinds: amd.com/gpu)" \
                docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=example.com/nic=eth0 rocm/rocm-terminal true
}

@test "a third-party CDI spec (YAML) beside ours: example.com/nic=eth0 adds its env and mount, amd.com/gpu=1 its nodes" {
        nic=$BATS_TEST_TMPDIR/nic-cdi data=$BATS_TEST_TMPDIR/nic-data
        mkdir -p "$nic" "$data"
        echo "eth0 firmware 1.2" >"$data/fw"
        printf '%s\n' '---' 'cdiVersion: 0.5.0' 'kind: example.com/nic' 'devices:' '- name: eth0' '  containerEdits:' \
                '    env:' '    - NIC_NAME=eth0' '    mounts:' "    - hostPath: $data" '      containerPath: /opt/nic' \
                '      options: [ro, rbind]' >"$nic/nic.yaml"
        toolkit_config root "$GPU_HOST" "$(jq -cn --arg a "$TOOLKIT_CDI" --arg b "$nic" \
                '{"cdi-spec-dirs": [$a, $b], "cdi-kinds": ["amd.com/gpu", "example.com/nic"]}')"
        ok docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=amd.com/gpu=1,example.com/nic=eth0 rocm/rocm-terminal \
                sh -c 'echo "NIC_NAME=$NIC_NAME"; cat /opt/nic/fw; echo x 2>&1 >/opt/nic/w; ls -ln /dev/dri /dev/kfd'
        [ "${lines[0]}" = "NIC_NAME=eth0" ]
        [ "${lines[1]}" = "eth0 firmware 1.2" ]
        [[ "$output" == *"Read-only file system"* ]]
        assert_ls_gpus 1
        # the NIC alone: its edits, and no GPU
        ok docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=example.com/nic=eth0 rocm/rocm-terminal \
                sh -c 'echo "NIC_NAME=$NIC_NAME"; cat /opt/nic/fw; ls /dev/dri /dev/kfd 2>&1; true'
        [ "${lines[0]}" = "NIC_NAME=eth0" ]
        [ "${lines[1]}" = "eth0 firmware 1.2" ]
        [[ "$output" == *"/dev/dri: No such file or directory"* ]]
        runtime_log_since_setup | grep -q 'CDI devices example.com/nic=eth0: added 0 device nodes.* 1 environment variables, 1 mounts'
}

@test "mode legacy (config key mode): a CDI name is refused; plain tokens select GPUs as before" {
        toolkit_config root "$GPU_HOST" '{"mode": "legacy"}'
        fails_with "amd-container-runtime: AMD_VISIBLE_DEVICES: 'amd.com/gpu=1' is a CDI device name, but the runtime's mode is legacy (config key mode)" \
                docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=amd.com/gpu=1 rocm/rocm-terminal true
        ok docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=1 rocm/rocm-terminal ls -ln /dev/dri /dev/kfd
        assert_ls_gpus 1
}

@test "AMD_VISIBLE_DEVICES=0-3,5,8 on this 4-GPU host: docker run fails naming GPU 5, no container left" {
        fails_with "amd-container-runtime: AMD_VISIBLE_DEVICES: GPU 5 does not exist (this host has GPUs 0-3)" \
                docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=0-3,5,8 rocm/rocm-terminal rocm-smi
        [ "$status" -eq 125 ]
        [ -z "$(docker ps -aq)" ]
}

@test "AMD_VISIBLE_DEVICES=9: docker run fails with our one-line message" {
        fails_with "AMD_VISIBLE_DEVICES: GPU 9 does not exist (this host has GPUs 0-3)" \
                docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=9 rocm/rocm-terminal rocm-smi
        [ "$status" -eq 125 ]
        [[ "${lines[0]}" == "docker: Error response from daemon: "*"OCI runtime create failed: amd-container-runtime: AMD_VISIBLE_DEVICES: GPU 9 does not exist (this host has GPUs 0-3)"* ]]
        [ -z "$(docker ps -aq)" ]
        runtime_log_since_setup | grep -q 'level=ERROR .*AMD_VISIBLE_DEVICES: GPU 9 does not exist'
}

@test "no variable, none, void, empty: no GPU node in the container" {
        # unset, void, empty: the runtime acts as runc (this machine's sysfs)
        for v in unset void ''; do
                if [ "$v" = unset ]; then
                        ok docker run --rm --runtime=amd rocm/rocm-terminal rocm-smi
                else
                        ok docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES="$v" rocm/rocm-terminal rocm-smi
                fi
                assert_no_amdgpu
        done
        # none: the simulated host, none of its GPUs
        ok docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=none rocm/rocm-terminal rocm-smi
        assert_gpus
        run docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=none rocm/rocm-terminal ls -ln /dev/dri /dev/kfd
        [ "$status" -eq 1 ]
        [[ "$output" == *"/dev/dri: No such file or directory"* ]]
        [[ "$output" == *"/dev/kfd: No such file or directory"* ]]
}

@test "the container's user gets the groups of the GPU nodes (video 44, render 109), also a non-root one" {
        ok docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=0 rocm/rocm-terminal id -G
        [ "$output" = "0 44 109" ]
        ok docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=0 --user 1000:1000 rocm/rocm-terminal id -G
        [ "$output" = "1000 44 109" ]
        ok docker run --rm --runtime=amd rocm/rocm-terminal id -G
        [ "$output" = 0 ]
}

# No driver answers for these numbers on the test machine, so opening a node
# that the device cgroup admits (and the file mode allows) fails with ENXIO
# ("No such device or address"); one the cgroup refuses fails with EPERM.
# dev-probe opens the container's nodes and every node of the host (made
# with mknod, bound in): GPU 0's three are admitted, the other six refused.
@test "the device cgroup admits exactly the selected GPU's nodes; a non-root user may open them" {
        amd-ctk-fakefs materialize "$GPU_PROFILE" "$BATS_TEST_TMPDIR/host" >/dev/null
        ok docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=0 -v "$BATS_TEST_TMPDIR/host/dev:/host-dev:ro" \
                rocm/rocm-terminal dev-probe --host /host-dev
        [ "${lines[-1]}" = "dev-probe: 3 given allowed, 6 others denied" ]
        [[ "$output" == *"/host-dev/dri/renderD131 226:131 EPERM denied"* ]]
        [[ "$output" == *"/dev/dri/renderD130 226:130 ENXIO allowed"* ]]
        ok docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=0 --user 1000:1000 rocm/rocm-terminal sh -c \
                'head -c1 /dev/dri/renderD130; head -c1 /dev/kfd; true'
        [ "$output" = "$(printf '%s\n' 'head: /dev/dri/renderD130: No such device or address' \
                'head: /dev/kfd: No such device or address')" ]
}

@test "a detached GPU container: docker exec sees its GPUs, and again after docker restart" {
        ok docker run -d --runtime=amd -e AMD_VISIBLE_DEVICES=1 rocm/rocm-terminal sleep 1000
        id=$output
        ok docker exec "$id" rocm-smi
        assert_gpus 1
        ok docker restart -t 0 "$id"
        ok docker exec "$id" rocm-smi
        assert_gpus 1
        ok docker rm -f "$id"
}

@test "tokens are trimmed: AMD_VISIBLE_DEVICES=' 0 , 3 '" {
        ok docker run --rm --runtime=amd -e 'AMD_VISIBLE_DEVICES= 0 , 3 ' rocm/rocm-terminal rocm-smi
        assert_gpus 0 3
}

@test "UUIDs as gpu list shows them, without 0x, in lower case, zero padded" {
        ok docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=0xEA35F57CC80DEB35 rocm/rocm-terminal rocm-smi
        assert_gpus 0
        ok docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=ea35f57cc80deb35 rocm/rocm-terminal rocm-smi
        assert_gpus 0
        ok docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=0x012fe4f7fdaf06b9,89CAA15875FF5A43 \
                rocm/rocm-terminal rocm-smi
        assert_gpus 1 3
}

@test "UUIDs mixed with indices and ranges; a GPU named twice is given once" {
        ok docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=0x6E32F10EFC982B4C,0,2-3 rocm/rocm-terminal rocm-smi
        assert_gpus 0 2 3
        ok docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=0,0xEA35F57CC80DEB35 rocm/rocm-terminal rocm-smi
        assert_gpus 0
}

@test "DOCKER_RESOURCE_GPU=<uuid> (swarm generic resource) selects that GPU" {
        ok docker run --rm --runtime=amd -e DOCKER_RESOURCE_GPU=0x89CAA15875FF5A43 rocm/rocm-terminal rocm-smi
        assert_gpus 1
        # several variables: the union
        ok docker run --rm --runtime=amd -e DOCKER_RESOURCE_GPU=0x89CAA15875FF5A43 -e AMD_VISIBLE_DEVICES=3 \
                rocm/rocm-terminal rocm-smi
        assert_gpus 1 3
        # other generic resources are not GPUs
        ok docker run --rm --runtime=amd -e DOCKER_RESOURCE_NIC=1 rocm/rocm-terminal rocm-smi
        assert_no_amdgpu
}

@test "a UUID this host does not have: docker run fails naming it" {
        fails_with "amd-container-runtime: AMD_VISIBLE_DEVICES: no GPU has UUID 0xef2c1799a1f3e2ed (this host has GPUs 0-3; 'amd-ctk gpu list' shows their UUIDs)" \
                docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=0xef2c1799a1f3e2ed,0x1234567890abcdef \
                rocm/dev-ubuntu-24.04 rocm-smi
        [ "$status" -eq 125 ]
        [ -z "$(docker ps -aq)" ]
}

@test "GPU UUID Support: the README's commands as written, on a host with the README's UUIDs" {
        gpu_host_mount "$(readme_uuid_profile)"
        toolkit_config root "$GPU_HOST" # read by the runtime at the next start
        # Use specific GPUs by UUID
        ok docker run --rm --runtime=amd \
                -e AMD_VISIBLE_DEVICES=0xef2c1799a1f3e2ed,0x1234567890abcdef \
                rocm/dev-ubuntu-24.04 rocm-smi
        assert_gpus 0 1
        # Mix device indices and UUIDs
        ok docker run --rm --runtime=amd \
                -e AMD_VISIBLE_DEVICES=0,0xef2c1799a1f3e2ed \
                rocm/dev-ubuntu-24.04 rocm-smi
        assert_gpus 0
        # Docker Swarm generic resource format
        ok docker run --rm --runtime=amd \
                -e DOCKER_RESOURCE_GPU=0xef2c1799a1f3e2ed \
                rocm/dev-ubuntu-24.04 rocm-smi
        assert_gpus 0
}

@test "--set-as-default: after a restart docker run without --runtime gets GPUs" {
        ok amd-ctk runtime configure --runtime=docker --set-as-default \
                --config-path "$DOCKERD_CONFIG" --runtime-arg="--amd-config=$TOOLKIT_CONFIG"
        [ "$(jq -r '."default-runtime"' "$DOCKERD_CONFIG")" = amd ]
        dockerd_restart # sudo systemctl restart docker
        ok docker info --format '{{.DefaultRuntime}}'
        [ "$output" = amd ]
        ok docker run --rm -e AMD_VISIBLE_DEVICES=all rocm/rocm-terminal rocm-smi
        assert_gpus 0 1 2 3
        ok docker run --rm -e AMD_VISIBLE_DEVICES=0,1,2 rocm/rocm-terminal rocm-smi
        assert_gpus 0 1 2
        ok docker run --rm rocm/rocm-terminal rocm-smi
        assert_no_amdgpu
        fails_with "AMD_VISIBLE_DEVICES: GPU 9 does not exist (this host has GPUs 0-3)" \
                docker run --rm -e AMD_VISIBLE_DEVICES=9 rocm/rocm-terminal rocm-smi
}

@test "--unset-as-default: runc is the default again, --runtime=amd still works" {
        ok amd-ctk runtime configure --runtime=docker --set-as-default \
                --config-path "$DOCKERD_CONFIG" --runtime-arg="--amd-config=$TOOLKIT_CONFIG"
        dockerd_restart # sudo systemctl restart docker
        [ "$(docker info --format '{{.DefaultRuntime}}')" = amd ]
        ok amd-ctk runtime configure --runtime=docker --unset-as-default --config-path "$DOCKERD_CONFIG"
        [ "${lines[1]}" = "Removed amd as the default runtime" ]
        [ "$(jq -r 'has("default-runtime")' "$DOCKERD_CONFIG")" = false ]
        [ "$(jq -r '.runtimes.amd.path' "$DOCKERD_CONFIG")" = amd-container-runtime ]
        dockerd_restart # sudo systemctl restart docker
        ok docker info --format '{{.DefaultRuntime}}'
        [ "$output" = runc ]
        ok docker run --rm -e AMD_VISIBLE_DEVICES=all rocm/rocm-terminal rocm-smi
        assert_no_amdgpu # plain runc ignores the variable
        ok docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=all rocm/rocm-terminal rocm-smi
        assert_gpus 0 1 2 3
}

@test "--remove: the amd runtime is gone from daemon.json and dockerd, /etc/cdi untouched" {
        cdi_before=$(ls -la --time-style=full-iso /etc/cdi 2>&1 || true)
        ok amd-ctk runtime configure --runtime=docker --remove --config-path "$DOCKERD_CONFIG"
        [ "$(jq -c '{runtimes, "default-runtime"}' "$DOCKERD_CONFIG")" = '{"runtimes":null,"default-runtime":null}' ]
        [ "$(jq -r '."deprecated-key-path"' "$DOCKERD_CONFIG")" = "$DOCKERD_DIR/key.json" ] # other keys kept
        [ "$(ls -la --time-style=full-iso /etc/cdi 2>&1 || true)" = "$cdi_before" ]
        dockerd_restart # sudo systemctl restart docker
        ok docker info --format '{{json .Runtimes}}'
        [ "$(jq 'has("amd")' <<<"$output")" = false ]
        # dockerd 20.10: "Unknown runtime specified amd"; newer: "unknown or invalid runtime name: amd"
        fails_with "amd" docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=all rocm/rocm-terminal rocm-smi
        [[ "${lines[0]}" == "docker: Error response from daemon: Unknown runtime specified amd" ||
                "${lines[0]}" == "docker: Error response from daemon: unknown or invalid runtime name: amd" ]]
        ok docker run --rm rocm/rocm-terminal rocm-smi
        assert_no_amdgpu
}

# A materialized host is no FUSE mount: the runtime gives its containers
# the host's GPU nodes, not its sysfs (rocm-smi there finds this machine's,
# without amdgpu), so the nodes are what is checked.
@test "the materialized host: a UUID and an index; explicit --device paths of its nodes" {
        host=$(ctk_host "$GPU_PROFILE")
        toolkit_config root "$host"
        ok docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=0x12FE4F7FDAF06B9,1 rocm/rocm-terminal \
                ls -ln /dev/dri /dev/kfd
        assert_ls_gpus 1 3
        # "Using explicit paths" (no runtime=amd), with the simulated host's nodes
        ok docker run --device "$host/dev/kfd:/dev/kfd" \
                --device "$host/dev/dri/renderD128:/dev/dri/renderD128" \
                --device "$host/dev/dri/renderD129:/dev/dri/renderD129" rocm/rocm-terminal ls -ln /dev/dri /dev/kfd
        [ "$(printf '%s\n' "$output" | awk '/^c/ { print $NF, $5 $6 }')" = "$(printf '%s\n' \
                '/dev/kfd 235,0' 'renderD128 226,128' 'renderD129 226,129')" ]
}

@test "a broken toolkit configuration: docker run shows the file:line:column error; a profile, how to serve it" {
        printf '{\n  "root": "%s",\n  "bogus": 1\n}\n' "$GPU_HOST" >"$TOOLKIT_CONFIG"
        fails_with "amd-container-runtime: $TOOLKIT_CONFIG:3:3: unknown key \"bogus\"" \
                docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=0 rocm/rocm-terminal rocm-smi
        [ "$status" -eq 125 ]
        # the runtime carries no simulator: the profile is served or written out, and read as root
        toolkit_config profile "$GPU_PROFILE"
        fails_with "amd-container-runtime: $TOOLKIT_CONFIG: \"profile\" is $GPU_PROFILE: amd-container-runtime carries no simulator: serve the host with 'amd-ctk-fakefs mount $GPU_PROFILE DIR' or write it with 'amd-ctk-fakefs materialize $GPU_PROFILE DIR', then set \"root\" to DIR in $TOOLKIT_CONFIG" \
                docker run --rm --runtime=amd rocm/rocm-terminal rocm-smi
        [[ "${lines[0]}" == *"OCI runtime create failed: amd-container-runtime: "* ]]
        [ -z "$(docker ps -aq)" ]
        toolkit_config root /nonexistent/host
        fails_with "amd-container-runtime: cannot provide the requested GPUs: " \
                docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=0 rocm/rocm-terminal rocm-smi
        # without a GPU request the host is not even read
        ok docker run --rm --runtime=amd rocm/rocm-terminal rocm-smi
        assert_no_amdgpu
}

@test "CDI via docker: this dockerd (20.10) has no CDI; the README's --device amd.com/gpu=all is refused" {
        api=$(docker version --format '{{.Server.APIVersion}}')
        if [ "$(printf '%s\n' "$api" 1.44 | sort -V | head -n 1)" = 1.44 ]; then
                skip "dockerd API $api supports CDI; CDI is tested with podman (bats/cdi-podman.bats)"
        fi
        fails_with 'could not select device driver "cdi"' \
                docker run --rm --device amd.com/gpu=all rocm/rocm-terminal rocm-smi
        fails_with 'could not select device driver "cdi"' \
                docker run --rm --device amd.com/gpu=0 --device amd.com/gpu=1 rocm/rocm-terminal rocm-smi
}
