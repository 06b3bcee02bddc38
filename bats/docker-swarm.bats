#!/usr/bin/env bats
# AMD's toolkit README's "Docker Swarm Integration" (in "GPU UUID Support"): the
# daemon.json with amd as the default runtime and the swarm node's generic
# resources, then `docker stack deploy` of both docker-compose.yml files, as
# written. A one-node swarm on a private dockerd that runs in a network
# namespace of its own (see helpers/dockerd.bash). The
# simulated host is the seed profile with the README's UUIDs on GPUs 0-2,
# served over FUSE; the tasks run Debian's rocm-smi.

load helpers/common
load helpers/dockerd
load helpers/images
load helpers/amd_tools
load helpers/fakefs
load helpers/docker_gpu

# seed-4xmi210.json: GPU index -> card and render minor (as in docker-runtime.bats).
gpu_minors() {
        case $1 in
        0) echo 2 130 ;;
        1) echo 3 131 ;;
        2) echo 1 129 ;;
        3) echo 0 128 ;;
        *) return 1 ;;
        esac
}

setup_file() {
        export PATH=$CTK_BIN:$PATH IMAGES_CACHE=$BATS_FILE_TMPDIR
        DOCKERD_DIR=$(ctk_tmpdir docker)
        export DOCKERD_DIR DOCKERD_CONFIG=$DOCKERD_DIR/daemon.json
        export TOOLKIT_CONFIG=$DOCKERD_DIR/toolkit.json RUNTIME_LOG=$DOCKERD_DIR/amd-container-runtime.log
        export GPU_PROFILE=$DOCKERD_DIR/swarm-host.json
        jq '.name = "swarm-host" | .gpus[0].unique_id = "0x378041e1ada6015"
                | .gpus[1].unique_id = "0xef39dad16afb86ad" | .gpus[2].unique_id = "0x583de6f2d99dc333"' \
                "$PROFILES/seed-4xmi210.json" >"$GPU_PROFILE"
        # The README's daemon.json; runtimeArgs names our toolkit configuration,
        # deprecated-key-path keeps dockerd 20.10 out of /etc/docker.
        cat >"$DOCKERD_CONFIG" <<EOF
{
  "default-runtime": "amd",
  "runtimes": {
    "amd": {
      "path": "amd-container-runtime",
      "runtimeArgs": ["--amd-config=$TOOLKIT_CONFIG"]
    }
  },
  "node-generic-resources": [
    "AMD_GPU=0x378041e1ada6015",
    "AMD_GPU=0xef39dad16afb86ad",
    "GPU_COMPUTE=0x583de6f2d99dc333"
  ],
  "deprecated-key-path": "$DOCKERD_DIR/key.json"
}
EOF
        dockerd_start "$DOCKERD_DIR"
        BATS_TEST_TMPDIR=$BATS_FILE_TMPDIR gpu_host_mount "$GPU_PROFILE"
        export GPU_HOST
        toolkit_config root "$GPU_HOST"
        images_docker_import --rocm
        docker tag rocm/rocm-terminal rocm/dev-ubuntu-24.04
        docker swarm init --advertise-addr 127.0.0.1 >/dev/null
        mkdir -p "$DOCKERD_DIR/stack"
        # A long-running service in the same stack keeps the node's attachment
        # to the stack network. Without it the node loses the attachment each
        # time the README's one-shot task exits and gains it back when the
        # next one starts; each of those node updates makes dockerd 20.10's
        # swarm reject a task holding generic resources ("assigned node no
        # longer meets constraints": its constraint enforcer tests the
        # resource the wrong way round), so the task could be rejected again
        # and again. Stack deploys without --prune leave the keeper alone.
        cat >"$DOCKERD_DIR/stack/keeper.yml" <<'EOF'
version: '3.8'
services:
  keeper:
    image: busybox
    command: sleep 1000000
EOF
        docker stack deploy -c "$DOCKERD_DIR/stack/keeper.yml" rocm-stack >/dev/null
        ctk_wait_for 60 keeper_running || {
                echo "the keeper service did not start" >&2
                docker service ps --no-trunc rocm-stack_keeper >&2
                return 1
        }
}

keeper_running() {
        docker service ps --filter desired-state=running --format '{{.CurrentState}}' \
                rocm-stack_keeper 2>/dev/null | grep -q '^Running'
}

teardown_file() {
        gpu_docker_stop
}

setup() {
        RUNTIME_LOG_START=$( (cat "$RUNTIME_LOG" 2>/dev/null || true) | wc -l)
        cd "$DOCKERD_DIR/stack"
}

teardown() {
        [ -z "${BATS_TEST_COMPLETED:-}" ] || return 0
        echo "--- docker service ps:"
        docker service ps --no-trunc rocm-stack_rocm-service 2>&1 | head -n 5
        echo "--- service logs (last 20 lines):"
        docker service logs --raw rocm-stack_rocm-service 2>&1 | tail -n 20
        echo "--- amd-container-runtime log of this test:"
        runtime_log_since_setup | tail -n 20
}

# service_table N: the first rocm-smi table in the service's logs that lists
# N GPUs (swarm starts a new task each time rocm-smi exits).
service_table() {
        docker service logs --raw rocm-stack_rocm-service 2>/dev/null | awk -v n="$1" -v row="$ROCM_SMI_ROW" '
                /=== ROCm System Management Interface ===/ { t = ""; rows = 0 }
                { t = t $0 "\n" }
                $0 ~ row { rows++ }
                /=== End of ROCm SMI Log ===/ && rows == n { printf "%s", t; exit }'
}

service_showed() {
        [ -n "$(service_table "$1")" ]
}

# wait_for_table N: waits until the service has shown a table listing N
# GPUs and puts it into $output.
wait_for_table() {
        ctk_wait_for 30 service_showed "$1" || {
                echo "the service printed no rocm-smi table listing $1 GPUs"
                return 1
        }
        output=$(service_table "$1")
}

# wait_for_table_rescheduling N: wait_for_table, but when dockerd 20.10's
# swarm scheduler itself rejected the task (its network attachment or node
# constraints raced with the stack update, before our runtime was ever
# called), force a new task, at most twice.
wait_for_table_rescheduling() {
        local try
        for try in 1 2 3; do
                wait_for_table "$1" && return 0
                docker service ps --no-trunc rocm-stack_rocm-service 2>/dev/null |
                        grep -qE 'no longer meets constraints|missing network attachments' || break
                echo "swarm rejected the task (attempt $try); forcing a new one"
                docker service update --force --detach rocm-stack_rocm-service >/dev/null || break
        done
        echo "--- docker service ps:"
        docker service ps --no-trunc rocm-stack_rocm-service 2>&1 || true
        return 1
}

# node_resources: the node's generic resources, KIND=VALUE, sorted, on one line.
node_resources() {
        docker node inspect self --format \
                '{{range .Description.Resources.GenericResources}}{{.NamedResourceSpec.Kind}}={{.NamedResourceSpec.Value}}{{"\n"}}{{end}}' |
                grep . | sort | paste -sd" "
}

node_resources_are() {
        [ "$(node_resources)" = "$1" ]
}

@test "the swarm node advertises the generic resources of the README's daemon.json; amd is the default" {
        # (in whatever order the node reports them)
        ctk_wait_for 10 node_resources_are "AMD_GPU=0x378041e1ada6015 AMD_GPU=0xef39dad16afb86ad GPU_COMPUTE=0x583de6f2d99dc333" || {
                echo "the node reports: $(node_resources)"
                return 1
        }
        [ "$(docker info --format '{{.DefaultRuntime}}')" = amd ]
        # the daemons have a network namespace of their own
        [ "$(readlink "/proc/$(cat "$DOCKERD_DIR/dockerd.launch.pid")/ns/net")" != "$(readlink /proc/self/ns/net)" ]
        [ "$(readlink "/proc/$(cat "$DOCKERD_DIR/dockerd.launch.pid")/ns/net")" = \
                "$(readlink "/proc/$(cat "$DOCKERD_DIR/containerd.pid")/ns/net")" ]
}

@test "environment variable: AMD_VISIBLE_DEVICES=all in the service gets all GPUs" {
        cat >docker-compose.yml <<'EOF'
# docker-compose.yml for Swarm deployment with environment variable
version: '3.8'
services:
  rocm-service:
    image: rocm/dev-ubuntu-24.04
    command: rocm-smi
    environment:
      - AMD_VISIBLE_DEVICES=all
    deploy:
      replicas: 1
EOF
        ok docker stack deploy -c docker-compose.yml rocm-stack
        wait_for_table 4
        assert_gpus 0 1 2 3
}

@test "generic resources: the task gets DOCKER_RESOURCE_AMD_GPU=<uuid> and exactly that GPU" {
        cat >docker-compose.yml <<'EOF'
# docker-compose.yml for Swarm deployment
version: '3.8'
services:
  rocm-service:
    image: rocm/dev-ubuntu-24.04
    command: rocm-smi
    deploy:
      replicas: 1
      resources:
        reservations:
          generic_resources:
            - discrete_resource_spec:
                kind: 'AMD_GPU'  # Matches daemon.json key
                value: 1
EOF
        ok docker stack deploy -c docker-compose.yml rocm-stack
        wait_for_table_rescheduling 1
        # swarm assigned one of the two AMD_GPU values: GPU 0 or GPU 1
        if [ "$(gpu_rows)" = "$(gpu_rows_expected 0)" ]; then assert_gpus 0; else assert_gpus 1; fi
        runtime_log_since_setup | grep -q 'GPUs [01]: added 3 device nodes'
}
