#!/usr/bin/env bats
# A real three-node Docker Swarm on one machine schedules the GPUs that
# `amd-ctk runtime configure --swarm-resources` advertises on each node.
#
#   node 0  manager   dockerd 20.10 (Debian 12)  no-amdgpu      no AMD_GPU
#   node 1  worker    dockerd 20.10              seed-4xmi210   AMD_GPU=gpu0..gpu3 (--swarm-resource-ids index)
#   node 2  worker    dockerd 26.1 (Debian 13)   mi300x-cpx-x8  AMD_GPU=0x<UUID>:<N>, 63 partitions
#
# Each node has a network namespace of its own whose veth address
# (198.18.0.10-12) is on a bridge in a namespace of the test's own, and a
# simulated host over FUSE (helpers/swarm_cluster.bash).  The nodes join over
# those addresses only.  Every task's container prints what Swarm granted
# it (DOCKER_RESOURCE_AMD_GPU) and the /dev/dri it sees: the two must agree
# through `amd-ctk gpu list` on that node's host, and no GPU may be granted
# twice on a node.  The steps build on each other, in order; the last one
# stops everything and checks that nothing is left.

load helpers/common
load helpers/dockerd
load helpers/images
load helpers/engines
load helpers/swarm_cluster

export BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-300}

# What every task runs: the grant, the nodes it sees, then it stays.
TASK='echo "granted=$DOCKER_RESOURCE_AMD_GPU"; echo "dri=$(ls /dev/dri 2>/dev/null | tr "\n" " ")"; exec sleep 1000000'

setup_file() {
        [ "$(id -u)" -eq 0 ] && [ -c /dev/fuse ] || {
                echo "the swarm needs root and /dev/fuse" >&2
                return 1
        }
        ctk_require_built "$CTK_BIN/amd-ctk" "$CTK_BIN/amd-container-runtime" "$CTK_BIN/amd-ctk-fakefs" || return 1
        export PATH=$CTK_BIN:$PATH IMAGES_CACHE=$BATS_FILE_TMPDIR STARTED=$(date +%s)
        cluster_net_up || return 1
        cluster_node_start 0 "$PROFILES/no-amdgpu.json" || return 1
        cluster_node_start 1 "$PROFILES/seed-4xmi210.json" --swarm-resource-ids index || return 1
        cluster_engines_node_start 2 "$PROFILES/mi300x-cpx-x8.json" || return 1
        # a node that stops answering is down after about 3 heartbeats
        on 0 docker swarm init --advertise-addr "$(cluster_addr 0)" --listen-addr "$(cluster_addr 0):2377" \
                --dispatcher-heartbeat 2s >/dev/null || return 1
        local token i
        token=$(on 0 docker swarm join-token -q worker) || return 1
        for i in 1 2; do
                on "$i" docker swarm join --token "$token" --advertise-addr "$(cluster_addr "$i")" \
                        --listen-addr "$(cluster_addr "$i"):2377" "$(cluster_addr 0):2377" >/dev/null || return 1
        done
        for i in 0 1 2; do
                eval "export NODE$i=$(on "$i" docker info --format '{{.Swarm.NodeID}}')"
                cluster_gpu_list "$i" >"$BATS_FILE_TMPDIR/gpus-$i.json" 2>/dev/null || echo '[]' >"$BATS_FILE_TMPDIR/gpus-$i.json"
        done
        ctk_wait_for 30 nodes_ready 3 || {
                on 0 docker node ls >&2
                return 1
        }
        echo "# the swarm is up after $(($(date +%s) - STARTED)) s" >&3
}

teardown_file() {
        cluster_stop
}

teardown() {
        [ -z "${BATS_TEST_COMPLETED:-}" ] || return 0
        echo "--- docker node ls:"
        on 0 docker node ls 2>&1 || true
        echo "--- tasks:"
        on 0 docker service ls -q 2>/dev/null | while read -r s; do
                on 0 docker service ps --no-trunc "$s" 2>&1 | head -n 40
        done
}

# nodes_ready N: N nodes Ready.
nodes_ready() {
        [ "$(on 0 docker node ls --format '{{.Status}}' | grep -c '^Ready$')" -eq "$1" ]
}

# node_index NODE_ID: 0, 1 or 2 (- for none).
node_index() {
        case $1 in
        "$NODE0") echo 0 ;;
        "$NODE1") echo 1 ;;
        "$NODE2") echo 2 ;;
        *) echo - ;;
        esac
}

# tasks SERVICE: "NODE STATE ERROR" for each task that should run, NODE its index.
tasks() {
        local ids
        ids=$(on 0 docker service ps -q --filter desired-state=running "$1") || return 1
        [ -n "$ids" ] || return 0
        # shellcheck disable=SC2086 # one id per word
        on 0 docker inspect --type task \
                --format '{{if .NodeID}}{{.NodeID}}{{else}}-{{end}} {{.Status.State}} {{.Status.Err}}' $ids |
                while read -r node state err; do
                        echo "$(node_index "$node") $state $err"
                done
}

# running_on SERVICE NODE: the number of running tasks of SERVICE on NODE.
running_on() {
        tasks "$1" | awk -v n="$2" '$1 == n && $2 == "running"' | wc -l
}

# settled SERVICE RUNNING PENDING: that many tasks running and pending, no
# other task that should run, and no container of SERVICE beyond the running
# ones left on the live GPU nodes.
settled() {
        local t
        t=$(tasks "$1") || return 1
        [ "$(awk '$2 == "running"' <<<"$t" | grep -c .)" -eq "$2" ] || return 1
        [ "$(awk '$2 == "pending"' <<<"$t" | grep -c .)" -eq "$3" ] || return 1
        [ "$(grep -c . <<<"$t")" -eq $(($2 + $3)) ] || return 1
        [ "$(containers_of "$1" | wc -l)" -eq "$2" ]
}

# containers_of SERVICE: "NODE CONTAINER" of each container of SERVICE
# running on a node that answers.
containers_of() {
        local i c
        for i in 0 1 2; do
                for c in $(on "$i" docker ps -q --filter "label=com.docker.swarm.service.name=$1" 2>/dev/null); do
                        echo "$i $c"
                done
        done
}

# devices_of NODE ID: the DRM node names Swarm resource ID stands for on
# NODE, by `amd-ctk gpu list --json` (swarm_id, or gpu<index>).
devices_of() {
        jq -r --arg id "$2" '.[] | select(.swarm_id == $id or ("gpu" + (.index | tostring)) == $id)
                | .devices[] | sub("^/dev/dri/"; "")' "$BATS_FILE_TMPDIR/gpus-$1.json"
}

# advertised NODE: the AMD_GPU values NODE offers Swarm, sorted.
advertised() {
        local id
        id=$(eval echo "\$NODE$1")
        on 0 docker node inspect "$id" --format \
                '{{range .Description.Resources.GenericResources}}{{if .NamedResourceSpec}}{{.NamedResourceSpec.Kind}}={{.NamedResourceSpec.Value}}{{"\n"}}{{end}}{{end}}' |
                sed -n 's/^AMD_GPU=//p' | sort
}

# assert_grants SERVICE...: every running container of the services is on a
# GPU node, was granted WANT ids (default 2) that its node advertises, and
# sees exactly their DRM nodes; no id is granted twice on a node.
assert_grants() {
        local svc i c out granted dri want ids n=0
        for svc in "$@"; do
                while read -r i c; do
                        [ -n "$c" ] || continue
                        [ "$i" != 0 ] || {
                                echo "a task of $svc runs on node 0, which has no GPUs"
                                return 1
                        }
                        out=$(on "$i" docker logs "$c" 2>&1)
                        granted=$(sed -n 's/^granted=//p' <<<"$out")
                        dri=$(sed -n 's/^dri=//p' <<<"$out" | tr ' ' '\n' | grep . | sort)
                        ids=$(tr ',' '\n' <<<"$granted" | grep . | sort)
                        [ "$(grep -c . <<<"$ids")" -eq "${WANT:-2}" ] || {
                                echo "container $c of $svc on node $i was granted '$granted'"
                                return 1
                        }
                        [ -z "$(comm -23 <(echo "$ids") <(advertised "$i"))" ] || {
                                echo "container $c on node $i was granted '$granted', not all of which node $i advertises"
                                return 1
                        }
                        want=$(for id in $ids; do devices_of "$i" "$id"; done | sort)
                        [ "$dri" = "$want" ] || {
                                echo "container $c of $svc on node $i, granted $granted, sees:"
                                echo "$dri"
                                echo "but $granted are, by amd-ctk gpu list:"
                                echo "$want"
                                return 1
                        }
                        echo "$ids" | sed "s/^/$i /" >>"$BATS_TEST_TMPDIR/granted"
                        echo "$c" >>"$(_cluster_ids)" # for cluster_leftovers
                        n=$((n + 1))
                done < <(containers_of "$svc")
        done
        # no id twice on one node
        [ -z "$(sort "$BATS_TEST_TMPDIR/granted" | uniq -d)" ] || {
                echo "granted twice:"
                sort "$BATS_TEST_TMPDIR/granted" | uniq -d
                return 1
        }
        rm -f "$BATS_TEST_TMPDIR/granted"
        echo "$n containers checked" >&3
}

@test "three nodes joined over the test's own addresses; each advertises what runtime configure found on its host" {
        run on 0 docker node ls --format '{{.Self}} {{.Status}} {{.ManagerStatus}}'
        [ "$(sort <<<"$output")" = "false Ready 
false Ready 
true Ready Leader" ]
        for i in 0 1 2; do
                id=$(eval echo "\$NODE$i")
                [ "$(on 0 docker node inspect "$id" --format '{{.Status.Addr}}')" = "$(cluster_addr "$i")" ]
        done
        [[ "$(on 0 docker node inspect "$NODE2" --format '{{.Description.Engine.EngineVersion}}')" == 26.1.* ]]
        [[ "$(on 0 docker node inspect "$NODE1" --format '{{.Description.Engine.EngineVersion}}')" == 20.10.* ]]
        # what each node offers is what runtime configure wrote from its host
        [ -z "$(advertised 0)" ]
        [ "$(advertised 1)" = "$(printf 'gpu%s\n' 0 1 2 3)" ]
        [ "$(advertised 2 | wc -l)" -eq 63 ]
        [ "$(advertised 2)" = "$(jq -r '.[].swarm_id' "$BATS_FILE_TMPDIR/gpus-2.json" | sort)" ]
        [ "$(advertised 2 | grep -c '^0xE3AA140F9A5F9E31:[0-7]$')" -eq 8 ]
        grep -q "Wrote 63 AMD_GPU entries to node-generic-resources (uuid ids; 0 before)" "$CLUSTER_DIR/n2.configure.out"
        grep -q "No AMD GPU found (the amdgpu driver is not loaded): this node offers no AMD_GPU to Swarm" \
                "$CLUSTER_DIR/n0/configure.out"
        # each dockerd 20.10 in its node's network namespace
        for i in 0 1; do
                [ "$(readlink "/proc/$(cat "$CLUSTER_DIR/n$i/dockerd.launch.pid")/ns/net")" = \
                        "$(readlink "/proc/$(cat "$CLUSTER_DIR/n$i/containerd.pid")/ns/net")" ]
                [ "$(readlink "/proc/$(cat "$CLUSTER_DIR/n$i/dockerd.launch.pid")/ns/net")" = \
                        "$(readlink "$(cluster_netns "n$i")")" ]
        done
        [ "$(readlink "/proc/$ENGINES_PID/ns/net")" = "$(readlink "$(cluster_netns n2)")" ]
}

@test "docker service create --generic-resource AMD_GPU=2 --replicas 6: on GPU nodes only, each container sees the two GPUs Swarm granted it" {
        on 0 docker service create --detach --name gpu2 --generic-resource AMD_GPU=2 --replicas 6 \
                --stop-grace-period 1s busybox sh -c "$TASK" >/dev/null 2>&1
        ctk_wait_for 120 settled gpu2 6 0
        [ "$(running_on gpu2 0)" -eq 0 ]
        assert_grants gpu2
        # Swarm spreads the tasks: both GPU nodes have some
        [ "$(running_on gpu2 1)" -gt 0 ]
        [ "$(running_on gpu2 2)" -gt 0 ]
}

@test "a stack file with generic_resources: its tasks get GPUs too, none granted twice beside the service's" {
        mkdir -p "$BATS_FILE_TMPDIR/stack"
        cd "$BATS_FILE_TMPDIR/stack"
        # (compose's own variables are written $$)
        cat >docker-compose.yml <<EOF
version: '3.8'
services:
  trainer:
    image: busybox
    command: ["sh", "-c", '${TASK//\$/\$\$}']
    stop_grace_period: 1s
    deploy:
      replicas: 3
      resources:
        reservations:
          generic_resources:
            - discrete_resource_spec:
                kind: 'AMD_GPU'
                value: 2
EOF
        on 0 docker stack deploy -c docker-compose.yml gpustack >/dev/null 2>&1
        ctk_wait_for 120 settled gpustack_trainer 3 0
        [ "$(running_on gpustack_trainer 0)" -eq 0 ]
        assert_grants gpu2 gpustack_trainer
        on 0 docker stack rm gpustack >/dev/null
        ctk_wait_for 60 stack_gone
}

stack_gone() {
        [ -z "$(containers_of gpustack_trainer)" ] && [ -z "$(on 0 docker network ls -q --filter name=gpustack_)" ]
}

@test "scaled past the cluster's GPUs: 33 tasks get 2 of the 67 each, the 34th stays pending for insufficient resources" {
        on 0 docker service scale --detach gpu2=34 >/dev/null
        ctk_wait_for 180 settled gpu2 33 1
        [ "$(running_on gpu2 1)" -eq 2 ]  # 4 GPUs
        [ "$(running_on gpu2 2)" -eq 31 ] # 63 partitions
        # (the scheduler says why once it has tried; how many nodes it names
        # depends on whether the task was tried alone or in a batch with tasks
        # that did fit, so any count will do)
        ctk_wait_for 30 pending_says gpu2 'no suitable node \(insufficient resources on [0-9]+ nodes?\)' || {
                echo "the pending task says: $(tasks gpu2 | awk '$2 == "pending"')"
                return 1
        }
        assert_grants gpu2
        # back to 6: Swarm takes tasks from the nodes with the most first
        on 0 docker service scale --detach gpu2=6 >/dev/null
        ctk_wait_for 120 settled gpu2 6 0
        assert_grants gpu2
}

# pending_says SERVICE REGEX: a pending task of SERVICE has an error REGEX matches.
pending_says() {
        tasks "$1" | awk '$2 == "pending"' | grep -qE -- "$2"
}

@test "a drained node: its tasks move to the other GPU node and get GPUs there" {
        [ "$(running_on gpu2 1)" -gt 0 ] # something to move
        on 0 docker node update --availability drain "$NODE1" >/dev/null
        ctk_wait_for 120 settled gpu2 6 0
        [ "$(running_on gpu2 1)" -eq 0 ]
        [ "$(running_on gpu2 2)" -eq 6 ]
        assert_grants gpu2
        on 0 docker node update --availability active "$NODE1" >/dev/null
}

@test "a worker's dockerd killed: its tasks are rescheduled on the GPU node left" {
        # two more tasks: Swarm puts them on node 1, which has none now
        on 0 docker service scale --detach gpu2=8 >/dev/null
        ctk_wait_for 120 settled gpu2 8 0
        [ "$(running_on gpu2 1)" -eq 2 ]
        assert_grants gpu2
        cluster_node_kill 1
        ctk_wait_for 60 node_down "$NODE1"
        ctk_wait_for 120 settled gpu2 8 0
        [ "$(running_on gpu2 2)" -eq 8 ]
        assert_grants gpu2
        echo "# scenario done after $(($(date +%s) - STARTED)) s" >&3
}

node_down() {
        [ "$(on 0 docker node inspect "$1" --format '{{.Status.State}}')" = down ]
}

@test "stopping the cluster leaves no namespace, interface, mount, daemon, container or file behind" {
        cluster_stop
        run cluster_leftovers
        [ "$status" -eq 0 ]
        [ -z "$output" ] || {
                echo "left behind:"
                echo "$output"
                return 1
        }
        echo "# stopped; $(($(date +%s) - STARTED)) s in all" >&3
}
