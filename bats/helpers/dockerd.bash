# A private dockerd (with its own containerd) for one bats file or the sim.
#
#   load helpers/common; load helpers/dockerd
#   setup_file()    { dockerd_start; }      # exports DOCKER_HOST, DOCKERD_CONFIG
#   teardown_file() { dockerd_stop; }
#
# Everything lives below one short temp directory (DOCKERD_DIR):
#   daemon.json   the daemon configuration the test edits (DOCKERD_CONFIG)
#   d.sock c.sock docker and containerd API sockets
#   data/ x/      dockerd --data-root and --exec-root
#   ctr/          containerd root and state
#   mnt/          for what a test mounts while the daemons run (DOCKERD_MNT)
#   ns/           the daemons' private /var/lib (overlay upper layer)
#   *.log *.pid   logs and pid files
# The host's /etc/docker, /var/lib/docker and system containerd are never
# used: containerd is started here and handed to dockerd with --containerd.
# There is no bridge network, so containers get only a loopback interface
# whether or not they pass --network none (documented commands run as is).
# CTK_BIN is put first on the PATH of both daemons, so a runtime configured
# as "path": "amd-container-runtime" resolves to the binary under test.
#
# Both daemons run in namespaces of their own, which dockerd_restart joins
# again:
# * a network namespace (loopback up, IPv4 forwarding on there, so dockerd
#   does not add "IPv4 forwarding is disabled" to every docker run on a
#   host that has it off): a new one, or with DOCKERD_NETNS=FILE the one
#   FILE names (/proc/PID/ns/net of a process holding it: the caller's,
#   helpers/swarm_cluster.bash).  Swarm mode needs it too: `docker swarm
#   init` creates network interfaces (docker_gwbridge) that would outlive
#   the test and collide with another private dockerd; in the namespace
#   they vanish with the daemons.
# * a cgroup namespace rooted at cgroups of the test's own, and cgroup file
#   systems mounted afresh (helpers/cgroup.sh): dockerd's /docker, and any
#   other cgroup the daemons make, are removed with them by dockerd_stop.
# * a mount namespace, for the paths the daemons write whatever they are
#   told: a fresh tmpfs on /run (containerd 1.6's shims bind their sockets
#   in /run/containerd/s), and /var/lib as an overlay whose changes stay in
#   DOCKERD_DIR/ns (Swarm's load balancer writes /var/lib/docker/network/
#   files/lb_*); the containers' mounts stay in there too.  It is a slave
#   of the host's: what is mounted on the host before the daemons start is
#   there, and, later, what is mounted below DOCKERD_MNT (a shared mount).
# Plain bash: sim/sim.sh uses the same functions. Every function works under
# bats' `set -e` (expected failures are handled, not left to errexit).

DOCKERD_TIMEOUT=${DOCKERD_TIMEOUT:-60}

# dockerd_start [DIR]: starts containerd and dockerd below DIR (default: a new
# temp directory), keeps an existing DIR/daemon.json, waits until the API
# answers. Fails (with the daemon log tail, everything stopped and removed)
# after DOCKERD_TIMEOUT seconds.
dockerd_start() {
        DOCKERD_DIR=${1:-$(ctk_tmpdir docker)} || return 1
        DOCKERD_CONFIG=$DOCKERD_DIR/daemon.json
        DOCKER_HOST=unix://$DOCKERD_DIR/d.sock
        DOCKER_CONFIG=$DOCKERD_DIR/client # the docker CLI's own settings
        DOCKERD_MNT=$DOCKERD_DIR/mnt
        export DOCKERD_DIR DOCKERD_CONFIG DOCKER_HOST DOCKER_CONFIG DOCKERD_MNT
        [ ${#DOCKERD_DIR} -le 80 ] || { # unix socket paths are limited to 108 bytes
                echo "dockerd_start: $DOCKERD_DIR is too long for the sockets below it (use ctk_tmpdir)" >&2
                return 1
        }
        mkdir -p "$DOCKERD_DIR"/{data,x,ctr,client,mnt,ns/varlib.up,ns/varlib.wk} || return 1
        [ -e "$DOCKERD_DIR/cgroups" ] ||
                sh "$CTK_REPO/bats/helpers/cgroup.sh" make "$DOCKERD_DIR/cgroups" "$(basename "$DOCKERD_DIR")" || return 1
        [ -e "$DOCKERD_CONFIG" ] || dockerd_write_config '{}' || return 1
        [ -e "$DOCKER_CONFIG/config.json" ] || echo '{}' >"$DOCKER_CONFIG/config.json"
        _dockerd_share_mnt && _containerd_start && _dockerd_launch && return 0
        dockerd_stop # what did start (the log tails are printed above)
        return 1
}

# dockerd_write_config JSON: writes daemon.json (plus the key path that keeps
# dockerd 20.10 from creating /etc/docker/key.json).
dockerd_write_config() {
        printf '%s\n' "$1" | jq --arg k "$DOCKERD_DIR/key.json" '. + {"deprecated-key-path": $k}' \
                >"$DOCKERD_CONFIG"
}

_containerd_start() {
        local d=$DOCKERD_DIR
        cat >"$d/containerd.toml" <<TOML
version = 2
root = "$d/ctr/root"
state = "$d/ctr/state"
disabled_plugins = ["io.containerd.grpc.v1.cri"]
[grpc]
  address = "$d/c.sock"
[ttrpc]
  address = "$d/c.sock.ttrpc"
[debug]
  address = "$d/c.sock.debug"
[plugins."io.containerd.internal.v1.opt"]
  path = "$d/ctr/opt"
TOML
        # (the mount namespace: see the top of this file)
        local setup='d=$1 cg=$2; shift 2
                sh "$cg" mount "$d/cgroups" /sys/fs/cgroup host $$ &&
                mount -t tmpfs -o mode=0755 tmpfs /run &&
                mount -t overlay overlay -o "lowerdir=/var/lib,upperdir=$d/ns/varlib.up,workdir=$d/ns/varlib.wk" \
                        /var/lib &&
                ip link set lo up && echo 1 >/proc/sys/net/ipv4/ip_forward && exec "$@"'
        local cg=$CTK_REPO/bats/helpers/cgroup.sh
        local ns=(sh "$cg" launch "$d/cgroups" unshare --net --mount --cgroup --propagation slave sh -c "$setup" ns "$d" "$cg")
        [ -z "${DOCKERD_NETNS:-}" ] || ns=(sh "$cg" launch "$d/cgroups" nsenter --net="$DOCKERD_NETNS" unshare --mount \
                --cgroup --propagation slave sh -c "$setup" ns "$d" "$cg")
        PATH=$CTK_BIN:$PATH setsid "${ns[@]}" containerd --config "$d/containerd.toml" \
                </dev/null >"$d/containerd.log" 2>&1 3>&- &
        echo $! >"$d/containerd.pid"
        ctk_wait_for "$DOCKERD_TIMEOUT" _containerd_ready || {
                echo "containerd did not start within ${DOCKERD_TIMEOUT}s:" >&2
                tail -n 20 "$d/containerd.log" >&2
                return 1
        }
}

# DOCKERD_MNT, a shared mount: mounts below it reach the daemons' namespace.
_dockerd_share_mnt() {
        [ -n "$(ctk_mounts_under "$DOCKERD_MNT")" ] ||
                { mount --bind "$DOCKERD_MNT" "$DOCKERD_MNT" && mount --make-shared "$DOCKERD_MNT"; }
}

_containerd_ready() {
        kill -0 "$(cat "$DOCKERD_DIR/containerd.pid")" 2>/dev/null || return 2
        ctr --address "$DOCKERD_DIR/c.sock" version >/dev/null 2>&1 || return 1
}

_dockerd_launch() {
        local d=$DOCKERD_DIR pid
        pid=$(cat "$d/containerd.pid")
        PATH=$CTK_BIN:$PATH sh "$CTK_REPO/bats/helpers/cgroup.sh" enter "$d/cgroups" nsenter --net="/proc/$pid/ns/net" \
                --mount="/proc/$pid/ns/mnt" --cgroup="/proc/$pid/ns/cgroup" setsid dockerd \
                --config-file "$DOCKERD_CONFIG" \
                --containerd "$d/c.sock" \
                --data-root "$d/data" --exec-root "$d/x" \
                --pidfile "$d/dockerd.pid" -H "$DOCKER_HOST" \
                --bridge=none --iptables=false --ip6tables=false \
                --ip-forward=false --ip-masq=false --userland-proxy=false \
                </dev/null >>"$d/dockerd.log" 2>&1 3>&- &
        echo $! >"$d/dockerd.launch.pid"
        disown # (a daemon a test kills on purpose is not reported by the shell)
        ctk_wait_for "$DOCKERD_TIMEOUT" _dockerd_ready || {
                echo "dockerd did not start within ${DOCKERD_TIMEOUT}s:" >&2
                tail -n 20 "$d/dockerd.log" >&2
                return 1
        }
}

_dockerd_ready() {
        kill -0 "$(cat "$DOCKERD_DIR/dockerd.launch.pid")" 2>/dev/null || return 2
        docker version >/dev/null 2>&1 || return 1
}

# dockerd_reload: makes dockerd re-read daemon.json (SIGHUP) and waits until it
# has; fails with dockerd's message if the new configuration was rejected.
dockerd_reload() {
        local log=$DOCKERD_DIR/dockerd.log before
        before=$(wc -l <"$log")
        kill -HUP "$(cat "$DOCKERD_DIR/dockerd.launch.pid")" || return 1
        ctk_wait_for 20 _dockerd_reloaded "$before" || {
                echo "dockerd did not reload its configuration:" >&2
                tail -n +"$((before + 1))" "$log" >&2
                return 1
        }
        ! tail -n +"$((before + 1))" "$log" | grep -q 'level=error' || {
                tail -n +"$((before + 1))" "$log" | grep 'level=error' >&2
                return 1
        }
}

_dockerd_reloaded() {
        tail -n +"$(($1 + 1))" "$DOCKERD_DIR/dockerd.log" | grep -q -e 'Reloaded configuration' -e 'level=error'
}

# dockerd_restart: stops dockerd (containerd and the images stay) and starts it
# again, e.g. after a daemon.json change that a reload does not apply.
dockerd_restart() {
        _dockerd_kill && _dockerd_launch
}

_dockerd_kill() {
        ctk_kill_pidfile "$DOCKERD_DIR/dockerd.launch.pid" 20
}

# dockerd_stop: removes every container, stops dockerd and containerd, kills
# what a crashed daemon left behind (containers through runc with our state
# roots, shims serving our containerd socket), removes the daemons' cgroups,
# unmounts everything below DOCKERD_DIR and removes it. Safe to call after
# any failure, and twice; fails when something could not be removed.
dockerd_stop() {
        local d=${DOCKERD_DIR:-} rc=0
        [ -n "$d" ] && [ -d "$d" ] || return 0
        dockerd_halt || rc=1
        ctk_rm_tmpdir "$d" || return 1
        unset DOCKERD_DIR DOCKERD_CONFIG DOCKER_HOST DOCKER_CONFIG DOCKERD_MNT
        return $rc
}

# dockerd_halt: dockerd_stop without removing DOCKERD_DIR (for a caller that
# has more to stop below it first).
dockerd_halt() {
        local d=$DOCKERD_DIR
        if [ -S "$d/d.sock" ] && [ -e "$d/dockerd.launch.pid" ]; then
                local ids
                ids=$(timeout 20 docker ps -aq 2>/dev/null) || ids=
                [ -z "$ids" ] || timeout 60 docker rm -f $ids >/dev/null 2>&1 || true
        fi
        _dockerd_kill
        _ctk_kill_runc_containers "$d/x"
        ctk_kill_pidfile "$d/containerd.pid" 20
        _ctk_kill_shims "$d/c.sock"
        # what is left in the daemons' cgroups, and the cgroups
        sh "$CTK_REPO/bats/helpers/cgroup.sh" remove "$d/cgroups"
}

# Containers still known to runc under dockerd's exec root (one state root per
# configured runtime: x/runtime-<name>/<namespace>).
_ctk_kill_runc_containers() {
        local root id
        for root in "$1"/runtime-*/*/; do
                [ -d "$root" ] || continue
                for id in $(runc --root "$root" list -q 2>/dev/null); do
                        runc --root "$root" kill -a "$id" KILL 2>/dev/null || true
                        runc --root "$root" delete -f "$id" 2>/dev/null || true
                done
        done
}

# containerd-shim-runc-v2 processes started for our containerd outlive it;
# they are found by our containerd socket path on their command line.
_ctk_kill_shims() {
        local sock=$1 f pid
        for f in /proc/[0-9]*/cmdline; do
                { tr '\0' ' ' <"$f"; } 2>/dev/null | grep -qF -- "-address $sock " || continue
                pid=${f#/proc/}
                pid=${pid%/cmdline}
                kill -KILL "$pid" 2>/dev/null || true
        done
}
