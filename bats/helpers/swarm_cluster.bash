# A Docker Swarm of three private dockerds on one machine, for
# bats/docker-swarm-cluster.bats.
#
#   load helpers/common; load helpers/dockerd; load helpers/images
#   load helpers/engines; load helpers/swarm_cluster
#   setup_file()    { cluster_net_up; cluster_node_start 0 PROFILE ARGS...; ...; }
#   teardown_file() { cluster_stop; }
#
# The network: a namespace "hub" holding a bridge, and one namespace per
# node I whose eth0 (a veth pair with the hub's nI on the bridge) has the
# address 198.18.0.(10+I)/24 and whose loopback is up.  198.18.0.0/15 is
# reserved for benchmarks: no host route and none of Docker's address pools
# use it.  Nothing is created in the host's network namespace, nor in
# /run/netns: each namespace is held by a process of its own (`unshare
# --net sleep`, its pid in CLUSTER_DIR/ns-NAME.pid) and named by
# /proc/PID/ns/net (cluster_netns NAME); it goes when that process and the
# daemons in it are gone.  The daemons of node I (helpers/dockerd.bash) run
# in its namespace and below CLUSTER_DIR/nI (sockets, data, logs), with a simulated
# host of their own, a FUSE mount at CLUSTER_DIR/nI/host that the runtime
# reads (toolkit configuration CLUSTER_DIR/nI/toolkit.json).  One node may
# run Debian 13's dockerd 26 instead (cluster_engines_node_start): the root
# and namespace of helpers/engines.bash, joined to the node's network
# namespace, its simulated host at /ctk-host inside.
#
# on I CMD...   runs CMD with the docker client (DOCKER_HOST) of node I
# cluster_leftovers prints whatever the cluster left behind (namespaces,
# interfaces, mounts, processes, containers, files): nothing once
# cluster_stop has run.

CLUSTER_NET=198.18.0

# cluster_net_up: the namespaces, the bridge and the veth pairs of 3 nodes.
cluster_net_up() {
        CLUSTER_DIR=$(ctk_tmpdir swarm) || return 1
        export CLUSTER_DIR
        local n i
        for n in hub n0 n1 n2; do
                setsid unshare --net sleep infinity </dev/null >/dev/null 2>&1 3>&- &
                echo $! >"$CLUSTER_DIR/ns-$n.pid"
                disown
        done
        for n in hub n0 n1 n2; do
                # (unshare has made the namespace once the process runs sleep)
                ctk_wait_for 10 _cluster_ns_ready "$n" || return 1
        done
        in_ns hub ip link add br0 type bridge || return 1
        in_ns hub ip link set br0 up || return 1
        for i in 0 1 2; do
                in_ns hub ip link add "n$i" type veth peer name eth0 netns "$(cat "$CLUSTER_DIR/ns-n$i.pid")" || return 1
                in_ns hub ip link set "n$i" master br0 up || return 1
                in_ns "n$i" ip addr add "$CLUSTER_NET.$((10 + i))/24" dev eth0 || return 1
                in_ns "n$i" ip link set eth0 up || return 1
                in_ns "n$i" ip link set lo up || return 1
        done
}

_cluster_ns_ready() {
        local pid
        pid=$(cat "$CLUSTER_DIR/ns-$1.pid")
        kill -0 "$pid" 2>/dev/null || return 2
        [ "$(readlink "/proc/$pid/exe")" = "$(readlink -f "$(command -v sleep)")" ]
}

# cluster_netns NAME: the file naming the network namespace NAME (hub, n0..n2).
cluster_netns() { echo "/proc/$(cat "$CLUSTER_DIR/ns-$1.pid")/ns/net"; }

# in_ns NAME CMD...: CMD in the network namespace NAME.
in_ns() {
        local n=$1
        shift
        nsenter --net="$(cluster_netns "$n")" "$@"
}

# the containers' ids, gathered by cluster_stop for cluster_leftovers
_cluster_ids() { echo "${BATS_FILE_TMPDIR:-/tmp}/$(basename "$CLUSTER_DIR").containers"; }

# cluster_addr I: node I's address.
cluster_addr() { echo "$CLUSTER_NET.$((10 + $1))"; }

# _cluster_engines_node: the node that runs dockerd 26, if any.
_cluster_engines_node() { cat "$CLUSTER_DIR/engines-node" 2>/dev/null || true; }

# on I CMD...: CMD with node I's docker client (this host's, which speaks
# to dockerd 26 too).
on() {
        local i=$1
        shift
        if [ "$(_cluster_engines_node)" = "$i" ]; then
                DOCKER_HOST=unix://$ENGINES_DIR/d.sock DOCKER_CONFIG=$CLUSTER_DIR/client-$i "$@"
        else
                DOCKER_HOST=unix://$CLUSTER_DIR/n$i/d.sock DOCKER_CONFIG=$CLUSTER_DIR/n$i/client "$@"
        fi
}

# cluster_gpu_list I: `amd-ctk gpu list --json` on node I's simulated host.
cluster_gpu_list() {
        if [ "$(_cluster_engines_node)" = "$1" ]; then
                engines_in /ctk-build/bin/amd-ctk gpu list --json
        else
                "$CTK_BIN/amd-ctk" --config "$CLUSTER_DIR/n$1/toolkit.json" gpu list --json
        fi
}

# _cluster_use I: the dockerd helpers' variables for node I.
_cluster_use() {
        DOCKERD_DIR=$CLUSTER_DIR/n$1
        DOCKERD_CONFIG=$DOCKERD_DIR/daemon.json
        DOCKER_HOST=unix://$DOCKERD_DIR/d.sock
        DOCKER_CONFIG=$DOCKERD_DIR/client
        export DOCKERD_DIR DOCKERD_CONFIG DOCKER_HOST DOCKER_CONFIG
}

# cluster_node_start I PROFILE [ARG...]: node I: PROFILE's host over FUSE,
# the runtime's configuration, daemon.json from `amd-ctk runtime configure
# --set-as-default --swarm-resources ARG...` (its output in
# CLUSTER_DIR/nI/configure.out), its daemons, the test images.
cluster_node_start() {
        local i=$1 profile=$2 d=$CLUSTER_DIR/n$1
        shift 2
        mkdir -p "$d/host" || return 1
        "$CTK_BIN/amd-ctk-fakefs" mount "$profile" "$d/host" --pidfile "$d/fakefs.pid" || return 1
        jq -n --arg root "$d/host" --arg log "$d/runtime.log" --arg state "$d/state" \
                '{"root": $root, "log-file": $log, "state-dir": $state}' >"$d/toolkit.json"
        _cluster_use "$i"
        dockerd_write_config '{}' || return 1
        "$CTK_BIN/amd-ctk" --config "$d/toolkit.json" runtime configure --config-path "$DOCKERD_CONFIG" \
                --set-as-default --runtime-arg="--amd-config=$d/toolkit.json" --swarm-resources "$@" \
                >"$d/configure.out" 2>&1 || {
                cat "$d/configure.out" >&2
                return 1
        }
        DOCKERD_NETNS=$(cluster_netns "n$i") dockerd_start "$d" || return 1
        images_docker_import
}

# cluster_engines_node_start I PROFILE [ARG...]: node I on dockerd 26 (its
# root built once by sim/engines.sh), PROFILE's host over FUSE at /ctk-host,
# daemon.json from the same runtime configure, run inside that root.
cluster_engines_node_start() {
        local i=$1 profile=$2
        shift 2
        mkdir -p "$CLUSTER_DIR/client-$i" && echo '{}' >"$CLUSTER_DIR/client-$i/config.json" || return 1
        ENGINES_NETNS=$(cluster_netns "n$i") engines_start || return 1
        echo "$i" >"$CLUSTER_DIR/engines-node"
        readlink "/proc/$ENGINES_PID/ns/mnt" >"$(_cluster_ids).mntns"
        engines_fakefs_mount "$profile" || return 1
        echo '{"root": "/ctk-host", "log-file": "/ctk/runtime.log", "state-dir": "/ctk/state"}' \
                >"$ENGINES_DIR/toolkit/config.json"
        engines_in /ctk-build/bin/amd-ctk runtime configure --config-path /ctk/daemon.json --set-as-default \
                --swarm-resources "$@" >"$CLUSTER_DIR/n$i.configure.out" 2>&1 || {
                cat "$CLUSTER_DIR/n$i.configure.out" >&2
                return 1
        }
        engines_dockerd_restart
}

# cluster_node_kill I: SIGKILL to node I's dockerd (containerd, the shims and
# the containers go on running, as after a crash of dockerd alone).
cluster_node_kill() {
        kill -KILL "$(cat "$CLUSTER_DIR/n$1/dockerd.launch.pid")"
}

# cluster_stop: every node's containers and daemons, its FUSE host, its
# directory; the namespaces; CLUSTER_DIR.  Safe after any failure, and
# twice.
cluster_stop() {
        [ -n "${CLUSTER_DIR:-}" ] && [ -d "$CLUSTER_DIR" ] || return 0
        local i d rc=0
        # the containers of every node, for cluster_leftovers
        for i in 0 1 2; do
                timeout 20 on "$i" docker ps -aq --no-trunc 2>/dev/null || true
        done >>"$(_cluster_ids)"
        # the nodes side by side (each has dozens of containers to remove)
        local pids=() pid
        if [ -n "$(_cluster_engines_node)" ]; then
                (
                        engines_fakefs_umount
                        engines_stop
                ) &
                pids+=($!)
        fi
        for i in 2 1 0; do
                d=$CLUSTER_DIR/n$i
                [ -d "$d" ] || continue
                (
                        _cluster_use "$i"
                        st=0
                        # (a node whose dockerd was killed: its containers through runc)
                        dockerd_halt || st=1
                        if [ -e "$d/fakefs.pid" ]; then
                                "$CTK_BIN/amd-ctk-fakefs" umount "$d/host" 2>/dev/null ||
                                        umount -l "$d/host" 2>/dev/null || true
                                ctk_kill_pidfile "$d/fakefs.pid" 10
                        fi
                        exit $st
                ) &
                pids+=($!)
        done
        for pid in "${pids[@]}"; do
                wait "$pid" || rc=1
        done
        # the namespaces (they go with their holders), for cluster_leftovers
        for i in hub n0 n1 n2; do
                [ ! -e "$CLUSTER_DIR/ns-$i.pid" ] || readlink "$(cluster_netns "$i")" 2>/dev/null || true
        done >"$(_cluster_ids).netns"
        for i in hub n0 n1 n2; do
                ctk_kill_pidfile "$CLUSTER_DIR/ns-$i.pid" 10
        done
        # (what started after this is not the cluster's: cluster_leftovers)
        awk -v hz="$(getconf CLK_TCK)" '{ printf "%d\n", $1 * hz }' /proc/uptime >"$(_cluster_ids).stopped"
        ctk_rm_tmpdir "$CLUSTER_DIR" || rc=1
        return $rc
}

# _cluster_before_stop PID: true when process PID started before
# cluster_stop ended.  A namespace is known by its number, which the kernel
# gives to the next namespace made once it is gone: a process found in a
# namespace of that number that started later is in another one (another
# test's container, say), not a leftover.
_cluster_before_stop() {
        local stopped start
        stopped=$(cat "$(_cluster_ids).stopped" 2>/dev/null) || return 0
        start=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $20 }') || return 1
        [ -n "$start" ] && [ "$start" -le "$stopped" ]
}

# cluster_leftovers: one line per thing the cluster left behind.
cluster_leftovers() {
        local dir=${CLUSTER_DIR:?} f id
        # a network namespace lives while a process is in it
        if [ -s "$(_cluster_ids).netns" ]; then
                for f in /proc/[0-9]*; do
                        id=$(readlink "$f/ns/net" 2>/dev/null) || continue
                        ! grep -qxF -- "$id" "$(_cluster_ids).netns" || ! _cluster_before_stop "${f#/proc/}" ||
                                echo "process ${f#/proc/} in the cluster's network namespace $id"
                done
        fi
        ctk_mounts_under "$dir" | sed 's/^/mount /'
        [ ! -e "$dir" ] || echo "directory $dir"
        for f in /proc/[0-9]*/cmdline; do
                { tr '\0' ' ' <"$f"; } 2>/dev/null | grep -qF -- "$dir/" || continue
                f=${f#/proc/}
                echo "process ${f%/cmdline}: $(tr '\0' ' ' <"/proc/${f%/cmdline}/cmdline" 2>/dev/null)"
        done
        # dockerd 26's namespace: every process in it
        if [ -s "$(_cluster_ids).mntns" ]; then
                local mnt
                mnt=$(cat "$(_cluster_ids).mntns")
                for f in /proc/[0-9]*; do
                        [ "$(readlink "$f/ns/mnt" 2>/dev/null)" != "$mnt" ] || ! _cluster_before_stop "${f#/proc/}" ||
                                echo "process ${f#/proc/} of dockerd 26's namespace"
                done
        fi
        # the containers' processes, by the cgroups dockerd gave them
        if [ -s "$(_cluster_ids)" ]; then
                for id in $(sort -u "$(_cluster_ids)"); do
                        grep -l -- "$id" /proc/[0-9]*/cgroup 2>/dev/null | sed "s|/proc/\([0-9]*\)/cgroup|process \1 of container $id|"
                done
        fi
}
